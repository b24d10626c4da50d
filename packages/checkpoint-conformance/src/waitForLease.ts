/**
 * `describeWaitForLease(options)`: resuming a workflow whose holder process was SIGKILLed, with the run option
 * `waitForLease`, on your adapter (needs `engine.childProcess`, like the crash tests of `describeCheckpointer`).
 * A wait shorter than the dead lease fails with `WorkflowConflictError` naming the dead holder and tells and writes
 * nothing; `waitForLease: true` waits the lease out, then resumes with the finished node replayed, and tells no
 * node's event before its claim succeeded.
 *
 * @example
 * ```ts
 * import { describeWaitForLease } from "@graph/checkpoint-conformance";
 * describeWaitForLease({ name: "sqlite", create: (o) => new SqliteCheckpointer({ path: file, ...o }), engine: { childProcess } });
 * ```
 *
 * @module
 */
export { describeWaitForLease } from "./internal/waitForLease.js";
