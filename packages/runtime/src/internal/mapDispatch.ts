/**
 * Mapped GraphNodes whose items run in other processes (the runner's `mapDispatcher`): handing the items over,
 * parking the run while they run, rebuilding the node's outcome from the items' stored results, and running one
 * item elsewhere exactly as the in-process path runs it.
 */
import { INPUT_STEP, type StepRecord, type StoredError, type WorkflowRecord } from "@graph/checkpoint";
import type { CheckpointStoreService } from "@graph/checkpoint/effect";
import { type Graph, GraphConfigError, type GraphNode } from "@graph/core";
import { Effect } from "effect";
import { type InvalidOptionError, NodeExecutionError } from "../errors.js";
import type { MapDispatchRequest, MapItemRunOptions } from "../options.js";
import { RunResult, type RunStatus } from "../RunResult.js";
import { checkChildIdRoom } from "./childIds.js";
import { makeEmitter, type RunConfig, RunControl, type Shared } from "./context.js";
import { Engine } from "./engine.js";
import type { ChildValues } from "./executors/graph.js";
import type { EngineHost } from "./host.js";
import { RootLease } from "./lease.js";
import { MappedResults } from "./mappedResults.js";
import { checkMapItemOptions } from "./options.js";
import type { Execution, Outcome, RunError } from "./outcome.js";

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
  const parentId = `${config.workflowId}/${n.name}`;
  const controller = new AbortController();
  const request: MapDispatchRequest = {
    rootWorkflowId: lease.workflowId,
    parentWorkflowId: config.workflowId,
    nodeName: n.name,
    superstep: host.state.superstep,
    graph: n.graph,
    count: items.length,
    items: items.map((item) => ({ ...base.values, ...item })),
    parentVersions: base.versions,
    fence: { epoch: lease.fence!.epoch, workflowId: lease.workflowId },
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
      return results.outcome(host, parentId);
    }),
  );
}

const isFinished = (status: WorkflowRecord["status"]): status is RunStatus =>
  status === "completed" || status === "failed" || status === "stopped";

/** An item's result as its run returned it: its graph's produced values, its status and its failure. */
function storedItem(graph: Graph, workflow: WorkflowRecord, steps: readonly StepRecord[], runId: string): RunResult {
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
  return new RunResult({ status, values, workflowId: workflow.id, runId, error });
}

/** A stored error as an Error again (its name, message and tag; the stack stayed in the process that threw it). */
function rebuild(stored: StoredError | undefined): Error {
  const error = new Error(stored?.message ?? "an item of the map failed");
  if (stored !== undefined) error.name = stored.name;
  if (stored?.tag !== undefined) (error as Error & { _tag?: string })._tag = stored.tag;
  return error;
}

const itemShareds = new WeakMap<Shared, Shared>();

/** The runner's Shared for dispatched items: the same limits and counters, but their own maps run where they run. */
function itemSharedOf(shared: Shared): Shared {
  let item = itemShareds.get(shared);
  if (item === undefined) {
    item = Object.create(shared, { mapDispatcher: { value: undefined } }) as Shared;
    itemShareds.set(shared, item);
  }
  return item;
}

/**
 * One item of a dispatched map, run as the in-process path runs it: a child workflow (no lease of its own) whose
 * writes carry the root's fence, so a run tree that lost its root's lease writes nothing more.
 */
export function runMapItem(
  graph: Graph,
  options: MapItemRunOptions,
  store: CheckpointStoreService | undefined,
  shared: Shared,
): Effect.Effect<RunResult, RunError | GraphConfigError> {
  return Effect.suspend((): Effect.Effect<RunResult, RunError | GraphConfigError> => {
    if (store === undefined)
      return Effect.fail(new GraphConfigError("runner.runMapItem() needs a runner with a checkpointer."));
    try {
      checkMapItemOptions(options);
      checkChildIdRoom("runner.runMapItem()", options.workflowId, graph);
    } catch (error) {
      return Effect.fail(error as InvalidOptionError);
    }
    const control = new RunControl();
    const signal = options.signal;
    const onAbort = () => control.stop(signal?.reason);
    if (signal?.aborted === true) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
    const lease = new RootLease(options.fence.workflowId, shared.owner, control);
    const itemShared = itemSharedOf(shared);
    lease.fence = { epoch: options.fence.epoch };
    const config: RunConfig = {
      values: options.values,
      parentVersions: options.parentVersions,
      workflowId: options.workflowId,
      runId: crypto.randomUUID(),
      maxIterations: options.maxIterations,
      shared: itemShared,
      emitter: makeEmitter(shared.processors, undefined),
      control,
      completeOnStop: options.completeOnStop,
      parentSpanId: undefined,
      depth: 1,
      checkpoint: undefined,
      force: false,
      isChild: true,
      parentWorkflowId: options.parentWorkflowId,
      lease,
      unknownValues: undefined,
    };
    return new Engine(graph, config).run().pipe(
      Effect.tap(() => store.flush(options.workflowId)),
      Effect.ensuring(Effect.sync(() => signal?.removeEventListener("abort", onAbort))),
    );
  });
}
