/**
 * The runner contract: what every runner of graphs offers, wherever it runs them — the in-process `Runner`, or a
 * queue's `RemoteRunner` that runs them on worker processes. Code written against {@link GraphRunner} moves between
 * them unchanged. {@link makeRunHandle} builds the handle `start` returns, so every runner's handle behaves alike.
 *
 * @module
 */
import type { Graph } from "@graph/core";
import type { GraphEvent } from "./events.js";
import type { MapOptions } from "./options.js";
import type { RunResult } from "./RunResult.js";
import type { MapResultOf, ResultOf, StartArgs } from "./typing.js";

/**
 * A started run: its events, its result, and a way to stop it.
 *
 * @example
 * ```ts
 * const handle = runner.start(graph, { values: { topic: "cats" } });
 * for await (const event of handle.events) console.log(event.type);
 * const result = await handle.result;
 * ```
 */
export interface RunHandle<R = RunResult> {
  readonly workflowId: string;
  /** The run id, once the result is in (empty before, and after a failure). */
  readonly runId: string;
  /** The run's events in order; ends when the run ends, throws the run's error when it failed. */
  readonly events: AsyncIterable<GraphEvent>;
  /** Settles when the run ended: resolves with its result, rejects with its typed error. */
  readonly result: Promise<R>;
  /** Stops the run (running nodes see `ctx.signal` abort; `info` is the reason). Resolves once the stop is requested. */
  stop(info?: unknown): Promise<void>;
}

/** The options of `map` every runner takes (an abort `signal` and a local concurrency limit are `Runner`'s own). */
export type GraphMapOptions = Omit<MapOptions, "signal" | "maxConcurrency">;

/**
 * What every runner offers. The values of `run` and `start` are checked against the graph's inputs and the result is
 * typed by its outputs, as with `Runner`; options only an in-process run can honour (a fork from a `checkpoint`, an
 * abort `signal`, `stream`, `runSync`) are `Runner`'s own.
 *
 * Ownership: a runner owns the checkpointer in its options — `close()` closes it (each runner says how to keep a
 * shared one open).
 *
 * @example
 * ```ts
 * import type { GraphRunner } from "@graph/runtime";
 *
 * // Works with `new Runner({ checkpointer })` and with a queue's `new RemoteRunner({ ... })` alike.
 * async function answer(runner: GraphRunner, question: string) {
 *   const result = await runner.run(qa, { values: { question } });
 *   return result.values.answer;
 * }
 * ```
 */
export interface GraphRunner {
  /** Runs a graph to its end (completed, paused, stopped or failed); rejects with the typed error by default. */
  run<G extends Graph, K extends PropertyKey = never, W extends string | undefined = undefined>(
    graph: G,
    ...options: StartArgs<G, K, W>
  ): Promise<ResultOf<G>>;
  /** Starts a run and returns at once with its {@link RunHandle}. */
  start<G extends Graph, K extends PropertyKey = never, W extends string | undefined = undefined>(
    graph: G,
    ...options: StartArgs<G, K, W>
  ): RunHandle<ResultOf<G>>;
  /** Runs the graph once per item of the `mapOver` inputs (zip or product). */
  map<G extends Graph>(graph: G, options: GraphMapOptions): Promise<MapResultOf<G>>;
  /** Stops a workflow by id, from any process. Resolves to false when there was nothing to stop. */
  stop(workflowId: string, info?: unknown): Promise<boolean>;
  /** Ends the runner (and closes the checkpointer it owns). Later calls are rejected. */
  close(): Promise<void>;
}

/** Where a handle's events come from: any async iterable the run's producer closes (with the error on failure). */
export interface RunEventSource extends AsyncIterable<GraphEvent> {
  close(error?: unknown): void;
}

/** What {@link makeRunHandle} builds a handle from. */
export interface RunHandleParts<R extends { readonly runId: string }> {
  readonly workflowId: string;
  readonly events: RunEventSource;
  /** The run's outcome. The handle closes `events` when it settles. */
  readonly result: Promise<R>;
  /** Requests the stop (sync or async). */
  stop(info?: unknown): unknown;
}

/**
 * Builds a {@link RunHandle}: `runId` from the result once it is in, `events` closed when the run ends (with its
 * error when it failed), a result whose rejection is never an unhandled one (a caller may only read the events), and
 * a `stop` that always returns a Promise.
 *
 * @example
 * ```ts
 * const handle = makeRunHandle({ workflowId, events: queue, result: follow(workflowId), stop: (info) => requestStop(workflowId, info) });
 * ```
 */
export function makeRunHandle<R extends { readonly runId: string }>(parts: RunHandleParts<R>): RunHandle<R> {
  const { events } = parts;
  let runId = "";
  const result = parts.result.then(
    (r) => {
      runId = r.runId;
      events.close();
      return r;
    },
    (error: unknown) => {
      events.close(error);
      throw error;
    },
  );
  result.catch(() => {});
  return {
    workflowId: parts.workflowId,
    get runId() {
      return runId;
    },
    events,
    result,
    stop: async (info?: unknown) => {
      await parts.stop(info);
    },
  };
}
