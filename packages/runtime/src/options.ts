/**
 * Options of the runner, of one run and of `runner.map`, and the handle `runner.start` returns. Plain types with no
 * Effect in them: the Promise API's declarations import only these.
 *
 * @module
 */
import type { Checkpoint, Checkpointer } from "@graph/checkpoint";
import type { Budget, Duration, Graph } from "@graph/core";
import type { Clock } from "./Clock.js";
import type { NodeCache } from "./cache.js";
import type { EventProcessor, GraphEvent } from "./events.js";
import type { CacheOptions } from "./storeCache.js";

/** Options of the runner. */
export interface RunnerOptions {
  /** Where runs are saved. The runner owns it: `close()` closes it, unless `closeCheckpointer` is false. */
  readonly checkpointer?: Checkpointer;
  /**
   * `false`: `close()` leaves the checkpointer open, for an application that shares it (with another runner, a
   * `RemoteRunner`, its own reads) and closes it itself. Default true.
   */
  readonly closeCheckpointer?: boolean;
  /**
   * Node results of cached nodes (`node({ cache: true })`): a {@link NodeCache}, or `{ store, ttl, maxEntries }`
   * — `store: "checkpointer"` keeps them in the checkpointer's store, shared by every process on it (docs/cache.md).
   */
  readonly cache?: NodeCache | CacheOptions;
  readonly maxConcurrency?: number;
  readonly eventProcessors?: readonly EventProcessor[];
  /**
   * Lease length (ms) for workflows this runner runs. While a run holds the lease no other process runs the
   * workflow; if this process freezes (or a node blocks the event loop) longer than this, another process may take
   * the workflow over and this run fails with `LeaseLostError`. Default 30 s.
   */
  readonly leaseTtlMs?: number;
  /** How often (ms) a running workflow's lease is renewed; at most half of `leaseTtlMs`. Default `leaseTtlMs / 3`. */
  readonly leaseRenewIntervalMs?: number;
  /**
   * How often (ms) a running workflow checks for a stop asked for from another process (`runner.stop` there):
   * the stop latency across processes. Each check is one small read. Default min(1 s, `leaseRenewIntervalMs`).
   */
  readonly stopPollIntervalMs?: number;
  /** Lease owner id. Default `host:pid:random`. */
  readonly owner?: string;
  /**
   * Events buffered for a slow reader. `stream()` waits for the reader when its buffer is full; `start().events`
   * never holds the run back: it drops the oldest events (an `EventsDropped` marker in their place). Default 1000.
   */
  readonly eventBufferSize?: number;
  /**
   * Hands the items of big mapped GraphNodes to other processes (a job queue's workers) instead of running them
   * here. Needs a checkpointer: the items run as child workflows on it and the run reads their results back. A
   * run that parks ends `"paused"` with `pause.reason === "map_dispatched"`; running the workflow again (no values)
   * once the items are done continues it. Default: every map runs in this process.
   */
  readonly mapDispatcher?: MapDispatcher;
  /**
   * Where the runner reads the time and arms its timers: due times of sleeps, timed pauses, delayed starts and schedules.
   * Default `systemClock`; tests pass `testClock()` to run a "4h" wait in milliseconds.
   */
  readonly clock?: Clock;
  /**
   * Graphs whose workflows this runner may resume on its own: when a sleep or a timeout comes due, for
   * `runner.send`, and to catch up on what came due while no runner was up. Graphs run with this runner are added
   * as they are used. Giving them here starts the scheduler at once (a restarted process catches up on start).
   */
  readonly graphs?: readonly Graph[];
  /**
   * `false`: no in-process timer; due workflows are resumed only by `runner.wake(workflowId)` (a job queue's
   * delayed jobs call it). Default true with a checkpointer: one timer, armed for the earliest due time in the store.
   */
  readonly scheduler?: boolean;
  /**
   * How often the scheduler re-reads the earliest due time in the store (`nextDue`), so due times that OTHER
   * processes stored wake this runner even while it is idle (its own runs arm the timer at once). Default 1000 ms;
   * 5000 ms when the checkpointer pushes due times itself (`watchDue`: PostgreSQL, Redis, memory), where the re-read
   * only covers a lost notification. A due time another process stored is resumed at most about this long late.
   */
  readonly duePollIntervalMs?: number;
  /**
   * Called before every top-level run, once the checkpointer is set up: `@graph/upgrade`'s `upgrades()` records the
   * graph's structure with new workflows and, when a stored workflow was made by another graph version, checks
   * it and applies its migrations (or refuses the run with the reasons). Needs a checkpointer.
   */
  readonly upgrade?: RunUpgrade;
  /**
   * Tells the runners of other processes on the same store that a store-wide permit (a node's `concurrency` /
   * `rateLimit` slot) was given back, so a call waiting for one takes it at once instead of at its next poll (up to
   * 100 ms later). Waiters in this runner are woken directly without it; a lost notification only costs that poll.
   * `@graph/queue-bullmq`'s `RedisPermitSignal` is one on Redis pub/sub (its `GraphWorker` wires one itself). Needs
   * a checkpointer.
   */
  readonly permitSignal?: PermitSignal;
  /**
   * Retention housekeeping, when the checkpointer has a `ttlMs` policy: a timer (every `intervalMs`, default 60 s)
   * deletes expired workflows in batches of `batchSize` (default 200) root workflows, under a store-wide lease so
   * one process sweeps at a time; runs never do it. `false`: no timer (call `runner.sweepExpired()` yourself, e.g.
   * from a cron job).
   */
  readonly housekeeping?: false | HousekeepingOptions;
}

