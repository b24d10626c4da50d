import type { Checkpoint } from "@graph/checkpoint";
import type { Graph } from "@graph/core";
import * as Effect from "effect/Effect";
import type { BulkOptions, BulkReport, WorkflowFilter } from "./bulk.js";
import type { GraphEvent } from "./events.js";
import { type GraphRunner, makeRunHandle, type RunHandle } from "./GraphRunner.js";
import { deleteMany, resumeMany, stopMany } from "./internal/bulkOps.js";
import { RunControl, Subscriber } from "./internal/context.js";
import { RunnerCore } from "./internal/runner.js";
import { bindCore } from "./internal/runnerCores.js";
import { makeSchedules } from "./internal/scheduleHost.js";
import type { Schedules } from "./internal/schedules.js";
import { runPromise, unwrap } from "./internal/settle.js";
import type { MapOptions, RunnerOptions, RunOptions, SweepReport } from "./options.js";
import type { RunResult } from "./RunResult.js";
import type { ScheduleHandle, ScheduleOptions } from "./schedule.js";
import type { SendOptions, SendResult, WakeResult } from "./time.js";
import type { MapResultOf, ResultOf, RunArgs } from "./typing.js";

export type { MapOptions, RunnerOptions, RunOptions };

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
export class Runner implements GraphRunner {
  readonly #core: RunnerCore;
  #schedules: Schedules | undefined;

