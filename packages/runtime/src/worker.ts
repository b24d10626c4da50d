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
import type { MapItemRunOptions } from "./options.js";
import type { Runner } from "./Runner.js";
import type { RunResult } from "./RunResult.js";

export { type CronSpec, checkCronSpec as scheduleSpec } from "./internal/cron.js";
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