/**
 * What one retention sweep did (`runner.sweepExpired()`): root workflows deleted, and `sweepExpired` batches run.
 *
 * @example
 * ```ts
 * const report: SweepReport | undefined = await runner.sweepExpired();
 * ```
 */
export interface SweepReport {
  readonly deleted: number;
  readonly batches: number;
}

/**
 * The retention sweeper's timer (see {@link RunnerOptions.housekeeping}).
 *
 * @example
 * ```ts
 * const runner = new Runner({ checkpointer, housekeeping: { intervalMs: 5 * 60_000, batchSize: 500 } });
 * ```
 */
export interface HousekeepingOptions {
  /** Between two sweeps, in ms (≥ 100). Default 60,000. */
  readonly intervalMs?: number;
  /** Root workflows deleted per batch (1 to 10,000). Default 200. */
  readonly batchSize?: number;
}

/**
 * A broadcast between the processes sharing a store's permits (docs/flow-control.md): `notify(key)` when a permit of
 * `key` is given back, `subscribe(key, onReleased)` while a call waits for one. `key` is an opaque id of one limit
 * (a hash: no tenant id travels), the same in every process. Delivery may be lost or late: waiters keep polling.
 *
 * @example
 * ```ts
 * import { EventEmitter } from "node:events";
 * import type { PermitSignal } from "@graph/runtime";
 *
 * // Runners of one process that each have their own checkpointer instance on the same store:
 * const bus = new EventEmitter();
 * const local: PermitSignal = {
 *   notify: (key) => void bus.emit(key),
 *   subscribe: (key, onReleased) => {
 *     bus.on(key, onReleased);
 *     return () => void bus.off(key, onReleased);
 *   },
 * };
 * ```
 */
export interface PermitSignal {
  /** A permit of `key` was given back (or a rate permit's time is over). Errors are ignored. */
  notify(key: string): void | Promise<void>;
  /**
   * Calls `onReleased` on every notification of `key` from any process — this one's included, as Redis pub/sub
   * delivers them (a runner skips its own) — until the returned function is called.
   */
  subscribe(key: string, onReleased: () => void): () => void;
}

