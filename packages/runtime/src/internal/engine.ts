import {
  END_DECISION,
  INPUT_STEP,
  type Lease,
  type StepRecord,
  type StoredError,
  type WorkflowRecord,
} from "@graph/checkpoint";
import {
  type AnyNode,
  END,
  FunctionNode,
  GateNode,
  type Graph,
  GraphNode,
  InterruptNode,
  isTaggedError,
  type RoutingError,
  type Target,
} from "@graph/core";
import { Deferred, Effect, Either } from "effect";
import {
  InfiniteLoopError,
  type InvalidOptionError,
  type MissingInputError,
  NodeExecutionError,
  type UnknownValueError,
  VersionMismatchError,
} from "../errors.js";
import type { GraphEvent } from "../events.js";
import { type PauseInfo, RunResult, type RunStatus } from "../RunResult.js";
import { nextSpanId, type RunConfig } from "./context.js";
import { deepEqual, stableKey } from "./equal.js";
import {
  graphLabel,
  type InputView,
  missingInputError,
  unansweredPauseError,
  unknownValueError,
} from "./inputErrors.js";
import { ClosedRegions } from "./regions.js";
import { responseKeys } from "./responseKeys.js";

/** A value in run state: its data, its version (index of the step that wrote it) and who wrote it. */
interface Slot {
  value: unknown;
  version: number;
  writer: string;
}

/** What running one node produced. */
type Outcome =
  | {
      kind: "completed";
      outputs: Record<string, unknown>;
      decision?: readonly Target[] | null;
      nested?: RunResult;
      truncated?: boolean;
      cached?: boolean;
      childWorkflowId?: string;
    }
  | { kind: "paused"; pause: PauseInfo; nested?: RunResult; childWorkflowId?: string }
  | { kind: "stopped"; nested?: RunResult; childWorkflowId?: string }
  | {
      kind: "failed";
      error: unknown;
      nested?: RunResult;
      childWorkflowId?: string;
      /** NodeError was already emitted for this failure (by the retry loop). */
      reported?: boolean;
    };

interface Execution {
  node: AnyNode;
  inputs: Record<string, unknown>;
  versions: Record<string, number>;
  spanId: string;
  startedAt: number;
}

/** Errors a run can fail with (typed failures of the Effect). */
export type RunError =
  | NodeExecutionError
  | MissingInputError
  | UnknownValueError
  | InvalidOptionError
  | InfiniteLoopError
  | VersionMismatchError
  | RoutingError
  | import("@graph/checkpoint").CheckpointError
  | import("@graph/checkpoint").WorkflowConflictError;

const STOPPED = Symbol("stopped");

function toStoredError(error: unknown): StoredError {
  const e = error as { name?: string; message?: string; _tag?: string; stack?: string };
  const out: { name: string; message: string; tag?: string; stack?: string } = {
    name: typeof e?.name === "string" ? e.name : "Error",
    message: typeof e?.message === "string" ? e.message : String(error),
  };
  if (typeof e?._tag === "string") out.tag = e._tag;
  return out;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === "object" || typeof value === "function") &&
    typeof (value as { then?: unknown }).then === "function"
  );
}

function isIterator(value: unknown): value is Iterator<unknown> | AsyncIterator<unknown> {
  return value !== null && typeof value === "object" && typeof (value as { next?: unknown }).next === "function";
}

const decisionToStored = (d: readonly Target[] | null | undefined): string | readonly string[] | null =>
  d === null || d === undefined ? null : d.map((t) => (t === END ? END_DECISION : t));
const decisionFromStored = (d: string | readonly string[] | null | undefined): readonly Target[] | null =>
  d === null || d === undefined ? null : (typeof d === "string" ? [d] : d).map((t) => (t === END_DECISION ? END : t));

/**
 * One run of one graph: restores state (when there is a store), merges the caller's values, then runs supersteps
 * until nothing is ready. Readiness is maintained incrementally: only nodes whose inputs, permissions or decisions
 * changed are re-examined (docs/semantics.md).
 */
export class Engine {
  readonly graph: Graph;
  readonly config: RunConfig;
  readonly spanId: string;
  readonly #analysis: Graph["analysis"];
  readonly #nodes: readonly AnyNode[];
  readonly #bound: Readonly<Record<string, unknown>>;

  readonly #values = new Map<string, Slot>();
  readonly #consumed = new Map<string, Readonly<Record<string, number>>>();
  readonly #everRan = new Set<string>();
  readonly #ranThisRun = new Set<string>();
  readonly #pending = new Map<string, Set<Target>>();
  readonly #decided = new Set<string>();
  readonly #nested = new Map<string, RunResult>();
  /** Nodes stopped or failed in this run: not retried within it. */
  readonly #settled = new Set<string>();
  #dirty = new Set<string>();
  #spareSet = new Set<string>();
  readonly #permitMemo = new Map<string, boolean>();
  readonly #regions: ClosedRegions;
  /** How often each node started in this run (maxIterations bounds it). */
  readonly #runs = new Map<string, number>();
  #waiting = new Set<string>();

  #nextIndex = 1;
  #superstep = 0;
  #pause: PauseInfo | undefined;
  #failure: unknown;
  #stopped = false;
  #lease: Lease | undefined;
  #workflow: WorkflowRecord | undefined;
  #lastCandidates: readonly string[] = [];
  readonly #startedAt = Date.now();

  constructor(graph: Graph, config: RunConfig) {
    this.graph = graph;
    this.config = config;
    this.spanId = nextSpanId(config.shared);
    this.#analysis = graph.analysis;
    this.#nodes = [...graph.nodes.values()];
    this.#bound = graph.inputs.bound;
    this.#regions = new ClosedRegions(graph.analysis);
  }

  // ───────────────────────────────────────────── events ─────────────────────────────────────────────

