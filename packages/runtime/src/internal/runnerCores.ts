/**
 * Each `Runner`'s core, for the entry points that act on a runner without being its methods (`@graph/runtime/worker`).
 * A WeakMap, not a public field: the core stays out of the Promise API, and a runner from another copy of the package
 * is simply not found.
 */
import type { RunnerCore } from "./runner.js";

const cores = new WeakMap<object, RunnerCore>();

export function bindCore(runner: object, core: RunnerCore): void {
  cores.set(runner, core);
}

export function coreOf(runner: unknown): RunnerCore | undefined {
  return typeof runner === "object" && runner !== null ? cores.get(runner) : undefined;
}