/**
 * The hook {@link RunnerOptions.upgrade} takes. `prepare` may write to the checkpointer (under its own claim of the
 * workflow, released before it returns); a rejection fails the run with that error before anything runs.
 */
export interface RunUpgrade {
  prepare(context: {
    readonly graph: Graph;
    /** The run's workflow id (a new workflow when none was given). */
    readonly workflowId: string;
    readonly checkpointer: Checkpointer;
    /** The run's `force` option: the caller takes a graph version change on themselves. */
    readonly force: boolean;
  }): Promise<void>;
}

/**
 * Runs the items of a mapped GraphNode elsewhere. `dispatch` is called when a run reaches a mapped GraphNode with at
 * least `minItems` items, again each time the parked run is resumed, and answers:
 * - `"parked"`: the items were handed over (or are still running): the run ends `"paused"` with
 *   `pause.reason === "map_dispatched"`, giving up its lease; run the workflow again (same id, no values) once every
 *   item is done;
 * - `"done"`: every item has run (or will not run: a stop): the run reads each item's stored result in item order
 *   and goes on as if the items had run here. An item with no finished workflow counts as stopped;
 * - `"inline"`: run the items in this process as if there were no dispatcher.
 * A dispatcher must be idempotent for one map (same `parentWorkflowId` and `nodeName` until it answered "done"): it
 * is asked again at every resume and after a crash of the process that was dispatching.
 */
export interface MapDispatcher {
  /** Maps with fewer items run in this process. */
  readonly minItems: number;
  dispatch(request: MapDispatchRequest): Promise<"done" | "parked" | "inline">;
  /**
   * Optional: runs a frames pipeline's frames elsewhere (`node({ frames })`, docs/pipelines.md). Called once per
   * execution of the pipeline node in a run with a checkpointer; `undefined` runs the frames in this process. The
   * generator stays here: the runtime pulls it, keeps at most `window` frames unfinished, and hands each frame to
   * the returned {@link FramesDispatch}.
   */
  frames?(request: FramesDispatchRequest): FramesDispatch | undefined;
}

/**
 * One execution of a frames pipeline, for {@link MapDispatcher.frames}. Frame `i` runs as the child workflow
 * `frameWorkflowId(i)` = `<parentWorkflowId>/<nodeName>/<i>` (the in-process ids, so a resume skips the frames
 * stored finished wherever they ran) with `graph` and the values handed to `run`, through `runMapItem` of
 * `@graph/runtime/worker` with these fields.
 */
export interface FramesDispatchRequest {
  readonly rootWorkflowId: string;
  /** The workflow whose node this is (the root, or a nested child workflow). */
  readonly parentWorkflowId: string;
  readonly nodeName: string;
  /** The graph every frame runs (the pipeline's per-frame nodes). */
  readonly graph: Graph;
  /** At most this many frames are unfinished at once (the runtime holds back the rest). */
  readonly window: number;
  readonly parentVersions: Readonly<Record<string, number>>;
  readonly fence: MapFence;
  readonly completeOnStop: boolean;
  readonly maxIterations: number;
  /**
   * Someone reads the run's events: collect each frame's events (`onEvent` of `runMapItem`) and resolve `run` with
   * them; the runtime shows them in the run's stream as in-process frames' events (its run id, its span tree).
   */
  readonly events: boolean;
  frameWorkflowId(i: number): string;
}

/** What a {@link MapDispatcher.frames} hands back: where the frames of one pipeline execution go. */
export interface FramesDispatch {
  /**
   * Runs frame `i` with `values` elsewhere; resolves once its child workflow finished, or once it will not run (a
   * cancel, a stop, a lost lease), with the frame's events when the request asked for them. The runtime then reads
   * the frame's result from the checkpointer. Rejecting fails the pipeline.
   */
  run(i: number, values: Readonly<Record<string, unknown>>): Promise<readonly GraphEvent[] | undefined>;
  /** No further frame comes for now (the window is full, or the stream ended): hand over what is buffered. */
  flush(): void;
  /** The run stopped: frames not started should not start (their `run` resolves); running ones finish. */
  cancel(): void;
  /** The pipeline is over (or abandoned): release resources; every pending `run` resolves. */
  close(): Promise<void>;
}

