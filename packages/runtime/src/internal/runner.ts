import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { WorkflowConflictError } from "@graph/checkpoint";
import { type CheckpointStoreService, makeCheckpointStore } from "@graph/checkpoint/effect";
import { type Graph, GraphConfigError, isGraph } from "@graph/core";
import * as Deferred from "effect/Deferred";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as FiberId from "effect/FiberId";
import * as Scope from "effect/Scope";
import { systemClock } from "../Clock.js";
import type { NodeCache } from "../cache.js";
import { IncompatibleRunnerError, type InvalidOptionError } from "../errors.js";
import { keepExplanation } from "../explain.js";
import type { MapItemRunOptions, MapOptions, RunnerOptions, RunOptions, SweepReport } from "../options.js";
import type { MapResult, RunResult, RunStatus } from "../RunResult.js";
import { resolveRunnerCache } from "../storeCache.js";
import { refuseAnsweringWithoutStore } from "./answering.js";
import { checkChildIdRoom } from "./childIds.js";
import { RunControl, type Shared, type Subscriber } from "./context.js";
import { Engine } from "./engine.js";
import { ExplainRecorder } from "./explainRecord.js";
import { withRecorder } from "./explainShared.js";
import { Housekeeper } from "./housekeeping.js";
import { whileHeld } from "./lease.js";
import { runMapItem } from "./mapItem.js";
import { mapItems } from "./mapItems.js";
import { NodePermits } from "./nodePermits.js";
import { checkMapOptions, checkRunnerOptions, checkRunOptions, leaseTiming } from "./options.js";
import type { RunError } from "./outcome.js";
import { RunConfig } from "./runConfig.js";
import { finalize, linkSignal, runPromise, settle } from "./settle.js";
import { StorePermits } from "./storePermits.js";
import { TimeKeeper } from "./timeKeeper.js";
import { checkTimeOptions, delayedStart, refuseDelayedMap } from "./timeOptions.js";

// The option types live in a public module free of Effect types, so the Promise API's declarations don't load Effect.
export type { MapOptions, RunnerOptions, RunOptions };

/**
 * The core of both APIs: owns the store's scope, the shared limits and the table of live runs.
 * Every operation is an Effect; the Promise facade runs them.
 */
export class RunnerCore {
  readonly options: RunnerOptions;
  readonly #scope: Scope.CloseableScope;
  #store: Effect.Effect<CheckpointStoreService | undefined, RunError> | undefined;
  readonly #live = new Map<string, RunControl>();
  /** Dispatched map items running here (`runMapItem`): `close()` stops them too. */
  readonly #items = new Set<RunControl>();
  /** Runs not yet ended (status written, lease released): `close()` waits for them. */
  #running = 0;
  /** Made by `close()` when runs are still live; completed when the last of them ends. */
  #idle: Deferred.Deferred<void> | undefined;
  readonly #semaphore: Effect.Semaphore | undefined;
  readonly #nodePermits = new NodePermits();
  readonly #storePermits: StorePermits | undefined;
  readonly #owner: string;
  #spans = { value: 1 };
  #sharedFor: Shared | undefined;
  /** The store once built (or undefined without a checkpointer): runs after the first skip the lookup. */
  #storeReady: { readonly store: CheckpointStoreService | undefined } | undefined;
  #closed = false;
  /** Due times and events: the graphs this runner may resume, its scheduler's timer, `wake` and `send`. */
  readonly time: TimeKeeper;
  /** The recorders of runs started with `{ explain: true }`, by their control (the run's identity here). */
  readonly #recorders = new WeakMap<RunControl, ExplainRecorder>();
  /** The retention sweeper (a store with a `ttlMs` policy, unless `housekeeping: false`). */
  readonly #housekeeper: Housekeeper | undefined;
  /** The node cache: the `cache` option as given, or built from its `{ store, ttl, maxEntries }`. */
  readonly #cache: NodeCache | undefined;

