import type { EventWait } from "@graph/checkpoint";
import type { CheckpointStoreService } from "@graph/checkpoint/effect";
import * as Deferred from "effect/Deferred";
import * as Effect from "effect/Effect";
import type { Clock } from "../Clock.js";
import type { NodeCache } from "../cache.js";
import type { EventProcessor, GraphEvent, NodeCall } from "../events.js";
import type { MapDispatcher } from "../options.js";
import type { LeaseTiming } from "./lease.js";
import type { NodePermits } from "./nodePermits.js";
import type { StorePermits } from "./storePermits.js";

/** What every run of one runner shares: the concurrency limit, the cache, the store, span ids, processors. */
export interface Shared {
  /** Permits for leaf node executions, shared across nesting and map items. */
  readonly semaphore: Effect.Semaphore | undefined;
  readonly maxConcurrency: number | undefined;
  /** Per-node limits (`node({ concurrency, rateLimit })`), shared by every run of the runner. */
  readonly nodePermits: NodePermits;
  /** The same limits across every runner on the store: present when the runner has a checkpointer. */
  readonly storePermits: StorePermits | undefined;
  readonly cache: NodeCache | undefined;
  readonly store: CheckpointStoreService | undefined;
  readonly processors: readonly EventProcessor[];
  readonly owner: string;
  readonly lease: LeaseTiming;
  /** Undefined: maps run here (no dispatcher, or the run is itself a dispatched item). */
  readonly mapDispatcher: MapDispatcher | undefined;
  /** The runner's clock: due times of sleeps and timed pauses are read from it. */
  readonly clock: Clock;
  /** Told the due time a run stored (epoch ms), so the runner's scheduler can re-arm for it. */
  readonly onDue: (dueAt: number) => void;
  /** A root run stored a `waitFor` pause: an event kept for it (`send(…, { buffer })`) may resume it at once. */
  readonly onWaiting: (workflowId: string, wait: EventWait) => void;
  nextSpan: number;
}

/** Where a run's events go: the runner's processors plus, for `stream()`/`start()`, one subscriber. */
export interface Emitter {
  readonly active: boolean;
  emit(event: GraphEvent): void;
  /** Resolves when a slow subscriber has room again; undefined when there is room now. */
  pressure(): Promise<void> | undefined;
  /** The processors' `aroundNode` wrappers composed; undefined when none has one (the common case). */
  readonly aroundNode: (<T>(node: NodeCall, call: () => T) => T) | undefined;
}

/** The emitter of runs nobody listens to (no processors, no subscriber): shared, nothing per run. */
const SILENT: Emitter = { active: false, emit() {}, pressure: () => undefined, aroundNode: undefined };

export function makeEmitter(processors: readonly EventProcessor[], subscriber: Subscriber | undefined): Emitter {
  if (processors.length === 0 && subscriber === undefined) return SILENT;
  const active = processors.length > 0 || subscriber !== undefined;
  return {
    active,
    emit(event) {
      for (const p of processors) {
        // A failing processor never fails a run: swallow sync throws and async rejections.
        try {
          const r = p.onEvent(event) as unknown;
          if (r !== undefined && typeof (r as Promise<void>).then === "function") (r as Promise<void>).catch(() => {});
        } catch {
          /* ignored on purpose */
        }
      }
      subscriber?.push(event);
    },
    pressure: () => subscriber?.pressure(),
    aroundNode: composeAroundNode(processors),
  };
}

function composeAroundNode(processors: readonly EventProcessor[]): Emitter["aroundNode"] {
  const wrappers = processors.filter((p) => typeof p.aroundNode === "function");
  if (wrappers.length === 0) return undefined;
  return <T>(node: NodeCall, call: () => T): T =>
    wrappers.reduceRight<() => T>((next, p) => () => p.aroundNode!(node, next), call)();
}

/** Warned once per process: a handle whose events nobody reads is common, a warning per run would be noise. */
let droppedWarned = false;

/**
 * A bounded event buffer read as an AsyncIterable, in one of two modes.
 * - `"block"` (`stream()`): the runtime checks `pressure()` between supersteps and before every streamed chunk, so a
 *   slow reader slows the run instead of growing memory without bound. The caller is reading by construction.
 * - `"drop"` (`start().events`): nobody may ever read, so the run must never wait on the buffer. When it is full
 *   the oldest event is dropped; the reader gets one `EventsDropped` marker (with the count) in their place.
 */
export class Subscriber implements AsyncIterable<GraphEvent> {
  readonly #limit: number;
  readonly #mode: "block" | "drop";
  readonly #buffer: GraphEvent[] = [];
  #head = 0;
  #closed = false;
  #failure: unknown;
  /** Events dropped since the reader last saw a marker, and the newest of them (its ids label the marker). */
  #dropped = 0;
  #lastDropped: GraphEvent | undefined;
  /** Set by a stop: the run must be able to end even if the reader never reads again. */
  #released = false;
  #wakeReader: (() => void) | undefined;
  #wakeWriter: (() => void) | undefined;
  #writerWaiting: Promise<void> | undefined;

  constructor(limit: number, mode: "block" | "drop" = "block") {
    this.#limit = limit;
    this.#mode = mode;
  }