/** The fence child workflows of a run tree write under: the root workflow's lease epoch. */
export interface MapFence {
  readonly epoch: number;
  /** The root workflow (its lease guards the writes). */
  readonly workflowId: string;
}

/**
 * One mapped GraphNode's items, for a {@link MapDispatcher}. Item `i` runs as the child workflow
 * `itemWorkflowIds(i)` = `<parentWorkflowId>/<nodeName>/<i>` (the ids the in-process path uses, so a map started
 * here and finished elsewhere resumes per item) with `items[i]` as its values, through `runMapItem` of
 * `@graph/runtime/worker`.
 */
export interface MapDispatchRequest {
  readonly rootWorkflowId: string;
  /** The workflow whose node this is (the root, or a nested child workflow). */
  readonly parentWorkflowId: string;
  readonly nodeName: string;
  /**
   * The parent's superstep running the node. A resume runs the node again one superstep later, so a dispatcher
   * names a map by `parentWorkflowId` and `nodeName` and forgets it once it answered "done".
   */
  readonly superstep: number;
  /** The graph every item runs. */
  readonly graph: Graph;
  readonly count: number;
  /**
   * The node's `mapOver` concurrency: at most this many items may run at once across every process. A dispatcher
   * that cannot bound it must answer "inline" (the items then run here under the limit).
   */
  readonly concurrency?: number;
  /** The values of every item: the node's inputs after renames and bindings, each item's mapped values set. */
  readonly items: readonly Readonly<Record<string, unknown>>[];
  /** The parent's versions of the values passed in (a restarted item takes only what changed). */
  readonly parentVersions: Readonly<Record<string, number>>;
  /** Every item's writes carry it: a run tree that lost its root's lease writes nothing more. */
  readonly fence: MapFence;
  /** The node's `completeOnStop`: a stopped item still yields its partial outputs. */
  readonly completeOnStop: boolean;
  readonly maxIterations: number;
  /** Aborted when the parent run is stopped. */
  readonly signal: AbortSignal;
  itemWorkflowId(i: number): string;
}

/**
 * Options of `runMapItem` (`@graph/runtime/worker`): one item of a dispatched map, run as the in-process path runs
 * it (a child workflow under the root's fence, no lease of its own). Copy them from the {@link MapDispatchRequest}.
 */
export interface MapItemRunOptions {
  readonly workflowId: string;
  readonly parentWorkflowId: string;
  readonly values: Readonly<Record<string, unknown>>;
  readonly parentVersions: Readonly<Record<string, number>>;
  readonly fence: MapFence;
  readonly completeOnStop: boolean;
  readonly maxIterations: number;
  /** Aborting it stops the item. */
  readonly signal?: AbortSignal;
  /** Called with every event of the item's run (a dispatcher collects them for the dispatching run's stream). */
  readonly onEvent?: (event: GraphEvent) => void;
}

