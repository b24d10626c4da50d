/**
 * `describeDueWake(options)`: a runner that is already up (idle) wakes a workflow another process paused with a
 * due time and then died, within the documented bound, on your adapter. With `engine.childProcess` the pausing
 * process is a real child (SIGKILLed after it paused); without it, a second runner on the same checkpointer.
 *
 * @example
 * ```ts
 * import { describeDueWake } from "@graph/checkpoint-conformance";
 * describeDueWake({ name: "sqlite", create: (o) => new SqliteCheckpointer({ path: file, ...o }), engine: { childProcess } });
 * ```
 *
 * @module
 */
export { describeDueWake } from "./internal/dueWake.js";
