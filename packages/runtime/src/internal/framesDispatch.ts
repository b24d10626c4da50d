/**
 * A frames pipeline whose frames run in other processes (the dispatcher's `frames`, e.g. a BullMQ pool): the
 * generator stays in the run's process, each frame goes to the dispatcher, and its result is read back from the
 * checkpointer once the dispatcher says it finished. Frames already stored finished (a resumed run re-drives the
 * generator from the start) are read at once and never handed over.
 */
import type { CheckpointStoreService } from "@graph/checkpoint/effect";
import type { GraphNode } from "@graph/core";
import * as Effect from "effect/Effect";
import type { GraphEvent } from "../events.js";
import type { FramesDispatch } from "../options.js";
import { RunResult } from "../RunResult.js";
import { nextSpanId } from "./context.js";
import type { EngineHost } from "./host.js";
import { isFinished, storedItem } from "./mapDispatch.js";

/** Where a pipeline's frames run: here (one child run per frame) or elsewhere (a dispatcher). */
export interface FrameRunner {
  /**
   * Whether a frame's spending reaches the run tree's meter by itself (child runs of this process count their steps
   * as they go); otherwise the driver counts each frame's total when its result arrives.
   */
  readonly countsUsage: boolean;
  /** Runs frame `i`; resolves with its result (rejects: the pipeline fails). */
  run(i: number, frame: unknown): Promise<RunResult>;
  /** The driver waits (window full, stream over): frames buffered for a batch should go now. */
  flush(): void;
  /** The run was asked to stop. */
  stop(): void;
  /** The pipeline's fiber was interrupted: drop what runs. */
  abandon(): void;
  /** The pipeline ended. */
  close(): Promise<void>;
}

/**
 * The pool's runner of a pipeline's frames, when the runner's dispatcher takes frames and the run writes to a
 * store under a lease; undefined otherwise (frames run here).
 */
export function poolFrames(
  host: EngineHost,
  spanId: string,
  n: GraphNode,
  valuesOf: (frame: unknown) => Record<string, unknown>,
  versions: Readonly<Record<string, number>>,
): FrameRunner | undefined {
  const config = host.config;
  const frames = config.shared.mapDispatcher?.frames;
  const store = config.shared.store;
  const fence = config.lease?.treeFence;
  if (frames === undefined || store === undefined || fence === undefined) return undefined;
  const parentId = `${config.workflowId}/${n.name}`;
  const dispatch = frames.call(config.shared.mapDispatcher, {
    rootWorkflowId: fence.workflowId,
    parentWorkflowId: config.workflowId,
    nodeName: n.name,
    graph: n.graph,
    window: n.framesConfig!.window,
    parentVersions: versions,
    fence,
    completeOnStop: n.completeOnStop,
    maxIterations: config.maxIterations,
    events: config.emitter.active,
    frameWorkflowId: (i) => `${parentId}/${i}`,
  });
  return dispatch === undefined ? undefined : new PoolFrames(host, spanId, n, store, dispatch, parentId, valuesOf);
}

class PoolFrames implements FrameRunner {
  readonly countsUsage = false;
  constructor(
    readonly host: EngineHost,
    readonly spanId: string,
    readonly n: GraphNode,
    readonly store: CheckpointStoreService,
    readonly dispatch: FramesDispatch,
    readonly parentId: string,
    readonly valuesOf: (frame: unknown) => Record<string, unknown>,
  ) {}

  async run(i: number, frame: unknown): Promise<RunResult> {
    const id = `${this.parentId}/${i}`;
    // A frame stored finished (by an earlier run of this workflow, wherever it ran) is not handed over again.
    const known = await Effect.runPromise(this.store.getWorkflow(id));
    if (known?.status !== "completed" && known?.status !== "failed")
      this.#forward(await this.dispatch.run(i, this.valuesOf(frame)));
    return this.#read(id);
  }

  /**
   * A frame's events, shown as an in-process frame's: the run's id, span ids of this runner (the other process
   * numbered its own), the frame's own run under the frames node's span.
   */
  #forward(events: readonly GraphEvent[] | undefined): void {
    const { config } = this.host;
    if (events === undefined || events.length === 0 || !config.emitter.active) return;
    const spans = new Map<string, string>();
    const span = (id: string): string => {
      let mine = spans.get(id);
      if (mine === undefined) spans.set(id, (mine = nextSpanId(config.shared)));
      return mine;
    };
    for (const e of events)
      config.emitter.emit({
        ...e,
        runId: config.runId,
        spanId: span(e.spanId),
        parentSpanId: e.parentSpanId === undefined ? this.spanId : span(e.parentSpanId),
      } as GraphEvent);
  }

  /** The frame's result from storage; a frame with no finished workflow (it did not run: a stop) counts as stopped. */
  async #read(id: string): Promise<RunResult> {
    const runId = this.host.config.runId;
    const workflow = await Effect.runPromise(this.store.getWorkflow(id));
    if (workflow === undefined || !isFinished(workflow.status))
      return new RunResult({ status: "stopped", values: {}, workflowId: id, runId });
    const steps = await Effect.runPromise(this.store.getSteps(id));
    return storedItem(this.n.graph, workflow, steps, runId);
  }

  flush(): void {
    this.dispatch.flush();
  }

  stop(): void {
    this.dispatch.cancel();
  }

  abandon(): void {
    void this.dispatch.close().catch(() => undefined);
  }

  close(): Promise<void> {
    return this.dispatch.close();
  }
}
