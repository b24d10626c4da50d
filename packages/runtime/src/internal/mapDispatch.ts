/**
 * Mapped GraphNodes whose items run in other processes (the runner's `mapDispatcher`): handing the items over,
 * parking the run while they run, and rebuilding the node's outcome from the items' stored results. Running one
 * item in the other process is `mapItem.ts`, beside the runner.
 */
import { INPUT_STEP, type StepRecord, type StoredError, type WorkflowRecord } from "@graph/checkpoint";
import type { CheckpointStoreService } from "@graph/checkpoint/effect";
import type { Graph, GraphNode } from "@graph/core";
import * as Effect from "effect/Effect";
import { NodeExecutionError } from "../errors.js";
import type { MapDispatchRequest } from "../options.js";
import { RunResult, type RunStatus } from "../RunResult.js";
import type { ChildValues } from "./executors/graph.js";
import type { EngineHost } from "./host.js";
import { rollUp } from "./journalUsage.js";
import { MappedResults } from "./mappedResults.js";
import type { Execution, Outcome, RunError } from "./outcome.js";
import { turnUsage } from "./usage.js";

/** Stored item results read at once while rebuilding a dispatched map's outcome. */
const READ_CONCURRENCY = 64;

/** A map of `count` items goes to the dispatcher: there is one, the map is big enough, the run writes to a store. */
export function dispatchable(host: EngineHost, count: number): boolean {
  const { shared, lease } = host.config;
  return (
    shared.mapDispatcher !== undefined &&
    count >= shared.mapDispatcher.minItems &&
    shared.store !== undefined &&
    lease?.fence !== undefined
  );
}

/**
 * Asks the dispatcher to run the items: "parked" ends the node paused (reason `map_dispatched`, so the run gives up
 * its lease); "done" rebuilds the node's outcome from the items' stored results; "inline" runs them here. A
 * dispatcher that throws fails the node like an item would.
 */
export function dispatchMapped(
  host: EngineHost,
  ex: Execution,
  n: GraphNode,
  base: ChildValues,
  items: readonly Record<string, unknown>[],
  inline: () => Effect.Effect<Outcome, RunError>,
): Effect.Effect<Outcome, RunError> {
  const config = host.config;
  const store = config.shared.store!;
  const lease = config.lease!;
  const fence = lease.treeFence!;
  const parentId = `${config.workflowId}/${n.name}`;
  const controller = new AbortController();
  const request: MapDispatchRequest = {
    rootWorkflowId: fence.workflowId,
    parentWorkflowId: config.workflowId,
    nodeName: n.name,
    superstep: host.state.superstep,
    graph: n.graph,
    count: items.length,
    ...(n.mapOverConfig?.concurrency === undefined ? {} : { concurrency: n.mapOverConfig.concurrency }),
    items: items.map((item) => ({ ...base.values, ...item })),
    parentVersions: base.versions,
    fence,
    completeOnStop: n.completeOnStop,
    maxIterations: config.maxIterations,
    signal: controller.signal,
    itemWorkflowId: (i) => `${parentId}/${i}`,
  };
  return Effect.suspend(() => {
    config.control.track(controller);
    return Effect.tryPromise({ try: () => config.shared.mapDispatcher!.dispatch(request), catch: (e) => e });
  }).pipe(
    Effect.ensuring(Effect.sync(() => config.control.untrack(controller))),
    Effect.flatMap((answer): Effect.Effect<Outcome, unknown> => {
      if (answer === "inline") return inline();
      if (answer === "parked")
        return Effect.succeed<Outcome>({
          kind: "paused",
          pause: {
            reason: "map_dispatched",
            nodeName: n.name,
            value: { items: items.length },
            responseKey: "",
          },
          childWorkflowId: parentId,
        });
      return gather(host, ex, n, store, parentId, items.length);
    }),
    Effect.catchAll((error) => Effect.succeed<Outcome>({ kind: "failed", error, childWorkflowId: parentId })),
  );
}

/** The node's outcome from every item's stored result, in item order; an item that never finished counts as stopped. */
function gather(
  host: EngineHost,
  ex: Execution,
  n: GraphNode,
  store: CheckpointStoreService,
  parentId: string,
  total: number,
): Effect.Effect<Outcome, RunError> {
  const results = new MappedResults(n, total);
  const runId = host.config.runId;
  const read = (i: number) => {
    const id = `${parentId}/${i}`;
    return store.getWorkflow(id).pipe(
      Effect.flatMap((workflow) =>
        workflow === undefined || !isFinished(workflow.status)
          ? Effect.succeed(new RunResult({ status: "stopped", values: {}, workflowId: id, runId }))
          : Effect.map(store.getSteps(id), (steps) => storedItem(n.graph, workflow, steps, runId)),
      ),
      Effect.map((r) => results.add(i, r)),
    );
  };
  return Effect.forEach(
    Array.from({ length: total }, (_, i) => i),
    read,
    { concurrency: READ_CONCURRENCY, discard: true },
  ).pipe(
    Effect.map(() => {
      host.event("MapProgress", { nodeName: n.name, completed: total, total }, ex.spanId);
      return rollUp(ex, results.outcome(host, parentId), results.usage, false);
    }),
  );
}

export const isFinished = (status: WorkflowRecord["status"]): status is RunStatus =>
  status === "completed" || status === "failed" || status === "stopped";

/** An item's result as its run returned it: its graph's produced values, its status and its failure. */
export function storedItem(
  graph: Graph,
  workflow: WorkflowRecord,
  steps: readonly StepRecord[],
  runId: string,
): RunResult {
  const values: Record<string, unknown> = {};
  let failed: StepRecord | undefined;
  for (const s of [...steps].sort((a, b) => a.index - b.index)) {
    if (s.nodeName === INPUT_STEP) continue;
    if (s.status === "failed") failed ??= s;
    for (const [k, v] of Object.entries(s.values)) if (graph.outputs.includes(k)) values[k] = v;
  }
  const status = workflow.status as RunStatus;
  let error: unknown;
  if (status === "failed") {
    const stored = failed?.error ?? workflow.error;
    error =
      failed === undefined || stored?.tag === "NodeExecutionError"
        ? rebuild(stored)
        : new NodeExecutionError(failed.nodeName, rebuild(stored));
  }
  return new RunResult({ status, values, workflowId: workflow.id, runId, error, usage: turnUsage(steps) });
}

/** A stored error as an Error again (its name, message and tag; the stack stayed in the process that threw it). */
function rebuild(stored: StoredError | undefined): Error {
  const error = new Error(stored?.message ?? "an item of the map failed");
  if (stored !== undefined) error.name = stored.name;
  if (stored?.tag !== undefined) (error as Error & { _tag?: string })._tag = stored.tag;
  return error;
}