  constructor(options: RunnerOptions = {}) {
    checkRunnerOptions(options);
    checkTimeOptions(options);
    this.options = options;
    this.#scope = Effect.runSync(Scope.make());
    const max = options.maxConcurrency;
    if (max !== undefined && !(Number.isInteger(max) && max >= 1)) {
      throw new GraphConfigError(`Runner maxConcurrency must be an integer ≥ 1, got ${String(max)}.`);
    }
    this.#semaphore = max === undefined ? undefined : Effect.runSync(Effect.makeSemaphore(max));
    this.#owner = options.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    if (options.checkpointer !== undefined) {
      const timing = leaseTiming(options);
      this.#storePermits = new StorePermits(
        options.checkpointer,
        this.#owner,
        timing.ttlMs,
        timing.renewEveryMs,
        options.permitSignal,
      );
    }
    this.time = new TimeKeeper(
      options.checkpointer,
      options.clock ?? systemClock,
      {
        enabled: options.scheduler !== false,
        retryMs: 1_000,
        busyWaitMs: leaseTiming(options).ttlMs,
        pollMs: options.duePollIntervalMs,
      },
      {
        ready: () => runPromise(Effect.asVoid(this.store())),
        run: (graph, runOptions, time) => runPromise(this.run(graph, runOptions, undefined, new RunControl(), time)),
      },
    );
    this.#cache = resolveRunnerCache(options.cache, options.checkpointer, options.clock ?? systemClock);
    this.#housekeeper = undefined;
    const checkpointer = options.checkpointer;
    if (options.housekeeping !== false && Housekeeper.applies(checkpointer)) {
      const settings = options.housekeeping ?? {};
      this.#housekeeper = new Housekeeper(
        checkpointer,
        this.#owner,
        {
          intervalMs: settings.intervalMs ?? 60_000,
          batchSize: settings.batchSize ?? 200,
          leaseTtlMs: leaseTiming(options).ttlMs,
        },
        () => runPromise(Effect.asVoid(this.store())),
      );
      this.#housekeeper.start();
    }
    for (const graph of options.graphs ?? []) this.time.register(graph);
  }

  /** The store's permit slots (undefined without a checkpointer): node limits, and a queue's run-level keys. */
  get storePermits(): StorePermits | undefined {
    return this.#storePermits;
  }

  get hasCheckpointer(): boolean {
    return this.options.checkpointer !== undefined;
  }

  /** The store, built once (setup runs before first use, inside the store). */
  store(): Effect.Effect<CheckpointStoreService | undefined, RunError> {
    const cp = this.options.checkpointer;
    if (cp === undefined) return Effect.succeed(undefined);
    this.#store ??= Effect.runSync(
      Effect.cached(
        makeCheckpointStore(cp, { closeAdapter: this.options.closeCheckpointer !== false }).pipe(
          Scope.extend(this.#scope),
          Effect.tap((s) => s.setup),
        ),
      ),
    );
    return this.#store;
  }

  /** One Shared per store (the store is built once): nothing per run. */
  #shared(store: CheckpointStoreService | undefined): Shared {
    if (this.#sharedFor !== undefined && this.#sharedFor.store === store) return this.#sharedFor;
    const spans = this.#spans;
    const shared: Shared = {
      semaphore: this.#semaphore,
      maxConcurrency: this.options.maxConcurrency,
      nodePermits: this.#nodePermits,
      storePermits: this.#storePermits,
      cache: this.#cache,
      store,
      processors: this.options.eventProcessors ?? [],
      owner: this.#owner,
      lease: leaseTiming(this.options),
      mapDispatcher: this.options.mapDispatcher,
      clock: this.time.clock,
      onDue: (at) => this.time.noteDue(at),
      onWaiting: (workflowId, wait) => this.time.noteWaiting(workflowId, wait),
      get nextSpan() {
        return spans.value;
      },
      set nextSpan(v: number) {
        spans.value = v;
      },
    };
    this.#sharedFor = shared;
    return shared;
  }

  /** Why a call can't go on (the runner is closed, `graph` is no Graph); `call` names it in the message. */
  #reject(graph: unknown, call: string, argument = "first"): GraphConfigError | undefined {
    if (this.#closed) return new GraphConfigError(`${call} was called after runner.close(). Create a new Runner.`);
    if (!isGraph(graph))
      return new GraphConfigError(`${call} expects a Graph as its ${argument} argument (new Graph([...])).`);
    return undefined;
  }

  #check(graph: unknown, call: string): Effect.Effect<Graph, GraphConfigError> {
    const rejected = this.#reject(graph, call);
    return rejected === undefined ? Effect.succeed(graph as Graph) : Effect.fail(rejected);
  }

  /** One run as an Effect. `subscriber` receives this run's events (for start/stream). */
  run(
    graph: Graph,
    options: RunOptions = {},
    subscriber?: Subscriber,
    control = new RunControl(),
    time?: RunConfig["time"],
  ): Effect.Effect<RunResult, RunError | GraphConfigError | InvalidOptionError> {
    if (options.explain !== true) return this.#run(graph, options, subscriber, control, time);
    // Only runs asked to explain get a recorder (an extra event processor): others pay nothing.
    const recorder = new ExplainRecorder(options.values);
    this.#recorders.set(control, recorder);
    const checkpointer = this.options.checkpointer;
    // Without a store there is no history to read: stay synchronous (runner.runSync takes this path too).
    if (checkpointer === undefined)
      return this.#run(graph, options, subscriber, control, time).pipe(
        Effect.map((result) => keepExplanation(result, graph as Graph, recorder.record)),
      );
    return this.#run(graph, options, subscriber, control, time).pipe(
      Effect.flatMap((result) =>
        Effect.promise(() => recorder.history(checkpointer)).pipe(
          Effect.map((record) => keepExplanation(result, graph as Graph, record)),
        ),
      ),
    );
  }

  #run(
    graph: Graph,
    options: RunOptions,
    subscriber: Subscriber | undefined,
    control: RunControl,
    time: RunConfig["time"] | undefined,
  ): Effect.Effect<RunResult, RunError | GraphConfigError | InvalidOptionError> {
    return Effect.suspend((): Effect.Effect<RunResult, RunError | GraphConfigError | InvalidOptionError> => {
      const rejected = this.#reject(graph, "runner.run()");
      if (rejected !== undefined) return Effect.fail(rejected);
      // Options are checked before the run is registered as live: a rejected call leaves nothing behind.
      try {
        checkRunOptions(options, "run");
        refuseAnsweringWithoutStore("runner.run()", options.answering, this.hasCheckpointer);
        const startAt = delayedStart(options, "run", this.time.clock, this.hasCheckpointer);
        if (startAt !== undefined) time = { startAt };
        // Child ids (`<id>/<node>`, `<id>/<node>/<i>`) are stored: a root id too long for them fails now, not half-way.
        if (this.options.checkpointer !== undefined && options.workflowId !== undefined)
          checkChildIdRoom("runner.run()", options.workflowId, graph as Graph);
      } catch (error) {
        return Effect.fail(error as InvalidOptionError);
      }
      if (this.options.checkpointer === undefined)
        return this.#start(graph as Graph, options, undefined, subscriber, control);
      // A graph run here is one this runner may resume on its own later (a due sleep, an event).
      this.time.register(graph as Graph);
      const ready = this.#storeReady;
      if (ready !== undefined) return this.#upgraded(graph as Graph, options, ready.store, subscriber, control, time);
      return this.store().pipe(
        Effect.flatMap((store) => {
          this.#storeReady = { store };
          return this.#upgraded(graph as Graph, options, store, subscriber, control, time);
        }),
      );
    });
  }

  /**
   * The Promise API's run. Without a checkpointer, processors or subscriber there is nothing for Effect to manage:
   * the run is a plain Promise (the common case, and the cheapest); otherwise the Effect run.
   */
  runPromise(graph: Graph, options: RunOptions = {}): Promise<RunResult> {
    if (
      this.options.checkpointer !== undefined ||
      (this.options.eventProcessors?.length ?? 0) > 0 ||
      options.explain === true
    )
      return runPromise(this.run(graph, options));
    const rejected = this.#reject(graph, "runner.run()");
    if (rejected !== undefined) return Promise.reject(rejected);
    try {
      checkRunOptions(options, "run");
      refuseAnsweringWithoutStore("runner.run()", options.answering, false);
      delayedStart(options, "run", this.time.clock, false);
    } catch (error) {
      return Promise.reject(error);
    }
    const workflowId = options.workflowId ?? randomUUID();
    if (this.#live.has(workflowId)) return runPromise(this.run(graph, options));
    const control = new RunControl();
    const detach = linkSignal(options.signal, control);
    this.#live.set(workflowId, control);
    const engine = new Engine(graph, this.#config(graph, options, undefined, workflowId, control, undefined));
    this.#track();
    const cleanup = () => {
      this.#live.delete(workflowId);
      detach();
      this.#untrack();
    };
    return engine.runDirect().then(
      (result) => {
        cleanup();
        const settled = settle(result, options);
        if ("error" in settled) throw settled.error;
        return settled.result;
      },
      (error: unknown) => {
        cleanup();
        throw error;
      },
    );
  }

  /** `#start` after the `upgrade` hook (when there is one) prepared the stored workflow for this graph. */
  #upgraded(
    graph: Graph,
    options: RunOptions,
    store: CheckpointStoreService | undefined,
    subscriber: Subscriber | undefined,
    control: RunControl,
    time?: RunConfig["time"],
  ): Effect.Effect<RunResult, RunError | GraphConfigError> {
    const upgrade = this.options.upgrade;
    const checkpointer = this.options.checkpointer;
    if (upgrade === undefined || checkpointer === undefined)
      return this.#start(graph, options, store, subscriber, control, time);
    const workflowId = options.workflowId ?? randomUUID();
    const withId = options.workflowId === undefined ? { ...options, workflowId } : options;
    const prepare = Effect.tryPromise({
      try: () => upgrade.prepare({ graph, workflowId, checkpointer, force: options.force === true }),
      // The hook's own tagged errors (a blocked upgrade, a conflict) reach the caller as they are.
      catch: (error) => error as RunError,
    });
    // An upgrade claims the workflow like the run does: `waitForLease` waits for a held lease there too.
    return whileHeld(prepare, waitMs(options, this.options), control).pipe(
      Effect.zipRight(Effect.suspend(() => this.#start(graph, withId, store, subscriber, control, time))),
    );
  }

  #start(
    graph: Graph,
    options: RunOptions,
    store: CheckpointStoreService | undefined,
    subscriber: Subscriber | undefined,
    control: RunControl,
    time?: RunConfig["time"],
  ): Effect.Effect<RunResult, RunError | GraphConfigError> {
    // close() may have begun while the store was being opened: a run registered now would outlive the store.
    const rejected = this.#reject(graph, "runner.run()");
    if (rejected !== undefined) return Effect.fail(rejected);
    const workflowId = options.workflowId ?? randomUUID();
    if (this.#live.has(workflowId)) {
      return Effect.fail(
        new WorkflowConflictError({
          workflowId,
          message: `Workflow '${workflowId}' is already running in this process. Wait for it to finish (or stop it with runner.stop('${workflowId}')) before running it again.`,
        }),
      );
    }
    const detach = linkSignal(options.signal, control);
    this.#live.set(workflowId, control);
    this.#track();
    const config = this.#config(graph, options, store, workflowId, control, subscriber, time);
    const engine = new Engine(graph, config);
    return engine.run().pipe(
      Effect.flatMap((result) => finalize(result, options)),
      Effect.ensuring(
        Effect.sync(() => {
          this.#live.delete(workflowId);
          detach();
          this.#untrack();
        }),
      ),
    );
  }

  // A count, not a Deferred per run: making and completing one through Effect.runSync started two fibers per run,
  // ~15% of a 20-iteration agent loop's CPU time. No run starts after close(), so "none left" is "those live then".
  #track(): void {
    this.#running++;
  }

  #untrack(): void {
    this.#running--;
    if (this.#running === 0 && this.#idle !== undefined) Deferred.unsafeDone(this.#idle, Exit.void);
  }

  #config(
    graph: Graph,
    options: RunOptions,
    store: CheckpointStoreService | undefined,
    workflowId: string,
    control: RunControl,
    subscriber: Subscriber | undefined,
    time?: RunConfig["time"],
  ): RunConfig {
    return RunConfig.root({
      graph,
      options,
      workflowId,
      shared: withRecorder(this.#shared(store), this.#recorders.get(control)),
      control,
      subscriber,
      waitForLeaseMs: waitMs(options, this.options),
      ...(time === undefined ? {} : { time }),
    });
  }

  map(graph: Graph, options: MapOptions): Effect.Effect<MapResult, RunError | GraphConfigError | InvalidOptionError> {
    return this.#check(graph, "runner.map()").pipe(
      Effect.flatMap(() =>
        Effect.try({
          try: () => {
            checkMapOptions(options);
            refuseDelayedMap(options);
          },
          catch: (e) => e as InvalidOptionError,
        }),
      ),
      Effect.flatMap(() => {
        if (graph.hasInterrupts) {
          return Effect.fail(
            new GraphConfigError(
              `runner.map can't run a graph with interrupts (${graph.interruptPaths.map((p) => `'${p}'`).join(", ")}): map runs many items in one batch, an interrupt pauses for a human.\n  How to fix: call runner.run() in a loop, one item at a time.`,
            ),
          );
        }
        const params = typeof options.mapOver === "string" ? [options.mapOver] : [...options.mapOver];
        const values = options.values ?? {};
        const items = mapItems(
          "runner.map",
          params.map((p) => [p, values[p]] as const),
          options.mapMode ?? "zip",
        );
        if (!Array.isArray(items)) return Effect.fail(new GraphConfigError(items.message));
        const base = options.workflowId ?? randomUUID();
        if (this.options.checkpointer !== undefined && items.length > 0) {
          const digits = String(items.length - 1).length;
          const item = { bytes: 1 + digits, path: `/<item index, ${digits} digit${digits === 1 ? "" : "s"}>` };
          try {
            checkChildIdRoom("runner.map()", base, graph, item);
          } catch (error) {
            return Effect.fail(error as InvalidOptionError);
          }
        }
        const concurrency = options.maxConcurrency ?? this.options.maxConcurrency ?? 256;
        const results = new Array<RunResult>(items.length);
        const runItem = (item: Record<string, unknown>, i: number) =>
          this.run(graph, {
            ...options,
            values: { ...values, ...item },
            workflowId: `${base}/${i}`,
            errorHandling: "continue",
          }).pipe(
            Effect.tap((r) => {
              results[i] = r;
            }),
            Effect.asVoid,
          );
        return Effect.forEach(items, runItem, { concurrency, discard: true }).pipe(
          Effect.flatMap(() => {
            const failed = results.find((r) => r.status === "failed");
            if (failed !== undefined && (options.errorHandling ?? "raise") === "raise")
              return Effect.fail(failed.error as RunError);
            const status: RunStatus = failed
              ? "failed"
              : results.some((r) => r.status === "stopped")
                ? "stopped"
                : "completed";
            const columns: Record<string, unknown[]> = {};
            for (const o of graph.outputs) columns[o] = results.map((r) => r.values[o]);
            return Effect.succeed<MapResult>({ status, results, values: columns });
          }),
        );
      }),
    );
  }

  /**
   * One item of a dispatched map, in a process that did not start the map (see `mapItem.ts`). Tracked like a run:
   * `close()` stops it and waits for it to end before closing the store.
   */
  mapItem(graph: Graph, options: MapItemRunOptions): Effect.Effect<RunResult, RunError | GraphConfigError> {
    return Effect.suspend(() => {
      const rejected = this.#reject(graph, "runMapItem()", "second");
      if (rejected !== undefined) return Effect.fail(rejected);
      const control = new RunControl();
      this.#items.add(control);
      this.#track();
      return this.store().pipe(
        Effect.flatMap((store) => runMapItem(graph, options, store, this.#shared(store), control)),
        Effect.ensuring(
          Effect.sync(() => {
            this.#items.delete(control);
            this.#untrack();
          }),
        ),
      );
    });
  }

  /**
   * Stops a workflow: a live run in this process at once, and with a checkpointer a durable request every process
   * sees (the holder's next stop poll or renewal; a workflow nobody runs ends `stopped` right away). True when a
   * live run here was stopped or the stored workflow took the request.
   */
  stop(workflowId: string, info?: unknown): Effect.Effect<boolean, RunError> {
    return Effect.suspend(() => {
      const control = this.#live.get(workflowId);
      control?.stop(info);
      if (this.options.checkpointer === undefined) return Effect.succeed(control !== undefined);
      return this.store().pipe(
        Effect.flatMap((store) =>
          store === undefined
            ? Effect.succeed(undefined)
            : store.requestStop(workflowId, info === undefined ? undefined : { info }),
        ),
        Effect.map(
          (record) => control !== undefined || (record?.stopRequested !== undefined && record.status !== "completed"),
        ),
        // The local stop happened; a storage failure only matters when it was the only way to reach the run.
        Effect.catchAll((error) => (control === undefined ? Effect.fail(error) : Effect.succeed(true))),
      );
    });
  }

  /**
   * One retention sweep now, under the store-wide sweeper lease: `undefined` when another process is sweeping, or
   * when the store has nothing to sweep (no `ttlMs` policy).
   */
  sweepExpired(): Promise<SweepReport | undefined> {
    if (this.#closed)
      return Promise.reject(
        new GraphConfigError("runner.sweepExpired() was called after runner.close(). Create a new Runner."),
      );
    if (this.#housekeeper !== undefined) return this.#housekeeper.sweep();
    const checkpointer = this.options.checkpointer;
    if (!Housekeeper.applies(checkpointer)) return Promise.resolve(undefined);
    // `housekeeping: false`: no timer, but a sweep asked for explicitly still runs under the lease.
    const once = new Housekeeper(
      checkpointer,
      this.#owner,
      { intervalMs: 60_000, batchSize: 200, leaseTtlMs: leaseTiming(this.options).ttlMs },
      () => runPromise(Effect.asVoid(this.store())),
    );
    return once.sweep();
  }

  close(): Effect.Effect<void> {
    return Effect.suspend(() => {
      if (this.#closed) return Effect.void;
      this.#closed = true;
      // The timer first: a due time that fires now would start a run on a closing runner.
      const disarmed = Promise.all([this.time.close(), this.#housekeeper?.close()]);
      for (const c of this.#live.values()) c.stop({ reason: "runner closed" });
      for (const c of this.#items) c.stop({ reason: "runner closed" });
      const processors = this.options.eventProcessors ?? [];
      // The stopped runs still write their end (status `stopped`, lease released): the store closes after them.
      return Effect.promise(() => disarmed).pipe(
        Effect.zipRight(
          Effect.suspend(() => {
            // Nothing interrupts this Deferred, so the fiber id it records is never read.
            if (this.#running > 0) this.#idle = Deferred.unsafeMake<void>(FiberId.none);
            return this.#idle === undefined ? Effect.void : Deferred.await(this.#idle);
          }),
        ),
        Effect.zipRight(Scope.close(this.#scope, Exit.void)),
        Effect.zipRight(
          Effect.forEach(
            processors,
            (p) => Effect.promise(async () => p.shutdown?.()).pipe(Effect.catchAllDefect(() => Effect.void)),
            { discard: true },
          ),
        ),
      );
    });
  }

  checkSync(graph: Graph): void {
    if (!isGraph(graph)) throw new GraphConfigError("runner.runSync() expects a Graph as its first argument.");
    const reasons: string[] = [];
    if (graph.hasAsyncNodes) {
      const found = syncBlockers(graph, "");
      if (found.async.length > 0) reasons.push(`it has async nodes (${found.async.join(", ")})`);
      if (found.frames.length > 0)
        reasons.push(`it streams frames (${found.frames.join(", ")}), which are pulled asynchronously`);
    }
    if (graph.hasInterrupts) reasons.push(`it has interrupts (${graph.interruptPaths.join(", ")})`);
    if (this.hasCheckpointer) reasons.push("the runner has a checkpointer (storage is asynchronous)");
    if (reasons.length > 0) {
      throw new IncompatibleRunnerError(
        `runner.runSync() can't run this graph: ${reasons.join("; ")}.\n  How to fix: use await runner.run(graph, options).`,
      );
    }
  }
}

/** What keeps `runSync` from running a graph: async node functions, and frames pipelines (by path). */
function syncBlockers(graph: Graph, prefix: string): { async: string[]; frames: string[] } {
  const out = { async: [] as string[], frames: [] as string[] };
  for (const n of graph.nodes.values()) {
    if (n.kind === "function" && n.isAsync) out.async.push(`${prefix}${n.name}`);
    if (n.kind === "function" && n.frames !== undefined) out.frames.push(`${prefix}${n.name}`);
    if (n.kind !== "graph") continue;
    if (n.framesConfig !== undefined) out.frames.push(`${prefix}${n.name}`);
    const inner = syncBlockers(n.graph, `${prefix}${n.name}/`);
    out.async.push(...inner.async);
    out.frames.push(...inner.frames);
  }
  return out;
}

/** The `waitForLease` option in ms: `true` waits up to the lease TTL. */
function waitMs(options: RunOptions, runner: RunnerOptions): number | undefined {
  const wait = options.waitForLease;
  if (wait === undefined || wait === false) return undefined;
  return wait === true ? leaseTiming(runner).ttlMs : wait;
}