  push(event: GraphEvent): void {
    if (this.#closed) return;
    this.#buffer.push(event);
    if (this.#mode === "drop" && this.#buffer.length - this.#head > this.#limit) {
      this.#lastDropped = this.#buffer[this.#head];
      this.#buffer[this.#head++] = undefined as unknown as GraphEvent;
      this.#dropped++;
      this.#compact();
      if (!droppedWarned) {
        droppedWarned = true;
        process.emitWarning(
          `@graph/runtime: a run's handle.events buffer is full (${this.#limit} events) and nobody reads it; the oldest events are dropped and an EventsDropped event marks the gap. Read handle.events while the run goes, raise eventBufferSize, or use an event processor.`,
          { code: "GRAPH_EVENTS_DROPPED" },
        );
      }
    }
    this.#wakeReader?.();
  }

  pressure(): Promise<void> | undefined {
    if (this.#mode === "drop" || this.#released || this.#closed || this.#buffer.length - this.#head < this.#limit)
      return undefined;
    this.#writerWaiting ??= new Promise<void>((resolve) => {
      this.#wakeWriter = () => {
        this.#writerWaiting = undefined;
        this.#wakeWriter = undefined;
        resolve();
      };
    });
    return this.#writerWaiting;
  }

  /** A stop was asked for: never make the run wait on this buffer again (events keep being buffered). */
  release(): void {
    this.#released = true;
    this.#wakeWriter?.();
  }

  close(failure?: unknown): void {
    this.#closed = true;
    this.#failure = failure;
    this.#wakeReader?.();
    this.#wakeWriter?.();
  }

  /** Stop buffering (the reader went away); the run continues without backpressure. */
  detach(): void {
    this.#closed = true;
    this.#buffer.length = 0;
    this.#head = 0;
    this.#dropped = 0;
    this.#wakeWriter?.();
  }

  #compact(): void {
    if (this.#head > 1024 && this.#head * 2 > this.#buffer.length) {
      this.#buffer.splice(0, this.#head);
      this.#head = 0;
    }
  }

  async *[Symbol.asyncIterator](): AsyncIterator<GraphEvent> {
    try {
      while (true) {
        if (this.#dropped > 0) {
          const last = this.#lastDropped!;
          const count = this.#dropped;
          this.#dropped = 0;
          this.#lastDropped = undefined;
          yield {
            type: "EventsDropped",
            count,
            runId: last.runId,
            workflowId: last.workflowId,
            spanId: "events-dropped",
            parentSpanId: undefined,
            timestamp: last.timestamp,
          };
          continue;
        }
        if (this.#head < this.#buffer.length) {
          const event = this.#buffer[this.#head++]!;
          this.#compact();
          if (this.#wakeWriter !== undefined && this.#buffer.length - this.#head < this.#limit) this.#wakeWriter();
          yield event;
          continue;
        }
        if (this.#closed) {
          if (this.#failure !== undefined) throw this.#failure;
          return;
        }
        await new Promise<void>((resolve) => (this.#wakeReader = resolve));
        this.#wakeReader = undefined;
      }
    } finally {
      if (!this.#closed) this.detach();
    }
  }
}

/** The superstep a stop cuts off (an object, not a closure: nothing allocated per superstep to register it). */
interface Waiter {
  cut(): void;
}

/** Stop state of one run boundary. A child boundary follows its parent's stop. */
export class RunControl {
  stopRequested = false;
  stopInfo: unknown;
  #stopped: Deferred.Deferred<void> | undefined;
  // Created on first use: a map item's run usually needs none of them.
  #controllers: Set<AbortController> | undefined;
  #children: Set<RunControl> | undefined;
  #onStop: Array<(info: unknown) => void> | undefined;
  #waiter: Waiter | undefined;

  /** Completes when a stop is requested. Created on first use: most runs never race against a stop. */
  get stopped(): Deferred.Deferred<void> {
    if (this.#stopped === undefined) {
      this.#stopped = Effect.runSync(Deferred.make<void>());
      if (this.stopRequested) Effect.runSync(Deferred.succeed(this.#stopped, undefined));
    }
    return this.#stopped;
  }

  /** Requests a stop: aborts every in-flight node's signal and wakes the runs waiting on it. */
  stop(info: unknown): void {
    if (this.stopRequested) return;
    this.stopRequested = true;
    this.stopInfo = info;
    if (this.#controllers !== undefined) for (const c of this.#controllers) c.abort(info ?? new Error("Run stopped"));
    if (this.#children !== undefined) for (const child of this.#children) child.stop(info);
    const onStop = this.#onStop;
    this.#onStop = undefined;
    if (onStop !== undefined) for (const f of onStop) f(info);
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.cut();
    if (this.#stopped !== undefined) Effect.runSync(Deferred.succeed(this.#stopped, undefined));
  }

  onStop(f: (info: unknown) => void): void {
    if (this.stopRequested) f(this.stopInfo);
    else (this.#onStop ??= []).push(f);
  }

  /**
   * The one superstep of this run awaiting plain nodes registers here to be cut off by a stop (a run has at most
   * one superstep in flight, so one slot is enough and nothing accumulates).
   */
  setWaiter(waiter: Waiter | undefined): void {
    // A stop requested while the superstep's nodes were starting cuts them off at once.
    if (waiter !== undefined && this.stopRequested) waiter.cut();
    else this.#waiter = waiter;
  }

  child(): RunControl {
    const c = new RunControl();
    if (this.stopRequested) c.stop(this.stopInfo);
    else (this.#children ??= new Set()).add(c);
    return c;
  }

  release(child: RunControl): void {
    this.#children?.delete(child);
  }

  track(controller: AbortController): void {
    if (this.stopRequested) controller.abort(this.stopInfo ?? new Error("Run stopped"));
    (this.#controllers ??= new Set()).add(controller);
  }

  untrack(controller: AbortController): void {
    this.#controllers?.delete(controller);
  }
}

export function nextSpanId(shared: Shared): string {
  return `s${(shared.nextSpan++).toString(36)}`;
}