/** Options of one run. */
export interface RunOptions {
  readonly values?: Readonly<Record<string, unknown>>;
  readonly workflowId?: string;
  /** Fork: start a new workflow id from this checkpoint. */
  readonly checkpoint?: Checkpoint;
  /** `@graph/select` patterns that filter `result.values`. */
  readonly select?: string | readonly string[];
  /** How many times one node may run in one run (a loop's iterations) before `InfiniteLoopError`. Default 1000. */
  readonly maxIterations?: number;
  /** "raise" (default) rejects with `NodeExecutionError`; "continue" resolves with `status: "failed"`. */
  readonly errorHandling?: "raise" | "continue";
  /** Aborting it stops the run (like `handle.stop()`). */
  readonly signal?: AbortSignal;
  /** Run even if the stored workflow was created by another graph version. */
  readonly force?: boolean;
  /**
   * Keep a record of why each node ran or was skipped, for `explain(result)`. Off by default: a run without it
   * records nothing. With a checkpointer the record also reads the workflow's stored steps once, when the run ends.
   */
  readonly explain?: boolean;
  /**
   * Values the graph does not know (no node reads or produces them, usually a typo): `"error"` (default) rejects
   * the run with `UnknownValueError` and a "did you mean"; `"ignore"` drops them with a `Warning` event.
   */
  readonly unknownValues?: "error" | "ignore";
  /**
   * Recovery of a run whose process died (a queue worker redelivering it): a stop request stored for the workflow
   * is honoured — the run ends `stopped` before any node starts — instead of being cleared as an explicit resume
   * clears it. Default false.
   */
  readonly recover?: boolean;
  /**
   * Resuming a `workflowId` whose lease another holder still has (typically a crashed process whose lease has not
   * expired yet): wait for it — polling with backoff — instead of failing at once with `WorkflowConflictError`.
   * `true` waits up to the lease TTL (`leaseTtlMs`), a number up to that many ms; when the time is up the run fails
   * with the same `WorkflowConflictError`. Default: don't wait.
   */
  readonly waitForLease?: boolean | number;
  /** `start()` / `stream()`: this run's event buffer size, overriding the runner's `eventBufferSize`. */
  readonly eventBufferSize?: number;
  /**
   * A delayed start: the workflow is stored now (its inputs included, status `paused`, no node run) and started
   * at this time (a `Date`, an ISO 8601 string or epoch ms) by a runner's scheduler. The run resolves at once with
   * `status: "paused"` and no `pause`. Needs a checkpointer; not with `delay`.
   */
  readonly startAt?: Date | string | number;
  /** A delayed start, this long from now (see {@link RunOptions.startAt}). */
  readonly delay?: Duration;
  /**
   * Limits on what the run spends (`ctx.usage` reports: tokens, cost, calls) and on its wall time while running.
   * Crossing one pauses the run with `pause.reason: "budget"` after the step that crossed it; resume with the
   * amounts to add (`values: { [BUDGET_KEY]: { tokens: 1_000 } }`). Nested runs and map items count toward it. The
   * budget is stored with the run (a resume elsewhere keeps it) and stays in force for the workflow's next turns;
   * passing it again replaces it. Totals count from the start of the current turn. See `docs/flow-control.md`.
   */
  readonly budget?: Budget;
  /**
   * The pause these values answer: `result.pause` of the run that paused (only its `nodeName` and `visit` are read).
   * The answer is then taken only while that pause is still pending — compared in the same store write that claims
   * the workflow — and refused with `UnexpectedAnswerError` (nothing written) once another answer, an event, a
   * timeout or a stop settled it, or the workflow completed: an answer that names its pause never starts a new turn.
   * Needs a checkpointer and a `workflowId`.
   */
  readonly answering?: PauseRef | undefined;
}

/**
 * Which pause an answer is for: the interrupt's path and the visit (the workflow's `lastSuperstep` when it paused
 * there), as `result.pause`, the `data-node-suspense` stream part and the devtools report them.
 *
 * @example
 * ```ts
 * const paused = await runner.run(graph, { workflowId: "w", values: { draft } });
 * await runner.run(graph, { workflowId: "w", values: { approval: "yes" }, answering: paused.pause });
 * ```
 */
export interface PauseRef {
  readonly nodeName: string;
  /** Set on the pauses of runs with a checkpointer; a pause without one can't be named. */
  readonly visit?: number;
}

/** Options of `runner.map`. */
export interface MapOptions extends Omit<RunOptions, "checkpoint" | "answering"> {
  readonly mapOver: string | readonly string[];
  readonly mapMode?: "zip" | "product";
  readonly maxConcurrency?: number;
}
