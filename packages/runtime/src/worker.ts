/**
 * `@graph/runtime/worker` — calls for the processes that run work another process handed out (a queue's workers),
 * not for applications: one item of a dispatched map; a schedule's pattern and firing ids (`scheduleSpec`), so a
 * queue's job schedulers name each occurrence's workflow as `runner.schedule` does. The dispatching side is `RunnerOptions.mapDispatcher` in the
 * main entry.
 *
 * @module
 */
import { type Graph, GraphConfigError } from "@graph/core";
import { coreOf } from "./internal/runnerCores.js";
import { runPromise } from "./internal/settle.js";
import type { HeldPermit } from "./internal/storePermits.js";
import type { MapItemRunOptions } from "./options.js";
import type { Runner } from "./Runner.js";
import type { RunResult } from "./RunResult.js";

export { type CronSpec, checkCronSpec as scheduleSpec } from "./internal/cron.js";
export type { HeldPermit } from "./internal/storePermits.js";
export type {
  FramesDispatch,
  FramesDispatchRequest,
  MapDispatcher,
  MapDispatchRequest,
  MapFence,
  MapItemRunOptions,
} from "./options.js";

/**
 * Runs ONE item of a mapped GraphNode that a {@link MapDispatcher} handed to another process, with the in-process
 * path's semantics: the child workflow `options.workflowId` (resumed if it ran before), its writes fenced by the
 * root's lease. Resolves with the item's result (a failed item too: `status: "failed"`); rejects with
 * `LeaseLostError` once the root workflow was claimed by a newer run, or a storage error. `runner` needs the map's
 * checkpointer; `runner.close()` stops the items it runs (they end `stopped`) and waits for them.
 *
 * @example
 * ```ts
 * import { runMapItem } from "@graph/runtime/worker";
 *
 * // in a worker, for each item i of a MapDispatchRequest `req` it was sent:
 * await runMapItem(runner, req.graph, {
 *   workflowId: req.itemWorkflowId(i), parentWorkflowId: req.parentWorkflowId, values: req.items[i],
 *   parentVersions: req.parentVersions, fence: req.fence, completeOnStop: req.completeOnStop,
 *   maxIterations: req.maxIterations,
 * });
 * ```
 */
export function runMapItem(runner: Runner, graph: Graph, options: MapItemRunOptions): Promise<RunResult> {
  const core = coreOf(runner);
  if (core === undefined)
    return Promise.reject(
      new GraphConfigError(
        "runMapItem() expects a Runner of @graph/runtime as its first argument. If it is one, two copies of " +
          "@graph/runtime are installed: make the worker import the same copy as the code that built the runner.",
      ),
    );
  return runPromise(core.mapItem(graph, options));
}

/**
 * The store-wide permit slots of a runner's checkpointer — the leased, fenced slots node limits take — for limits a
 * queue puts around whole runs. A concurrency permit (no `holdMs`) is renewed under the runner's lease TTL until
 * released, and comes back after that TTL when its process dies; a rate permit is held `holdMs` and never released.
 * Releases wake the runner's waiters and notify its `permitSignal`.
 */
export interface StorePermitSlots {
  /**
   * One try at a slot of `key` (any string; node limits use keys starting with `concurrency\u0000` and `rate\u0000`,
   * so pick another start) with `limit` slots: the permit, or undefined when every slot is held. Never waits.
   */
  tryTake(key: string, limit: number, holdMs?: number): Promise<HeldPermit | undefined>;
  /** Gives a concurrency permit back (a rate permit: nothing to do). */
  release(permit: HeldPermit): Promise<void>;
}

/**
 * The {@link StorePermitSlots} of `runner` (which needs a checkpointer).
 *
 * @example
 * ```ts
 * import { storePermitSlots } from "@graph/runtime/worker";
 *
 * const slots = storePermitSlots(runner);
 * const permit = await slots.tryTake("run\u0000tenant-7", 2);
 * if (permit !== undefined) {
 *   try { await runner.run(graph, options); } finally { await slots.release(permit); }
 * }
 * ```
 */
export function storePermitSlots(runner: Runner): StorePermitSlots {
  const permits = coreOf(runner)?.storePermits;
  if (permits === undefined)
    throw new GraphConfigError(
      "storePermitSlots() needs a Runner of @graph/runtime with a checkpointer: permits are slots in its store. " +
        "How to fix: pass the runner built with the shared checkpointer (new Runner({ checkpointer })).",
    );
  return {
    tryTake: (key, limit, holdMs) => permits.tryAcquire(key, limit, holdMs),
    release: (permit) => permits.release(permit),
  };
}