  constructor(options: RunnerOptions = {}) {
    this.#core = new RunnerCore(options);
    bindCore(this, this.#core);
  }

  /**
   * Runs a graph to completion (or pause / stop / failure). `values` are checked against the graph's inputs at
   * compile time; a resume (`workflowId`) or fork (`checkpoint`) may pass only some of them.
   */
  run<
    G extends Graph,
    K extends PropertyKey = never,
    W extends string | undefined = undefined,
    C extends Checkpoint | undefined = undefined,
  >(graph: G, ...options: RunArgs<G, K, W, C>): Promise<ResultOf<G>>;
  run(graph: Graph, options: object = {}): Promise<RunResult> {
    return this.#core.runPromise(graph, options as RunOptions);
  }

  /**
   * Starts a run and returns at once with a handle: its events, its result, and `stop()`. The run never waits for
   * `handle.events`: unread events beyond `eventBufferSize` (default 1000) are dropped, oldest first, and the reader
   * gets one `EventsDropped` event (with the count) in their place.
   */
  start<
    G extends Graph,
    K extends PropertyKey = never,
    W extends string | undefined = undefined,
    C extends Checkpoint | undefined = undefined,
  >(graph: G, ...options: RunArgs<G, K, W, C>): RunHandle<ResultOf<G>>;
  start(graph: Graph, rawOptions: object = {}): RunHandle {
    return this.#start(graph, rawOptions as RunOptions, "drop");
  }

  /** `start` drops the oldest unread events (a handle's events may never be read); `stream` waits for its reader. */
  #start(graph: Graph, options: RunOptions, mode: "block" | "drop"): RunHandle {
    const size = options?.eventBufferSize ?? this.#core.options.eventBufferSize ?? 1000;
    const subscriber = new Subscriber(Number.isInteger(size) && size >= 1 ? size : 1000, mode);
    const control = new RunControl();
    // A stop must end the run even when a `stream()` reader stopped reading.
    control.onStop(() => subscriber.release());
    const workflowId = options.workflowId ?? crypto.randomUUID();
    return makeRunHandle({
      workflowId,
      events: subscriber,
      result: runPromise(this.#core.run(graph, { ...options, workflowId }, subscriber, control)),
      stop: (info?: unknown) => control.stop(info),
    });
  }

  /** Runs a graph and yields its events as they happen (with backpressure); throws the run's error at the end. */
  stream<
    G extends Graph,
    K extends PropertyKey = never,
    W extends string | undefined = undefined,
    C extends Checkpoint | undefined = undefined,
  >(graph: G, ...options: RunArgs<G, K, W, C>): AsyncIterable<GraphEvent>;
  stream(graph: Graph, options: object = {}): AsyncIterable<GraphEvent> {
    return this.#start(graph, options as RunOptions, "block").events;
  }

  /** Runs the graph once per item of the `mapOver` inputs (zip or product), concurrently. */
  map<G extends Graph>(graph: G, options: MapOptions): Promise<MapResultOf<G>>;
  map(graph: Graph, options: MapOptions): Promise<MapResultOf<Graph>> {
    return runPromise(this.#core.map(graph, options));
  }

  /** Runs a graph synchronously. Only for graphs with no async nodes or interrupts, on a runner without a checkpointer. */
  runSync<
    G extends Graph,
    K extends PropertyKey = never,
    W extends string | undefined = undefined,
    C extends Checkpoint | undefined = undefined,
  >(graph: G, ...options: RunArgs<G, K, W, C, true>): ResultOf<G>;
  runSync(graph: Graph, options: object = {}): RunResult {
    this.#core.checkSync(graph);
    return unwrap(Effect.runSyncExit(this.#core.run(graph, options as Omit<RunOptions, "signal">)));
  }

  /**
   * Stops a workflow by id, from any process. A run of this runner stops at once; with a checkpointer the stop is
   * also recorded in storage, so a run of the same workflow in another process (any Runner on the same store) stops
   * at its next stop poll (`stopPollIntervalMs`, default 1 s), and a workflow nobody runs (paused, not started, its
   * process died) ends `stopped` without running anything. Running nodes see `ctx.signal` abort; `info` is the
   * abort reason. Resolves to false when there was nothing to stop (no such workflow, or it already ended).
   *
   * @example
   * ```ts
   * // in an HTTP handler of any instance of the service:
   * await runner.stop("order-42", { reason: "cancelled by the customer" });
   * ```
   */
  stop(workflowId: string, info?: unknown): Promise<boolean> {
    return runPromise(this.#core.stop(workflowId, info));
  }

  /**
   * Stops every stored workflow the filter matches that has not ended (see {@link Runner.stop}), page by page.
   * `dryRun` only counts. Ended workflows are reported as skipped.
   *
   * @example
   * ```ts
   * const preview = await runner.stopMany({ graph: "support-agent", idPrefix: "tenant-7/" }, { dryRun: true });
   * console.log(`would stop ${preview.matched}`);
   * await runner.stopMany({ graph: "support-agent", idPrefix: "tenant-7/" }, { info: { reason: "tenant offboarded" } });
   * ```
   */
  stopMany(filter: WorkflowFilter, options?: BulkOptions & { readonly info?: unknown }): Promise<BulkReport> {
    return stopMany(this, this.#core.options.checkpointer, filter, options);
  }

  /**
   * Deletes workflows past the checkpointer's `ttlMs` now, oldest first, in batches, under the store-wide sweeper
   * lease — what the housekeeping timer does (see `RunnerOptions.housekeeping`) — until a batch finds fewer than it
   * may delete or `housekeeping.intervalMs` has passed. Resolves to what it deleted, or `undefined` when another
   * process is sweeping or the store has no `ttlMs` policy.
   *
   * @example
   * ```ts
   * const runner = new Runner({ checkpointer: new SqliteCheckpointer({ path, policy: { ttlMs: 30 * 86_400_000 } }), housekeeping: false });
   * const report = await runner.sweepExpired(); // e.g. from a nightly job
   * console.log(report?.deleted);
   * ```
   */
  sweepExpired(): Promise<SweepReport | undefined> {
    return this.#core.sweepExpired();
  }

  /**
   * Runs `graph` again on every stored workflow the filter matches (its graph's name must be `graph.name`), one at a
   * time: a stopped or failed workflow, or one whose process died, continues from its last checkpoint; a paused one
   * stays paused unless `values` answer it. Completed workflows are skipped. `dryRun` only counts.
   *
   * @example
   * ```ts
   * // after fixing the bug that failed them:
   * const report = await runner.resumeMany(graph, { status: "failed", graph: graph.name });
   * console.log(`${report.done} resumed, ${report.failed.length} failed again`);
   * ```
   */
  resumeMany(
    graph: Graph,
    filter: WorkflowFilter,
    options?: BulkOptions & { readonly values?: Readonly<Record<string, unknown>> },
  ): Promise<BulkReport> {
    return resumeMany(this, this.#core.options.checkpointer, graph, filter, options);
  }

  /**
   * Deletes every stored workflow the filter matches, with its child workflows and steps. A workflow running under
   * a live lease is skipped (stop it first); `dryRun` only counts.
   *
   * @example
   * ```ts
   * const monthAgo = new Date(Date.now() - 30 * 24 * 3_600_000);
   * const report = await runner.deleteMany({ status: ["completed", "stopped"], updatedBefore: monthAgo });
   * console.log(`deleted ${report.done}`);
   * ```
   */
  deleteMany(filter: WorkflowFilter, options?: BulkOptions): Promise<BulkReport> {
    return deleteMany(this.#core.options.checkpointer, filter, options);
  }

  /**
   * Resumes one workflow whose due time has come (a sleep, a timed pause, a delayed start), exactly once across
   * every runner on the store: the in-process scheduler calls it for each due workflow, and a job queue's delayed
   * job can call it in any process (with `scheduler: false` there). Resolves to `{ woken: true, result, lateMs }`, or
   * `{ woken: false, reason }` with `"not-due"`, `"not-found"`, `"already-woken"`, `"busy"` or `"unknown-graph"`;
   * nothing is written unless it was woken here.
   *
   * @example
   * ```ts
   * const woken = await runner.wake("order-42");
   * if (!woken.woken) console.log(`not woken: ${woken.reason}`);
   * ```
   */
  wake(workflowId: string): Promise<WakeResult> {
    return this.#core.time.wake(workflowId);
  }

  /**
   * Delivers an event to every workflow paused in a `waitFor` for it whose `match` values equal the payload's
   * fields: each is resumed with the payload as the `waitFor`'s response. An event nobody waits for is dropped,
   * unless `{ buffer: "10m" }` keeps it (in the store) for the first workflow that reaches a matching `waitFor` within
   * that time. Resolves to the workflows it resumed (and how their runs ended), those it found but could not
   * resume, and `bufferedUntil` when it kept the event.
   *
   * @example
   * ```ts
   * const sent = await runner.send("ticket.replied", { ticketId: "T-1", text: "Fixed, thanks" });
   * console.log(sent.delivered.map((d) => d.workflowId));
   * ```
   */
  send(event: string, payload: Readonly<Record<string, unknown>>, options?: SendOptions): Promise<SendResult> {
    return this.#core.time.send(event, payload, options);
  }

  /**
   * Stops this runner's live runs and waits for them to end (status `stopped`, lease released), flushes pending
   * checkpoint writes, then closes the checkpointer (unless `closeCheckpointer: false`) and the event processors.
   * Dispatched map items it runs (`runMapItem` of `@graph/runtime/worker`) are stopped and waited for too. Later calls
   * are rejected.
   */
  close(): Promise<void> {
    this.#schedules?.close();
    return runPromise(this.#core.close());
  }

  /**
   * Runs `graph` on a cron schedule, in this process, until `close()`: each occurrence is the workflow
   * `<id>/<ISO time>`, created if absent before it runs, so with several runners on one store each occurrence runs
   * once. Options are checked now (`InvalidOptionError`). Overlap, catch-up and events: `docs/schedules.md`.
   *
   * @example
   * ```ts
   * const nightly = runner.schedule(graph, { id: "nightly", cron: "0 3 * * *", timezone: "Europe/Paris", values: {} });
   * nightly.pause();
   * ```
   */
  schedule(graph: Graph, options: ScheduleOptions): ScheduleHandle {
    this.#schedules ??= makeSchedules(this.#core, (g, workflowId, values) =>
      this.#core.runPromise(g, { workflowId, values, errorHandling: "continue" }),
    );
    return this.#schedules.add(graph, options);
  }

  /** This runner's schedules (deleted ones are gone). */
  schedules(): readonly ScheduleHandle[] {
    return this.#schedules?.list() ?? [];
  }
}
