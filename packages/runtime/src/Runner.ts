import type { Graph } from "@graph/core";
import { Effect } from "effect";
import type { GraphEvent } from "./events.js";
import { RunControl, Subscriber } from "./internal/context.js";
import {
  type MapOptions,
  type RunHandle,
  RunnerCore,
  type RunnerOptions,
  type RunOptions,
  runPromise,
  unwrap,
} from "./internal/runner.js";
import type { MapResult, RunResult } from "./RunResult.js";

export type { MapOptions, RunHandle, RunnerOptions, RunOptions };

/**
 * Runs graphs. The Promise API: every method resolves with plain values and rejects with the tagged error itself
 * (`MissingInputError`, `NodeExecutionError`, …), so `catch (e) { if (e._tag === "…") }` works.
 *
 * @example
 * ```ts
 * import { Runner } from "@graph/runtime";
 * import { SqliteCheckpointer } from "@graph/checkpoint-sqlite";
 *
 * const runner = new Runner({ checkpointer: new SqliteCheckpointer({ path: "./graph.db" }) });
 * const result = await runner.run(graph, { values: { query: "hi" }, workflowId: "chat-1" });
 * console.log(result.status, result.get("answer"));
 * await runner.close();
 * ```
 */
export class Runner {
  readonly #core: RunnerCore;

  constructor(options: RunnerOptions = {}) {
    this.#core = new RunnerCore(options);
  }

  /** Runs a graph to completion (or pause / stop / failure). */
  run(graph: Graph, options: RunOptions = {}): Promise<RunResult> {
    return runPromise(this.#core.run(graph, options));
  }

  /** Starts a run and returns at once with a handle: its events, its result, and `stop()`. */
  start(graph: Graph, options: RunOptions = {}): RunHandle {
    const subscriber = new Subscriber(this.#core.options.eventBufferSize ?? 1000);
    const control = new RunControl();
    const workflowId = options.workflowId ?? crypto.randomUUID();
    let runId = "";
    const result = runPromise(
      this.#core
        .run(graph, { ...options, workflowId }, subscriber, control)
        .pipe(Effect.tap((r) => void (runId = r.runId))),
    ).then(
      (r) => {
        subscriber.close();
        return r;
      },
      (error: unknown) => {
        subscriber.close(error);
        throw error;
      },
    );
    // The caller may only read events; a rejection must not become an unhandled one.
    result.catch(() => {});
    return {
      workflowId,
      get runId() {
        return runId;
      },
      events: subscriber,
      result,
      stop: (info?: unknown) => control.stop(info),
    };
  }

  /** Runs a graph and yields its events as they happen (with backpressure); throws the run's error at the end. */
  stream(graph: Graph, options: RunOptions = {}): AsyncIterable<GraphEvent> {
    return this.start(graph, options).events;
  }

  /** Runs the graph once per item of the `mapOver` inputs (zip or product), concurrently. */
  map(graph: Graph, options: MapOptions): Promise<MapResult> {
    return runPromise(this.#core.map(graph, options));
  }

  /** Runs a graph synchronously. Only for graphs with no async nodes or interrupts, on a runner without a checkpointer. */
  runSync(graph: Graph, options: Omit<RunOptions, "signal"> = {}): RunResult {
    this.#core.checkSync(graph);
    return unwrap(Effect.runSyncExit(this.#core.run(graph, options)));
  }

  /** Stops a live run of this runner by workflow id. Resolves to false when no such run is live. */
  async stop(workflowId: string, info?: unknown): Promise<boolean> {
    return this.#core.stop(workflowId, info);
  }

  /** Stops live runs, flushes pending checkpoint writes, closes the checkpointer and the event processors. */
  close(): Promise<void> {
    return runPromise(this.#core.close());
  }
}
