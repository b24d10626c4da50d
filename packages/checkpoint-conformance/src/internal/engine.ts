/**
 * Engine conformance: runs real graphs through `@graph/runtime` on the adapter (resume after a kill, lease
 * races between processes, storage growth per step, …).
 *
 * Intentionally empty for now: the runtime is being written concurrently. The lead fills `describeEngine` in
 * once `@graph/runtime` exists; `describeCheckpointer` already calls it, so adapters pick the tests up without
 * changing their test files.
 */
import type { DescribeCheckpointerOptions } from "./options.js";

/** Options of the engine half of the suite. */
export interface EngineOptions {
  /** Skip the engine tests for this adapter. */
  readonly skip?: boolean;
}

/**
 * Registers the engine tests (none yet — see the module comment). When filling it in, wrap the tests in
 * `describe("engine", () => { … })` here: vitest fails on an empty describe block, so the caller does not open one.
 */
export function describeEngine(_options: DescribeCheckpointerOptions): void {
  // Intentionally registers nothing until @graph/runtime is usable (the lead adds the engine tests here).
}