  #event<T extends GraphEvent["type"]>(
    type: T,
    fields: Omit<
      Extract<GraphEvent, { type: T }>,
      "type" | "runId" | "workflowId" | "spanId" | "parentSpanId" | "timestamp"
    >,
    spanId?: string,
  ): void {
    const { emitter } = this.config;
    if (!emitter.active) return;
    emitter.emit({
      type,
      runId: this.config.runId,
      workflowId: this.config.workflowId,
      spanId: spanId ?? this.spanId,
      parentSpanId: spanId === undefined ? this.config.parentSpanId : this.spanId,
      timestamp: Date.now(),
      ...fields,
    } as unknown as GraphEvent);
  }

  #pressure(): Effect.Effect<void> {
    const wait = this.config.emitter.active ? this.config.emitter.pressure() : undefined;
    return wait === undefined ? Effect.void : Effect.promise(() => wait);
  }

  // ───────────────────────────────────────────── run ─────────────────────────────────────────────

  /** Runs to the end; typed failures only for problems before the first node and store errors. */
  run(): Effect.Effect<RunResult, RunError> {
    return Effect.suspend(() => {
      this.#event("RunStart", {
        graphName: this.graph.name,
        depth: this.config.depth,
        definitionHash: this.graph.definitionHash,
      });
      const store = this.config.shared.store;
      const prepare =
        store !== undefined && this.config.persist ? this.#restore() : Effect.sync(() => this.#mergeInputs());
      return prepare.pipe(
        Effect.flatMap(() => this.#checkMissing()),
        Effect.flatMap(() => (store !== undefined && this.config.persist ? this.#begin() : Effect.void)),
        Effect.flatMap(() => {
          for (const n of this.#nodes) this.#dirty.add(n.name);
          return this.#loop();
        }),
        Effect.flatMap(() => this.#finish()),
        Effect.onError(() => this.#abandon()),
      );
    });
  }

  #loop(): Effect.Effect<void, RunError> {
    return Effect.suspend(() => {
      // Supersteps whose nodes are all synchronous run inline in this loop; only async work returns to Effect.
      while (true) {
        if (this.#pause !== undefined || this.#failure !== undefined) return Effect.void;
        if (this.config.control.stopRequested) {
          this.#stopped = true;
          if (!this.config.completeOnStop) return Effect.void;
        }
        const ready = this.#computeReady();
        if (ready.length === 0) return Effect.void;
        const runaway = this.#countRuns(ready);
        if (runaway !== undefined) return Effect.fail(runaway);
        this.#superstep++;
        if (this.config.emitter.active)
          this.#event("SuperstepStart", { superstep: this.#superstep, nodes: ready.map((n) => n.name) });
        const pending = this.#runSuperstep(ready);
        if (pending !== undefined)
          return pending.pipe(
            Effect.zipRight(this.#pressure()),
            Effect.flatMap(() => this.#loop()),
          );
        const wait = this.config.emitter.active ? this.config.emitter.pressure() : undefined;
        if (wait !== undefined) return Effect.promise(() => wait).pipe(Effect.flatMap(() => this.#loop()));
      }
    });
  }

  /**
   * Counts one more run of each ready node; maxIterations bounds how often one node runs in one run (a loop's
   * iterations), never the number of supersteps, so a DAG of any depth never reaches it.
   */
  #countRuns(ready: readonly AnyNode[]): InfiniteLoopError | undefined {
    const max = this.config.maxIterations;
    for (const n of ready) {
      const count = (this.#runs.get(n.name) ?? 0) + 1;
      if (count > max) {
        const a = this.#analysis;
        const c = a.componentOf.get(n.name)!;
        const loop = a.cyclic.has(c) ? [...a.components[c]!] : [n.name];
        return new InfiniteLoopError(n.name, loop, max);
      }
    }
    for (const n of ready) this.#runs.set(n.name, (this.#runs.get(n.name) ?? 0) + 1);
    return undefined;
  }

  // ───────────────────────────────────────────── readiness ─────────────────────────────────────────────

  #computeReady(): AnyNode[] {
    const check = this.#dirty;
    for (const w of this.#waiting) check.add(w);
    this.#dirty = this.#spareSet;
    this.#spareSet = check;
    const permitMemo = this.#permitMemo;
    permitMemo.clear();
    let candidates: string[] = [];
    for (const name of check) if (this.#isCandidate(name, permitMemo)) candidates.push(name);
    check.clear();
    if (this.#waiting.size > 0) this.#waiting = new Set();
    if (candidates.length > 1) {
      const pos = this.#analysis.position;
      candidates.sort((a, b) => pos.get(a)! - pos.get(b)!);
      // Upstream first: a node waits while something upstream of it is ready, so it runs once on fresh values.
      const kept = candidates.filter((c) => !candidates.some((d) => d !== c && this.#analysis.isUpstream(d, c)));
      for (const c of candidates) if (!kept.includes(c)) this.#waiting.add(c);
      candidates = kept;
    }
    this.#lastCandidates = candidates;
    return candidates.map((c) => this.graph.nodes.get(c)!);
  }

  #permitted(name: string, memo: Map<string, boolean>): boolean {
    const controllers = this.#analysis.controllers.get(name)!;
    if (controllers.length === 0) return true;
    const cached = memo.get(name);
    if (cached !== undefined) return cached;
    memo.set(name, false); // cycles of gates: assume not permitted while deciding
    let ok = false;
    for (const g of controllers) {
      const pending = this.#pending.get(g);
      if (pending?.has(name)) {
        ok = true;
        break;
      }
      const gate = this.graph.nodes.get(g) as GateNode;
      // Before the gate decides, its cycle's entry may run once (do-while); after that the gate drives it.
      if (
        !this.#decided.has(g) &&
        !this.#ranThisRun.has(name) &&
        gate.defaultOpen &&
        this.#analysis.sameCycle(g, name) &&
        this.#entryAllows(name) &&
        this.#permitted(g, memo)
      ) {
        ok = true;
        break;
      }
    }
    memo.set(name, ok);
    return ok;
  }

  /** Before a gate decides, only the configured entrypoint of a cycle (if any) may start it. */
  #entryAllows(name: string): boolean {
    const entry = this.graph.entrypoint;
    if (entry.length === 0) return true;
    const comp = this.#analysis.componentOf.get(name);
    const inComponent = entry.filter((e) => this.#analysis.componentOf.get(e) === comp);
    return inComponent.length === 0 || inComponent.includes(name);
  }

  #available(n: AnyNode, input: string): boolean {
    return this.#values.has(input) || Object.hasOwn(this.#bound, input) || n.hasDefault(input);
  }

  #isCandidate(name: string, memo: Map<string, boolean>): boolean {
    if (this.#settled.has(name) || this.#regions.isClosed(name)) return false;
    const n = this.graph.nodes.get(name)!;
    if (!this.#permitted(name, memo)) return false;
    for (const input of n.inputs) if (!this.#available(n, input)) return false;
    for (const g of this.#analysis.controllers.get(name)!) if (this.#pending.get(g)?.has(name)) return true;
    if (!this.#everRan.has(name)) {
      if (this.#relaysFeedback(n)) return this.#isStale(n) && this.#fedBackByLoop(n);
      return !this.#skippedBySuppliedOutputs(n);
    }
    return this.#isStale(n);
  }

  /**
   * A node of a gated loop (not its entry) that reads only the loop's seeds relays what the loop feeds back to its
   * entry (Self-RAG's `retrieveAgain(question) → retrieve`). It does not run on the caller's values — that would
   * start one extra iteration once the loop settled — but once the loop has written one of them.
   */
  #relaysFeedback(n: AnyNode): boolean {
    const a = this.#analysis;
    if (n.inputs.length === 0 || !a.loops.gated.has(a.componentOf.get(n.name)!)) return false;
    return n.inputs.every((i) => a.isSeedForNonEntry(i, n.name));
  }

  #fedBackByLoop(n: AnyNode): boolean {
    return n.inputs.some((i) => {
      const w = this.#values.get(i)?.writer;
      return w !== undefined && w !== INPUT_STEP && w !== n.name;
    });
  }

  /**
   * A node that never ran is skipped when the caller supplied all its outputs — except a seed of its own cycle
   * (the cycle's first value), side-effect nodes (no outputs), interrupts (they take or ask for their answer) and
   * GraphNodes holding interrupts (the child must take the answer).
   */
  #skippedBySuppliedOutputs(n: AnyNode): boolean {
    if (this.#everRan.has(n.name) || n.outputs.length === 0 || n instanceof InterruptNode) return false;
    if (n instanceof GraphNode && [...responseKeys(n.graph)].some((k) => n.outerOutput(k) !== undefined)) return false;
    const own = this.#analysis.ownCycleSeeds.get(n.name);
    return n.outputs.every((o) => this.#values.has(o) && !(own?.has(o) ?? false));
  }

  #isStale(n: AnyNode): boolean {
    const consumed = this.#consumed.get(n.name);
    const gated = this.#analysis.controllers.get(n.name)!.length > 0;
    const wired = this.#analysis.wiredProducers.get(n.name)!;
    for (const input of n.inputs) {
      const slot = this.#values.get(input);
      if (slot === undefined) continue;
      if (slot.version === (consumed?.[input] ?? 0)) continue;
      const writer = slot.writer;
      if (writer !== INPUT_STEP && !wired.get(input)!.has(writer)) continue;
      if (!gated && this.#exempt(n.name, input, writer)) continue;
      return true;
    }
    return false;
  }

  /**
   * The staleness exemptions of a node no gate controls. Its own output never re-triggers it. A value written
   * downstream of it waits for the next run when no gate lies on a path to the writer (a feedback loop); when one
   * does, the value came around the gate's loop and re-triggers it now — unless it is a seed of the loop and this
   * node is not the loop's entry (it reads the seed in the next iteration, after the entry ran).
   */
  #exempt(name: string, input: string, writer: string): boolean {
    if (writer === name) return true;
    if (writer === INPUT_STEP) return false;
    const a = this.#analysis;
    if (!a.reachesAcyclic(name, writer)) return false;
    return !a.gateBetween(name, writer) || a.isSeedForNonEntry(input, name);
  }

  // ───────────────────────────────────────────── supersteps ─────────────────────────────────────────────

  #resolveInputs(n: AnyNode): { inputs: Record<string, unknown>; versions: Record<string, number> } {
    const inputs: Record<string, unknown> = {};
    const versions: Record<string, number> = {};
    for (const input of n.inputs) {
      const slot = this.#values.get(input);
      if (slot !== undefined) {
        inputs[input] = slot.value;
        versions[input] = slot.version;
      } else if (Object.hasOwn(this.#bound, input)) {
        inputs[input] = structuredCloneSafe(this.#bound[input]);
        versions[input] = 0;
      } else {
        versions[input] = 0;
        if (n instanceof FunctionNode) {
          const d = n.defaultValue(input);
          if (d !== undefined) inputs[input] = d.value;
        }
      }
    }
    return { inputs, versions };
  }

  /** Runs one superstep; returns undefined when every node ran inline (nothing to wait for). */
  #runSuperstep(ready: readonly AnyNode[]): Effect.Effect<void, RunError> | undefined {
    const executions: Execution[] = [];
    for (const n of ready) {
      if (n instanceof GateNode) {
        // A gate about to decide again forgets its previous decision first (no extra loop iteration).
        this.#pending.delete(n.name);
      }
      const { inputs, versions } = this.#resolveInputs(n);
      if (n instanceof InterruptNode) {
        const response = this.#values.get(n.responseKey);
        if (response !== undefined) versions[n.responseKey] = response.version;
      }
      const spanId = this.config.emitter.active ? nextSpanId(this.config.shared) : this.spanId;
      executions.push({
        node: n,
        inputs,
        versions,
        spanId,
        startedAt: this.config.emitter.active || this.config.shared.store !== undefined ? Date.now() : 0,
      });
    }
    const outcomes = new Array<Outcome>(executions.length);
    const effects: Effect.Effect<void, RunError>[] = [];
    const active = this.config.emitter.active;
    for (let i = 0; i < executions.length; i++) {
      const ex = executions[i]!;
      if (active)
        this.#event("NodeStart", { nodeName: ex.node.name, nodeType: ex.node.nodeType, inputs: ex.inputs }, ex.spanId);
      const fast = this.#tryFast(ex);
      if (fast instanceof Later) {
        effects.push(
          fast.outcome.pipe(
            Effect.flatMap((o) => {
              outcomes[i] = o;
              return this.#afterNode(ex, o) ?? Effect.void;
            }),
          ),
        );
      } else if (fast !== undefined) {
        outcomes[i] = fast;
        const save = this.#afterNode(ex, fast);
        if (save !== undefined) effects.push(save);
      } else {
        effects.push(
          this.#execute(ex).pipe(
            Effect.flatMap((o) => {
              outcomes[i] = o;
              return this.#afterNode(ex, o) ?? Effect.void;
            }),
          ),
        );
      }
    }
    const apply = () => {
      for (let i = 0; i < executions.length; i++) this.#apply(executions[i]!, outcomes[i]!);
      // Paused comes after every sibling's NodeEnd: the pause takes effect once the superstep is over.
      for (let i = 0; i < executions.length; i++) {
        const o = outcomes[i]!;
        if (o.kind === "paused")
          this.#event(
            "Paused",
            { nodeName: o.pause.nodeName, value: o.pause.value, responseKey: o.pause.responseKey },
            executions[i]!.spanId,
          );
      }
    };
    if (effects.length === 0) {
      apply();
      return undefined;
    }
    const all = effects.length === 1 ? effects[0]! : Effect.all(effects, { concurrency: "unbounded", discard: true });
    return Effect.zipRight(all, Effect.sync(apply));
  }

  /**
   * Sync function nodes and gates run inline, with no Effect per node: the scheduler's hot path. A function not
   * declared `async` that still returns a Promise is awaited here ({@link Later}): it must never be called twice.
   */
  #tryFast(ex: Execution): Outcome | Later | undefined {
    const n = ex.node;
    if (n instanceof GateNode) {
      try {
        return { kind: "completed", outputs: {}, decision: n.decide(ex.inputs, this.#context(ex, undefined)) };
      } catch (error) {
        return { kind: "failed", error };
      }
    }
    if (
      !(n instanceof FunctionNode) ||
      n.mode !== "sync" ||
      n.cache ||
      n.retry !== undefined ||
      n.timeoutMs !== undefined
    )
      return undefined;
    if (this.config.control.stopRequested && !this.config.completeOnStop) return { kind: "stopped" };
    let returned: unknown;
    try {
      returned = this.#invoke(ex, n, this.#context(ex, undefined));
    } catch (error) {
      return { kind: "failed", error };
    }
    if (isThenable(returned)) {
      const promise = Promise.resolve(returned);
      return new Later(
        Effect.promise(() =>
          promise.then(
            (value): Outcome => {
              try {
                return { kind: "completed", outputs: n.collectOutputs(value) };
              } catch (error) {
                return { kind: "failed", error };
              }
            },
            (error: unknown): Outcome => ({ kind: "failed", error }),
          ),
        ),
      );
    }
    try {
      return { kind: "completed", outputs: n.collectOutputs(returned) };
    } catch (error) {
      return { kind: "failed", error };
    }
  }

  /** Calls a node's function, inside the processors' `aroundNode` wrappers when there are any. */
  #invoke(ex: Execution, n: FunctionNode, ctx: NodeCtx): unknown {
    const around = this.config.emitter.aroundNode;
    if (around === undefined) return n.invoke(ex.inputs, ctx);
    const { workflowId, runId } = this.config;
    return around({ workflowId, runId, spanId: ex.spanId, nodeName: n.name }, () => n.invoke(ex.inputs, ctx));
  }

  #context(ex: Execution, controller: AbortController | undefined, attempt = 1): NodeCtx {
    return new NodeCtx(this, ex, controller, attempt);
  }

  /** @internal used by NodeCtx.emit */
  emitChunk(ex: Execution, chunk: unknown, index: number): void {
    this.#event("StreamingChunk", { nodeName: ex.node.name, chunk, index }, ex.spanId);
  }

  /** The general path: async, streaming, cached, retried, timed-out nodes, interrupts and nested graphs. */
  #execute(ex: Execution): Effect.Effect<Outcome, RunError> {
    const n = ex.node;
    if (n instanceof GraphNode) return this.#executeGraph(ex, n);
    if (n instanceof InterruptNode) return this.#executeInterrupt(ex, n);
    const fn = n as FunctionNode;
    const run = this.#executeFunction(ex, fn);
    const semaphore = this.config.shared.semaphore;
    return semaphore === undefined ? run : semaphore.withPermits(1)(run);
  }

  #executeFunction(ex: Execution, n: FunctionNode): Effect.Effect<Outcome, never> {
    const cache = this.config.shared.cache;
    let key: string | undefined;
    if (n.cache && cache !== undefined) {
      try {
        key = `${n.definitionHash}:${stableKey(ex.inputs)}`;
      } catch {
        key = undefined; // inputs that can't be keyed (functions, cycles) are simply not cached
      }
    }
    const attemptOnce = (attempt: number): Effect.Effect<Outcome, never> =>
      Effect.suspend(() => {
        if (this.config.control.stopRequested && !this.config.completeOnStop)
          return Effect.succeed<Outcome>({ kind: "stopped" });
        const controller = new AbortController();
        this.config.control.track(controller);
        const call = this.#call(ex, n, controller, attempt);
        const timed =
          n.timeoutMs === undefined
            ? call
            : call.pipe(
                Effect.timeoutFail({
                  duration: n.timeoutMs,
                  onTimeout: () => {
                    const error = new Error(`Node '${n.name}' timed out after ${n.timeoutMs} ms (attempt ${attempt}).`);
                    error.name = "TimeoutError";
                    controller.abort(error);
                    return error;
                  },
                }),
              );
        // Regular nodes are cut off when a stop arrives; streaming nodes end themselves (they may keep partial output).
        // A node that starts after the stop (completeOnStop: true) runs to the end.
        const raced =
          n.isStreaming || this.config.control.stopRequested
            ? timed
            : Effect.raceFirst(
                timed,
                Deferred.await(this.config.control.stopped).pipe(Effect.as(STOPPED as typeof STOPPED)),
              );
        return raced.pipe(
          Effect.either,
          Effect.ensuring(Effect.sync(() => this.config.control.untrack(controller))),
          Effect.flatMap((result): Effect.Effect<Outcome, never> => {
            if (Either.isRight(result)) {
              const value = result.right;
              if (value === STOPPED) return Effect.succeed({ kind: "stopped" });
              return Effect.succeed(value as Outcome);
            }
            const error = result.left;
            const retry = n.retry;
            const willRetry =
              retry !== undefined &&
              attempt < retry.attempts &&
              !this.config.control.stopRequested &&
              (retry.retryOn?.(error) ?? true);
            this.#event("NodeError", { nodeName: n.name, error, attempt, willRetry }, ex.spanId);
            if (!willRetry) return Effect.succeed({ kind: "failed", error, reported: true });
            return Effect.sleep(retryDelay(retry!, attempt)).pipe(Effect.zipRight(attemptOnce(attempt + 1)));
          }),
        );
      });
    if (key === undefined) return attemptOnce(1);
    return Effect.promise(async () => cache!.get(key)).pipe(
      Effect.catchAllDefect(() => Effect.succeed(undefined)),
      Effect.flatMap((hit): Effect.Effect<Outcome, never> => {
        if (hit !== undefined) {
          this.#event("CacheHit", { nodeName: n.name }, ex.spanId);
          return Effect.succeed({ kind: "completed", outputs: { ...hit.value }, cached: true });
        }
        return attemptOnce(1).pipe(
          Effect.tap((o) =>
            o.kind === "completed" && !o.truncated
              ? Effect.promise(async () => cache!.set(key, o.outputs)).pipe(Effect.catchAllDefect(() => Effect.void))
              : Effect.void,
          ),
        );
      }),
    );
  }

  /** Calls the function and drives its result (value, promise, or generator) to an Outcome; errors as failures. */
  #call(ex: Execution, n: FunctionNode, controller: AbortController, attempt: number): Effect.Effect<Outcome, unknown> {
    return Effect.suspend(() => {
      const ctx = this.#context(ex, controller, attempt);
      let returned: unknown;
      try {
        returned = this.#invoke(ex, n, ctx);
      } catch (error) {
        return Effect.fail(error);
      }
      if (n.isStreaming && isIterator(returned)) return this.#drive(ex, n, returned);
      const finish = (value: unknown): Effect.Effect<Outcome, unknown> =>
        Effect.try({
          try: () => ({ kind: "completed", outputs: n.collectOutputs(value) }) as Outcome,
          catch: (e) => e,
        });
      if (isThenable(returned)) {
        return Effect.tryPromise({ try: () => Promise.resolve(returned), catch: (e) => e }).pipe(
          Effect.flatMap(finish),
        );
      }
      return finish(returned);
    });
  }

  /** Drives a sync or async generator: each yield is a StreamingChunk; honours backpressure and stop signals. */
  #drive(
    ex: Execution,
    n: FunctionNode,
    iterator: Iterator<unknown> | AsyncIterator<unknown>,
  ): Effect.Effect<Outcome, unknown> {
    const chunks: unknown[] = [];
    const control = this.config.control;
    const completeOnStop = this.config.completeOnStop;
    const emitter = this.config.emitter;
    // A node started after the stop (completeOnStop: true) streams to its end.
    const stopAtStart = control.stopRequested;
    const stopNow = () => control.stopRequested && !stopAtStart;
    const onStop = (): Outcome =>
      completeOnStop
        ? { kind: "completed", outputs: n.collectOutputs(joinChunks(chunks)), truncated: true }
        : { kind: "stopped" };
    const push = (chunk: unknown) => {
      chunks.push(chunk);
      this.#event("StreamingChunk", { nodeName: n.name, chunk, index: chunks.length - 1 }, ex.spanId);
    };
    const done = (value: unknown): Outcome => ({
      kind: "completed",
      outputs: n.collectOutputs(value !== undefined ? value : joinChunks(chunks)),
    });
    if (n.mode === "sync-generator") {
      // Sync generators can't be paused for a slow reader; they run to the end (or the stop) in one go.
      return Effect.try({
        try: () => {
          const it = iterator as Iterator<unknown>;
          while (true) {
            if (stopNow()) {
              it.return?.(undefined);
              return onStop();
            }
            const step = it.next();
            if (step.done) return done(step.value);
            push(step.value);
          }
        },
        catch: (e) => e,
      });
    }
    const work = async (): Promise<Outcome> => {
      const it = iterator as AsyncIterator<unknown>;
      while (true) {
        if (stopNow()) {
          await it.return?.(undefined);
          return onStop();
        }
        const step = await it.next();
        if (step.done) return done(step.value);
        // After the stop the outcome is already fixed (by the race below): late chunks are dropped.
        if (stopNow()) {
          await it.return?.(undefined);
          return onStop();
        }
        push(step.value);
        const wait = emitter.active ? emitter.pressure() : undefined;
        if (wait !== undefined) await wait;
      }
    };
    const streamed = Effect.tryPromise({ try: work, catch: (e) => e });
    if (stopAtStart) return streamed;
    // Don't wait for a slow generator's next chunk: end on the stop with what arrived so far.
    return Effect.raceFirst(
      streamed,
      Deferred.await(control.stopped).pipe(Effect.flatMap(() => Effect.try({ try: onStop, catch: (e) => e }))),
    );
  }

  #executeInterrupt(ex: Execution, n: InterruptNode): Effect.Effect<Outcome, never> {
    return Effect.suspend(() => {
      const response = this.#values.get(n.responseKey);
      const consumedAnswer = this.#consumed.get(n.name)?.[n.responseKey] ?? 0;
      if (response !== undefined && response.writer === INPUT_STEP && response.version > consumedAnswer) {
        return Effect.succeed<Outcome>({ kind: "completed", outputs: { [n.responseKey]: response.value } });
      }
      const value = ex.inputs[n.inputName];
      const paused: Outcome = {
        kind: "paused",
        pause: { reason: "human_input", nodeName: n.name, value, responseKey: n.responseKey },
      };
      const handler = n.handler;
      if (handler === undefined) return Effect.succeed(paused);
      return Effect.tryPromise({ try: async () => handler(value), catch: (e) => e }).pipe(
        Effect.map(
          (answer): Outcome =>
            answer === undefined ? paused : { kind: "completed", outputs: { [n.responseKey]: answer } },
        ),
        Effect.catchAll((error) => Effect.succeed<Outcome>({ kind: "failed", error })),
      );
    });
  }

  #childConfig(ex: Execution, n: GraphNode, workflowId: string, passed: ChildValues): RunConfig {
    return {
      ...this.config,
      values: passed.values,
      parentVersions: passed.versions,
      workflowId,
      runId: this.config.runId,
      control: this.config.control.child(),
      completeOnStop: n.completeOnStop,
      parentSpanId: ex.spanId,
      depth: this.config.depth + 1,
      checkpoint: undefined,
      force: this.config.force,
      isChild: true,
      parentWorkflowId: this.config.workflowId,
    };
  }

  /**
   * Values a child run receives — its inputs by inner name, plus answers for its interrupts — with their versions
   * here, so a restarted child takes only what changed since it last started.
   */
  #childValues(ex: Execution, n: GraphNode): ChildValues {
    const values: Record<string, unknown> = {};
    const versions: Record<string, number> = {};
    for (const input of n.inputs) {
      if (!Object.hasOwn(ex.inputs, input)) continue;
      const inner = n.innerInput(input)!;
      values[inner] = ex.inputs[input];
      versions[inner] = ex.versions[input] ?? 0;
    }
    for (const inner of responseKeys(n.graph)) {
      const outer = n.outerOutput(inner);
      const slot = outer === undefined ? undefined : this.#values.get(outer);
      if (slot !== undefined && slot.writer === INPUT_STEP) {
        values[inner] = slot.value;
        versions[inner] = slot.version;
      }
    }
    return { values, versions };
  }

  #executeGraph(ex: Execution, n: GraphNode): Effect.Effect<Outcome, RunError> {
    const mapOver = n.mapOverConfig;
    if (mapOver === undefined) {
      const childId = `${this.config.workflowId}/${n.name}`;
      const config = this.#childConfig(ex, n, childId, this.#childValues(ex, n));
      return new Engine(n.graph, config).run().pipe(
        Effect.ensuring(Effect.sync(() => this.config.control.release(config.control))),
        Effect.map((child) => this.#projectChild(n, child, childId)),
        Effect.catchAll((error) => Effect.succeed<Outcome>({ kind: "failed", error, childWorkflowId: childId })),
      );
    }
    return this.#executeMapped(ex, n);
  }

  #projectChild(n: GraphNode, child: RunResult, childWorkflowId: string): Outcome {
    if (child.status === "failed") return { kind: "failed", error: child.error, nested: child, childWorkflowId };
    if (child.status === "paused") {
      const pause = child.pause!;
      return {
        kind: "paused",
        nested: child,
        childWorkflowId,
        pause: {
          ...pause,
          nodeName: `${n.name}/${pause.nodeName}`,
          responseKey: n.outerOutput(pause.responseKey) ?? pause.responseKey,
        },
      };
    }
    if (child.status === "stopped" && !n.completeOnStop) return { kind: "stopped", nested: child, childWorkflowId };
    const outputs: Record<string, unknown> = {};
    for (const outer of n.outputs) {
      const inner = n.innerOutput(outer)!;
      if (Object.hasOwn(child.values, inner) && !(child.values[inner] instanceof RunResult))
        outputs[outer] = child.values[inner];
    }
    return { kind: "completed", outputs, nested: child, childWorkflowId, truncated: child.status === "stopped" };
  }

  #executeMapped(ex: Execution, n: GraphNode): Effect.Effect<Outcome, RunError> {
    return Effect.suspend(() => {
      const base = this.#childValues(ex, n);
      const items = mapItems(
        n.name,
        n.mapOverConfig!.params.map((p) => [n.innerInput(p)!, ex.inputs[p]] as const),
        n.mapOverConfig!.mode,
      );
      if (!Array.isArray(items)) return Effect.succeed<Outcome>({ kind: "failed", error: items });
      const total = items.length;
      const results = new Array<RunResult>(total);
      let completed = 0;
      const concurrency = this.config.shared.maxConcurrency ?? 256;
      const parentId = `${this.config.workflowId}/${n.name}`;
      const runItem = (item: Record<string, unknown>, i: number) => {
        const config = this.#childConfig(ex, n, `${parentId}/${i}`, {
          values: { ...base.values, ...item },
          versions: base.versions,
        });
        return new Engine(n.graph, config).run().pipe(
          Effect.ensuring(Effect.sync(() => this.config.control.release(config.control))),
          Effect.map((r) => {
            results[i] = r;
            completed++;
            this.#event("MapProgress", { nodeName: n.name, completed, total }, ex.spanId);
            return r;
          }),
        );
      };
      return Effect.forEach(items, runItem, { concurrency, discard: true }).pipe(
        Effect.map((): Outcome => {
          const outputs: Record<string, unknown> = {};
          const innerValues: Record<string, unknown[]> = {};
          for (const outer of n.outputs) {
            const inner = n.innerOutput(outer)!;
            const column = results.map((r) => r.values[inner]);
            outputs[outer] = column;
            innerValues[inner] = column;
          }
          const failedAt = results.findIndex((r) => r.status === "failed");
          const failed = failedAt < 0 ? undefined : results[failedAt];
          const stopped = results.some((r) => r.status === "stopped");
          const status: RunStatus = failed ? "failed" : stopped ? "stopped" : "completed";
          const nested = new RunResult({
            status,
            values: innerValues,
            workflowId: parentId,
            runId: this.config.runId,
            error: failed?.error,
          });
          if (failed)
            return { kind: "failed", error: itemFailure(n, failedAt, failed.error), nested, childWorkflowId: parentId };
          if (stopped && !n.completeOnStop) return { kind: "stopped", nested, childWorkflowId: parentId };
          return { kind: "completed", outputs, nested, childWorkflowId: parentId, truncated: stopped };
        }),
        Effect.catchAll((error) => Effect.succeed<Outcome>({ kind: "failed", error, childWorkflowId: parentId })),
      );
    });
  }

  /** Persists a finished node's step right away (siblings that finished before a crash stay done). */
  #afterNode(ex: Execution, o: Outcome): Effect.Effect<void, RunError> | undefined {
    (o as { index?: number }).index = this.#nextIndex++;
    const store = this.config.shared.store;
    if (store === undefined || !this.config.persist) return undefined;
    const step = this.#stepRecord(ex, o, (o as { index?: number }).index!);
    return store
      .saveStep(step, this.#fence())
      .pipe(Effect.tap(() => this.#event("CheckpointSaved", { superstep: this.#superstep, nodeName: ex.node.name })));
  }

  #fence() {
    return this.#lease === undefined ? undefined : { epoch: this.#lease.epoch };
  }

  #stepRecord(ex: Execution, o: Outcome, index: number): StepRecord {
    const now = new Date();
    const status = o.kind;
    const step: {
      -readonly [K in keyof StepRecord]: StepRecord[K];
    } = {
      workflowId: this.config.workflowId,
      superstep: this.#superstep,
      nodeName: ex.node.name,
      index,
      status,
      inputVersions: ex.versions,
      values: o.kind === "completed" ? o.outputs : {},
      truncated: o.kind === "completed" && o.truncated === true,
      startedAt: new Date(ex.startedAt),
      completedAt: now,
    };
    if (o.kind === "completed" && o.decision !== undefined) step.decision = decisionToStored(o.decision);
    if (o.childWorkflowId !== undefined) step.childWorkflowId = o.childWorkflowId;
    if (o.kind === "paused") step.pause = { value: o.pause.value, responseKey: o.pause.responseKey };
    if (o.kind === "failed") step.error = toStoredError(o.error);
    return step;
  }

  /** Applies one node's outcome to run state (all outcomes of a superstep are applied together, in node order). */
  #apply(ex: Execution, o: Outcome): void {
    const n = ex.node;
    const index = (o as { index?: number }).index!;
    if (o.nested !== undefined) this.#nested.set(n.name, o.nested);
    switch (o.kind) {
      case "completed": {
        this.#everRan.add(n.name);
        this.#ranThisRun.add(n.name);
        this.#consumed.set(n.name, ex.versions);
        this.#dirty.add(n.name);
        for (const g of this.#analysis.controllers.get(n.name)!) this.#pending.get(g)?.delete(n.name);
        for (const k in o.outputs) this.#write(k, o.outputs[k], index, n.name);
        if (n instanceof GateNode) this.#decide(n, o.decision ?? null, false);
        this.#regions.completed(n.name, o.decision, n instanceof GateNode);
        for (const r of this.#regions.drainReopened()) this.#dirty.add(r);
        if (this.config.emitter.active) {
          this.#event(
            "NodeEnd",
            {
              nodeName: n.name,
              status: "completed",
              outputs: o.outputs,
              durationMs: Date.now() - ex.startedAt,
              cached: o.cached === true,
              replayed: false,
              truncated: o.truncated === true,
            },
            ex.spanId,
          );
        }
        if (o.truncated) this.#stopped = true;
        return;
      }
      case "paused":
        this.#pause ??= o.pause;
        return;
      case "stopped":
        this.#settled.add(n.name);
        this.#stopped = true;
        this.#event(
          "NodeEnd",
          {
            nodeName: n.name,
            status: "stopped",
            outputs: {},
            durationMs: Date.now() - ex.startedAt,
            cached: false,
            replayed: false,
            truncated: false,
          },
          ex.spanId,
        );
        return;
      case "failed": {
        this.#settled.add(n.name);
        const error = o.error;
        this.#failure ??= wrapFailure(n, error);
        if (o.reported !== true)
          this.#event("NodeError", { nodeName: n.name, error, attempt: 1, willRetry: false }, ex.spanId);
        return;
      }
    }
  }

  #write(name: string, value: unknown, version: number, writer: string): void {
    this.#values.set(name, { value, version, writer });
    const consumers = this.#analysis.consumers.get(name);
    if (consumers !== undefined) for (const c of consumers) this.#dirty.add(c);
  }

  #decide(gate: GateNode, decision: readonly Target[] | null, replayed: boolean): void {
    this.#decided.add(gate.name);
    if (decision === null) this.#pending.delete(gate.name);
    else this.#pending.set(gate.name, new Set(decision));
    const mark = (g: GateNode, seen: Set<string>) => {
      for (const t of g.targets) {
        if (t === END || seen.has(t)) continue;
        seen.add(t);
        this.#dirty.add(t);
        const target = this.graph.nodes.get(t);
        if (target instanceof GateNode) mark(target, seen);
      }
    };
    mark(gate, new Set());
    if (this.config.emitter.active)
      this.#event("RouteDecision", { gate: gate.name, decision: decisionShape(gate, decision), replayed });
  }

  // ───────────────────────────────────────────── inputs, restore, finish ─────────────────────────────────────────────

  /** Writes caller values that differ from state as one input step; returns it (or undefined when nothing changed). */
  #mergeInputs(): StepRecord | undefined {
    const changed: Record<string, unknown> = {};
    const answers = responseKeys(this.graph);
    const parent = this.config.parentVersions;
    const recorded = this.#parentVersionsSeen;
    let any = false;
    let newVersions = false;
    for (const [k, v] of Object.entries(this.config.values)) {
      // A child takes only what its parent changed since it last started: its own state wins over old news
      // (a seed its loop rewrote since stays as it is). Without a stored history everything is new.
      if (parent !== undefined && recorded !== undefined) {
        if (recorded[k] === parent[k]) continue;
        newVersions = true;
      }
      const slot = this.#values.get(k);
      // An answer to an interrupt is always new, even when equal to the last one (every visit needs its own).
      if (slot !== undefined && !answers.has(k) && deepEqual(slot.value, v)) continue;
      changed[k] = v;
      any = true;
    }
    if (parent !== undefined && recorded === undefined) newVersions = true;
    if (!any && !newVersions) return undefined;
    const index = this.#nextIndex++;
    this.#turnStart = this.#newTurn ? index : this.#turnStart;
    this.#superstep++; // the input step gets its own superstep so it never replaces an earlier one
    for (const [k, v] of Object.entries(changed)) this.#write(k, v, index, INPUT_STEP);
    const now = new Date();
    return {
      workflowId: this.config.workflowId,
      superstep: this.#superstep,
      nodeName: INPUT_STEP,
      index,
      status: "completed",
      // For a child run: the parent's versions of what it passed in (compared at the next start).
      inputVersions: parent ?? {},
      values: changed,
      kind: "input",
      // Marks the start of a turn: on restore, only gate decisions and runs after it belong to the current turn.
      ...(this.#newTurn ? { turnStart: true } : {}),
      truncated: false,
      startedAt: now,
      completedAt: now,
    };
  }

  #inputView(): InputView {
    return {
      graph: this.graph,
      workflowId: this.config.workflowId,
      values: this.config.values,
      pausedAt: this.#workflow?.pause?.nodeName,
      hasStore: this.config.shared.store !== undefined,
      isChild: this.config.isChild,
    };
  }

  #checkMissing(): Effect.Effect<void, MissingInputError | UnknownValueError> {
    return Effect.suspend((): Effect.Effect<void, MissingInputError | UnknownValueError> => {
      const spec = this.graph.inputs;
      // An input only needed by nodes the caller skipped (by supplying their outputs) is not missing.
      const skipped = (name: string) => this.#skippedBySuppliedOutputs(this.graph.nodes.get(name)!);
      const missing = [...spec.required, ...spec.seeds].filter(
        (k) => !this.#values.has(k) && !(this.#analysis.consumers.get(k) ?? []).every(skipped),
      );
      const known = new Set<string>([...spec.all, ...this.graph.outputs, ...responseKeys(this.graph)]);
      const unknown = Object.keys(this.config.values).filter((k) => !known.has(k));
      if (missing.length > 0) return Effect.fail(missingInputError(this.#inputView(), missing, unknown));
      if (unknown.length === 0 || this.config.isChild) return Effect.void;
      const pending = this.#workflow?.status === "paused" ? this.#workflow.pause?.responseKey : undefined;
      const answered = pending !== undefined && Object.hasOwn(this.config.values, pending);
      if (pending !== undefined && !answered)
        return Effect.fail(unansweredPauseError(this.#inputView(), pending, unknown));
      if (this.config.unknownValues === "error")
        return Effect.fail(unknownValueError(this.#inputView(), unknown, known));
      this.#event("Warning", {
        message: `Unknown input(s) ${unknown.map((k) => `'${k}'`).join(", ")} for ${graphLabel(this.graph)}; they are ignored. Inputs: ${[...spec.all].map((k) => `'${k}'`).join(", ") || "(none)"}.`,
        unknownInputs: unknown,
      });
      return Effect.void;
    });
  }

  /** Loads the workflow (if it exists): checks the graph version, folds steps into state, restores gates. */
  #restore(): Effect.Effect<void, RunError> {
    const store = this.config.shared.store!;
    const id = this.config.workflowId;
    return store.getWorkflow(id).pipe(
      Effect.flatMap((workflow): Effect.Effect<{ steps: readonly StepRecord[]; turn: boolean }, RunError> => {
        this.#workflow = workflow;
        if (workflow !== undefined && workflow.graphHash !== this.graph.definitionHash && !this.config.force) {
          return Effect.fail(new VersionMismatchError(id, workflow.graphHash, this.graph.definitionHash));
        }
        if (workflow !== undefined)
          return store
            .getSteps(id, { includeInputs: true })
            .pipe(Effect.map((steps) => ({ steps, turn: workflow.status === "completed" })));
        const cp = this.config.checkpoint;
        this.#forked = cp === undefined ? [] : cp.steps.map((s) => ({ ...s, workflowId: id }));
        return Effect.succeed({ steps: this.#forked, turn: false });
      }),
      Effect.map(({ steps, turn }) => this.#fold(steps, turn)),
      Effect.flatMap(() => this.#restoreNested()),
    );
  }

  /** Nested RunResults of GraphNodes that finished before this run (they are replayed, not re-run). */
  #restoreNested(): Effect.Effect<void, RunError> {
    const store = this.config.shared.store!;
    const todo: Array<[GraphNode, StepRecord]> = [];
    for (const [name, step] of this.#replayedGraphNodes) {
      const n = this.graph.nodes.get(name);
      if (n instanceof GraphNode && step.childWorkflowId !== undefined) todo.push([n, step]);
    }
    if (todo.length === 0) return Effect.void;
    return Effect.forEach(
      todo,
      ([n, step]) => {
        if (n.mapOverConfig !== undefined) {
          const values: Record<string, unknown> = {};
          for (const [outer, v] of Object.entries(step.values)) values[n.innerOutput(outer) ?? outer] = v;
          this.#nested.set(
            n.name,
            new RunResult({ status: "completed", values, workflowId: step.childWorkflowId, runId: this.config.runId }),
          );
          return Effect.void;
        }
        return loadChildResult(store, step.childWorkflowId!, n.graph, this.config.runId).pipe(
          Effect.tap((r) => {
            this.#nested.set(n.name, r);
          }),
          Effect.asVoid,
        );
      },
      { discard: true },
    );
  }

  #forked: StepRecord[] = [];
  #replayedGraphNodes: Array<[string, StepRecord]> = [];
  /** This run starts a turn (a fresh workflow, or a finished one run again). */
  #newTurn = true;
  #turnStart = 0;
  #inputStep: StepRecord | undefined;

  /** Parent versions recorded by this child workflow's input steps (undefined: never started with a history). */
  #parentVersionsSeen: Record<string, number> | undefined;

  #fold(steps: readonly StepRecord[], newTurn: boolean): void {
    const sorted = [...steps].sort((a, b) => a.index - b.index);
    if (this.config.parentVersions !== undefined) {
      for (const s of sorted)
        if (s.nodeName === INPUT_STEP) this.#parentVersionsSeen = { ...this.#parentVersionsSeen, ...s.inputVersions };
    }
    const lastDecision = new Map<string, { index: number; decision: readonly Target[] | null }>();
    const lastCompleted = new Map<string, StepRecord>();
    let turnStart = 0;
    for (const s of sorted) {
      this.#nextIndex = Math.max(this.#nextIndex, s.index + 1);
      this.#superstep = Math.max(this.#superstep, s.superstep);
      for (const [k, v] of Object.entries(s.values))
        this.#values.set(k, { value: v, version: s.index, writer: s.nodeName });
      if (s.nodeName === INPUT_STEP && s.turnStart === true) {
        // A new turn began here: earlier gate decisions and runs belong to finished turns.
        turnStart = s.index;
        lastDecision.clear();
        this.#ranThisRun.clear();
        this.#regions.clear();
      }
      if (s.nodeName === INPUT_STEP || s.status !== "completed") continue;
      const node = this.graph.nodes.get(s.nodeName);
      if (node === undefined) continue;
      this.#everRan.add(s.nodeName);
      this.#consumed.set(s.nodeName, s.inputVersions);
      lastCompleted.set(s.nodeName, s);
      // Ran in the current turn: a loop entry does not get its before-the-gate run again.
      if (s.index > turnStart) this.#ranThisRun.add(s.nodeName);
      const decision = node instanceof GateNode ? decisionFromStored(s.decision) : undefined;
      if (node instanceof GateNode) lastDecision.set(node.name, { index: s.index, decision: decision ?? null });
      this.#regions.completed(s.nodeName, decision, node instanceof GateNode);
    }
    // A finished workflow run again is a new turn: gates decide afresh. Otherwise (paused, stopped, crashed) replay.
    this.#newTurn = newTurn || sorted.length === 0;
    if (newTurn) {
      this.#ranThisRun.clear();
      this.#regions.clear();
    }
    this.#regions.drainReopened(); // every node is examined at the start anyway
    if (!newTurn) {
      for (const [gate, { index, decision }] of lastDecision) {
        this.#decided.add(gate);
        if (decision === null) continue;
        const pending = new Set<Target>(
          decision.filter((t) => t === END || !((lastCompleted.get(t as string)?.index ?? -1) > index)),
        );
        this.#pending.set(gate, pending);
        this.#event("RouteDecision", {
          gate,
          decision: decisionShape(this.graph.nodes.get(gate) as GateNode, decision),
          replayed: true,
        });
      }
    }
    this.#replayedGraphNodes = [...lastCompleted].filter(([name]) => this.graph.nodes.get(name) instanceof GraphNode);
    for (const [name, s] of lastCompleted) {
      if (this.graph.nodes.get(name) instanceof GateNode) continue;
      this.#event("NodeEnd", {
        nodeName: name,
        status: "completed",
        outputs: s.values,
        durationMs: 0,
        cached: false,
        replayed: true,
        truncated: s.truncated,
      });
    }
    this.#inputStep = this.#mergeInputs();
  }

  /** Creates/claims the workflow and writes the forked history and the input step. */
  #begin(): Effect.Effect<void, RunError> {
    const store = this.config.shared.store!;
    const id = this.config.workflowId;
    const shared = this.config.shared;
    const create =
      this.#workflow !== undefined
        ? Effect.void
        : store
            .createWorkflow({
              id,
              graphName: this.graph.name ?? "graph",
              graphHash: this.graph.definitionHash,
              ...(this.config.parentWorkflowId === undefined ? {} : { parentId: this.config.parentWorkflowId }),
            })
            .pipe(Effect.asVoid);
    const claim = this.config.isChild
      ? Effect.void
      : store.claimWorkflow(id, { owner: shared.owner, ttlMs: shared.leaseTtlMs }).pipe(
          Effect.tap((lease) => {
            this.#lease = lease;
          }),
          Effect.asVoid,
        );
    return create.pipe(
      Effect.zipRight(claim),
      // A workflow created just now is already "running" with no pause or error: skip a write.
      Effect.flatMap(() =>
        this.#workflow === undefined
          ? Effect.void
          : Effect.asVoid(
              store.updateWorkflow(
                id,
                {
                  status: "running",
                  pause: null,
                  error: null,
                  ...(this.config.force ? { graphHash: this.graph.definitionHash } : {}),
                },
                this.#fence(),
              ),
            ),
      ),
      Effect.flatMap(() => Effect.forEach(this.#forked, (s) => store.saveStep(s, this.#fence()), { discard: true })),
      Effect.flatMap(() =>
        this.#inputStep === undefined ? Effect.void : store.saveStep(this.#inputStep, this.#fence()),
      ),
      Effect.tap(() => (this.#lease === undefined ? Effect.void : this.#startRenewal())),
    );
  }

  #renewal: ReturnType<typeof setInterval> | undefined;
  #startRenewal(): Effect.Effect<void> {
    return Effect.sync(() => {
      const store = this.config.shared.store!;
      const every = Math.max(50, Math.floor(this.config.shared.leaseTtlMs / 3));
      this.#renewal = setInterval(() => {
        Effect.runPromise(
          Effect.either(
            store.claimWorkflow(this.config.workflowId, {
              owner: this.config.shared.owner,
              ttlMs: this.config.shared.leaseTtlMs,
            }),
          ),
        ).catch(() => {});
      }, every);
      this.#renewal.unref?.();
    });
  }

  #stopRenewal(): void {
    if (this.#renewal !== undefined) clearInterval(this.#renewal);
    this.#renewal = undefined;
  }

  #status(): RunStatus {
    if (this.#failure !== undefined) return "failed";
    if (this.#pause !== undefined) return "paused";
    if (this.#stopped || this.config.control.stopRequested) return "stopped";
    return "completed";
  }

  /** The produced outputs (not the inputs) plus nested results. */
  #resultValues(): Record<string, unknown> {
    const values: Record<string, unknown> = {};
    for (const [k, slot] of this.#values) if (slot.writer !== INPUT_STEP) values[k] = slot.value;
    for (const [k, nested] of this.#nested) values[k] = nested;
    return values;
  }

  #result(): RunResult {
    const status = this.#status();
    return new RunResult({
      status,
      values: this.#resultValues(),
      workflowId: this.config.workflowId,
      runId: this.config.runId,
      pause: status === "paused" ? this.#pause : undefined,
      error: status === "failed" ? this.#failure : undefined,
    });
  }

  #finish(): Effect.Effect<RunResult, RunError> {
    return Effect.suspend(() => {
      this.#stopRenewal();
      const result = this.#result();
      const store = this.config.shared.store;
      const end = () =>
        this.#event("RunEnd", {
          status: result.status,
          durationMs: Date.now() - this.#startedAt,
          ...(result.error === undefined ? {} : { error: result.error }),
        });
      if (store === undefined || !this.config.persist) {
        end();
        return Effect.succeed(result);
      }
      const id = this.config.workflowId;
      const update = {
        status: result.status,
        pause:
          result.pause === undefined
            ? null
            : { nodeName: result.pause.nodeName, value: result.pause.value, responseKey: result.pause.responseKey },
        error: result.error === undefined ? null : toStoredError(result.error),
      };
      return store.updateWorkflow(id, update, this.#fence()).pipe(
        Effect.zipRight(this.config.isChild ? Effect.void : store.flush(id)),
        Effect.zipRight(this.#lease === undefined ? Effect.void : store.releaseWorkflow(id, this.#lease)),
        Effect.map(() => {
          end();
          return result;
        }),
      );
    });
  }

  /** On a typed failure or interruption: stop renewing, flush what was saved, give the lease back. */
  #abandon(): Effect.Effect<void> {
    return Effect.suspend(() => {
      this.#stopRenewal();
      this.#event("RunEnd", { status: "failed", durationMs: Date.now() - this.#startedAt });
      const store = this.config.shared.store;
      if (store === undefined || this.#lease === undefined) return Effect.void;
      const id = this.config.workflowId;
      return store
        .flush(id)
        .pipe(
          Effect.zipRight(store.updateWorkflow(id, { status: "failed" }, this.#fence())),
          Effect.zipRight(store.releaseWorkflow(id, this.#lease)),
          Effect.ignore,
        );
    });
  }

  /** Result-so-far (for NodeExecutionError.partialResult). */
  partialResult(): RunResult {
    return this.#result();
  }

  get failure(): unknown {
    return this.#failure;
  }

  get lastCandidates(): readonly string[] {
    return this.#lastCandidates;
  }
}

/** The outcome of a sync-declared node that returned a Promise: already called, awaited with the superstep. */
class Later {
  readonly outcome: Effect.Effect<Outcome>;
  constructor(outcome: Effect.Effect<Outcome>) {
    this.outcome = outcome;
  }
}

interface ChildValues {
  readonly values: Record<string, unknown>;
  readonly versions: Record<string, number>;
}

/** The RouteDecision event's shape: the target (or END) for single-choice gates, a list only for multiTarget. */
function decisionShape(gate: GateNode, decision: readonly Target[] | null): Target | readonly Target[] | null {
  if (decision === null || gate.multiTarget) return decision;
  return decision[0] ?? null;
}

/** A mapped item's failure names the item: `sq[7]/square`, not only the inner node. */
function itemFailure(n: GraphNode, index: number, error: unknown): unknown {
  if (isTaggedError(error, "NodeExecutionError")) {
    const inner = error as NodeExecutionError;
    return new NodeExecutionError(`${n.name}[${index}]/${inner.nodeName}`, inner.cause);
  }
  return error;
}

function wrapFailure(n: AnyNode, error: unknown): unknown {
  if (isTaggedError(error, "RoutingError")) return error;
  if (isTaggedError(error, "NodeExecutionError") && (error as NodeExecutionError).nodeName.startsWith(`${n.name}[`))
    return error;
  if (n instanceof GraphNode && isTaggedError(error, "NodeExecutionError")) {
    const inner = error as NodeExecutionError;
    return new NodeExecutionError(`${n.name}/${inner.nodeName}`, inner.cause);
  }
  if (isTaggedError(error, "NodeExecutionError")) return error;
  if (n instanceof GraphNode && error !== null && typeof error === "object" && "_tag" in error) return error;
  return new NodeExecutionError(n.name, error);
}

function joinChunks(chunks: readonly unknown[]): unknown {
  return chunks.every((c) => typeof c === "string") ? chunks.join("") : [...chunks];
}

function retryDelay(retry: NonNullable<FunctionNode["retry"]>, attempt: number): number {
  const initial = retry.initialDelayMs ?? 100;
  const max = retry.maxDelayMs ?? 30_000;
  const backoff = retry.backoff ?? "exponential";
  const raw =
    backoff === "constant" ? initial : backoff === "linear" ? initial * attempt : initial * 2 ** (attempt - 1);
  return Math.min(raw, max);
}

function structuredCloneSafe(value: unknown): unknown {
  try {
    return structuredClone(value);
  } catch {
    return value;
  }
}

/** Items of a mapOver: zip (equal lengths) or product (first parameter slowest). Returns an Error on bad input. */
export function mapItems(
  where: string,
  params: readonly (readonly [string, unknown])[],
  mode: "zip" | "product",
): Record<string, unknown>[] | Error {
  for (const [name, value] of params) {
    if (!Array.isArray(value)) {
      return new TypeError(
        `'${where}' maps over '${name}', which must be an array but is ${value === null ? "null" : typeof value}.`,
      );
    }
  }
  const lists = params.map(([, v]) => v as unknown[]);
  if (mode === "zip") {
    const lengths = lists.map((l) => l.length);
    if (new Set(lengths).size > 1) {
      return new TypeError(
        `'${where}' zips inputs of different lengths: ${params.map(([n], i) => `'${n}' has ${lengths[i]}`).join(", ")}.\n  How to fix: pass equal-length arrays, or use mode "product".`,
      );
    }
    const length = lengths[0] ?? 0;
    const out: Record<string, unknown>[] = new Array(length);
    for (let i = 0; i < length; i++) {
      const item: Record<string, unknown> = {};
      params.forEach(([name], j) => {
        item[name] = lists[j]![i];
      });
      out[i] = item;
    }
    return out;
  }
  let out: Record<string, unknown>[] = [{}];
  params.forEach(([name], j) => {
    const next: Record<string, unknown>[] = [];
    for (const partial of out) for (const v of lists[j]!) next.push({ ...partial, [name]: v });
    out = next;
  });
  return lists.some((l) => l.length === 0) ? [] : out;
}

/** The `ctx` argument of node functions. A class (not an object literal with getters) keeps the hot path cheap. */
class NodeCtx {
  readonly #engine: Engine;
  readonly #ex: Execution;
  #controller: AbortController | undefined;
  readonly attempt: number;
  #chunks = 0;
  constructor(engine: Engine, ex: Execution, controller: AbortController | undefined, attempt: number) {
    this.#engine = engine;
    this.#ex = ex;
    this.#controller = controller;
    this.attempt = attempt;
  }
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#engine.config.control.stopRequested) this.#controller.abort(this.#engine.config.control.stopInfo);
    }
    return this.#controller.signal;
  }
  get stopRequested(): boolean {
    return this.#engine.config.control.stopRequested;
  }
  get workflowId(): string {
    return this.#engine.config.workflowId;
  }
  get runId(): string {
    return this.#engine.config.runId;
  }
  get nodeName(): string {
    return this.#ex.node.name;
  }
  emit(chunk: unknown): void {
    this.#engine.emitChunk(this.#ex, chunk, this.#chunks++);
  }
}

/** Rebuilds a finished child run's RunResult from storage (its produced values and its own nested results). */
function loadChildResult(
  store: NonNullable<RunConfig["shared"]["store"]>,
  workflowId: string,
  graph: Graph,
  runId: string,
): Effect.Effect<RunResult, RunError> {
  return Effect.all([store.getWorkflow(workflowId), store.getSteps(workflowId)]).pipe(
    Effect.flatMap(([workflow, steps]) => {
      const values: Record<string, unknown> = {};
      const children: Array<[GraphNode, string]> = [];
      for (const s of [...steps].sort((a, b) => a.index - b.index)) {
        if (s.nodeName === INPUT_STEP) continue;
        Object.assign(values, s.values);
        const n = graph.nodes.get(s.nodeName);
        if (n instanceof GraphNode && s.childWorkflowId !== undefined && s.status === "completed")
          children.push([n, s.childWorkflowId]);
      }
      const status: RunStatus =
        workflow?.status === "running" || workflow === undefined ? "completed" : workflow.status;
      return Effect.forEach(children, ([n, id]) =>
        n.mapOverConfig !== undefined
          ? Effect.succeed(undefined)
          : loadChildResult(store, id, n.graph, runId).pipe(
              Effect.tap((r) => {
                values[n.name] = r;
              }),
              Effect.asVoid,
            ),
      ).pipe(Effect.map(() => new RunResult({ status, values, workflowId, runId })));
    }),
  );
}
