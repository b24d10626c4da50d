import { type AnyNode, FunctionNode, GateNode, GraphNode, InterruptNode } from "@graph/core";
import { Effect } from "effect";
import { nextSpanId } from "./context.js";
import { executeFunction } from "./executors/function.js";
import { executeGraph } from "./executors/graph.js";
import { executeInterrupt } from "./executors/interrupt.js";
import { collect, isPlain, runPlain } from "./executors/plain.js";
import type { EngineHost } from "./host.js";
import type { Journal } from "./journal.js";
import {
  decisionShape,
  type Execution,
  isThenable,
  type Outcome,
  type RunError,
  stopped,
  wrapFailure,
} from "./outcome.js";

/** runSuperstep's answer while plain nodes are under way: the superstep calls `resume` once it is applied. */
export const WAITING = Symbol("waiting");

/**
 * Runs one superstep: every ready node starts now, their outcomes are applied together once all finished.
 * Returns undefined when everything ran inline; WAITING while plain nodes' promises are awaited (no Effect
 * involved: `resume` is called once the superstep is applied); or an Effect when a node needs one (nested graphs,
 * interrupts, retries, timeouts, cache) or steps are saved.
 */
export function runSuperstep(
  host: EngineHost,
  journal: Journal,
  ready: readonly AnyNode[],
  resume: () => void,
): typeof WAITING | Effect.Effect<void, RunError> | undefined {
  const { config, state } = host;
  const active = config.emitter.active;
  const timed = active || config.shared.store !== undefined;
  const executions = new Array<Execution>(ready.length);
  for (let i = 0; i < ready.length; i++) {
    const n = ready[i]!;
    // A gate about to decide again forgets its previous decision first (no extra loop iteration).
    if (n instanceof GateNode) state.pending.delete(n.name);
    executions[i] = resolveInputs(host, n, active ? nextSpanId(config.shared) : host.spanId, timed ? Date.now() : 0);
  }
  // Nodes started before a stop are cut off by it (their late results are dropped); later ones run to the end.
  const cuttable = !config.control.stopRequested;
  const outcomes = new Array<Outcome | undefined>(executions.length);
  const effects: Effect.Effect<void, RunError>[] = [];
  let pending: number[] | undefined;
  let promises: PromiseLike<unknown>[] | undefined;
  for (let i = 0; i < executions.length; i++) {
    const ex = executions[i]!;
    if (active)
      host.event("NodeStart", { nodeName: ex.node.name, nodeType: ex.node.nodeType, inputs: ex.inputs }, ex.spanId);
    if (isPlain(host, ex.node)) {
      const o = runPlain(host, ex);
      if (isThenable(o)) {
        (pending ??= []).push(i);
        (promises ??= []).push(o);
      } else {
        outcomes[i] = o;
        const save = journal.record(ex, o);
        if (save !== undefined) effects.push(save);
      }
    } else {
      effects.push(
        execute(host, ex).pipe(
          Effect.flatMap((o) => {
            outcomes[i] = o;
            return journal.record(ex, o) ?? Effect.void;
          }),
        ),
      );
    }
  }
  if (pending !== undefined && effects.length === 0 && config.shared.store === undefined) {
    const wait = new PlainWait(host, journal, executions, outcomes, pending.length, resume);
    for (let k = 0; k < pending.length; k++) {
      const i = pending[k]!;
      const n = executions[i]!.node as FunctionNode;
      promises![k]!.then(
        (value) => wait.settle(i, collect(n, value)),
        (error: unknown) => wait.settle(i, { kind: "failed", error }),
      );
    }
    if (cuttable) config.control.setWaiter(() => wait.cut());
    return WAITING;
  }
  if (pending !== undefined) {
    const stop = cuttable ? stopGate(host) : undefined;
    for (let k = 0; k < pending.length; k++) {
      const i = pending[k]!;
      const ex = executions[i]!;
      const n = ex.node as FunctionNode;
      const settled = Promise.resolve(promises![k]!).then(
        (value) => collect(n, value),
        (error: unknown): Outcome => ({ kind: "failed", error }),
      );
      const raced = stop === undefined ? settled : Promise.race([settled, stop]);
      effects.push(
        Effect.promise(() => raced).pipe(
          Effect.flatMap((o) => {
            outcomes[i] = o;
            return journal.record(ex, o) ?? Effect.void;
          }),
        ),
      );
    }
  }
  if (effects.length === 0) {
    applyOutcomes(host, executions, outcomes as Outcome[]);
    return undefined;
  }
  const all = effects.length === 1 ? effects[0]! : Effect.all(effects, { concurrency: "unbounded", discard: true });
  return Effect.zipRight(
    all,
    Effect.sync(() => {
      config.control.setWaiter(undefined);
      applyOutcomes(host, executions, outcomes as Outcome[]);
    }),
  );
}

/**
 * A superstep awaiting plain nodes' promises: numbers their steps in the order they finished, applies the
 * superstep once all settled — or at once when the run is stopped (nodes still running count as stopped, their
 * late results are dropped) — and resumes the loop.
 */
class PlainWait {
  readonly #host: EngineHost;
  readonly #journal: Journal;
  readonly #executions: readonly Execution[];
  readonly #outcomes: Array<Outcome | undefined>;
  readonly #resume: () => void;
  #left: number;
  #done = false;

  constructor(
    host: EngineHost,
    journal: Journal,
    executions: readonly Execution[],
    outcomes: Array<Outcome | undefined>,
    left: number,
    resume: () => void,
  ) {
    this.#host = host;
    this.#journal = journal;
    this.#executions = executions;
    this.#outcomes = outcomes;
    this.#left = left;
    this.#resume = resume;
  }

  settle(i: number, o: Outcome): void {
    if (this.#done) return; // a late result after a stop: dropped
    this.#outcomes[i] = o;
    this.#journal.record(this.#executions[i]!, o);
    if (--this.#left > 0) return;
    this.#host.config.control.setWaiter(undefined);
    this.#finish();
    this.#resume();
  }

  cut(): void {
    if (this.#done) return;
    for (let i = 0; i < this.#executions.length; i++) {
      if (this.#outcomes[i] !== undefined) continue;
      const o = stopped();
      this.#outcomes[i] = o;
      this.#journal.record(this.#executions[i]!, o);
    }
    this.#finish();
    // The stop may arrive while the superstep is still starting its nodes: resume from a fresh microtask.
    queueMicrotask(this.#resume);
  }

  #finish(): void {
    this.#done = true;
    applyOutcomes(this.#host, this.#executions, this.#outcomes as Outcome[]);
  }
}

/** A promise of "stopped" that settles when the run is stopped (for racing plain nodes inside an Effect). */
function stopGate(host: EngineHost): Promise<Outcome> {
  return new Promise<Outcome>((resolve) => host.config.control.setWaiter(() => resolve(stopped())));
}

function execute(host: EngineHost, ex: Execution): Effect.Effect<Outcome, RunError> {
  const n = ex.node;
  if (n instanceof GraphNode) return executeGraph(host, ex, n);
  if (n instanceof InterruptNode) return executeInterrupt(host, ex, n);
  return executeFunction(host, ex, n as FunctionNode);
}

function resolveInputs(host: EngineHost, n: AnyNode, spanId: string, startedAt: number): Execution {
  const { state, graph } = host;
  const bound = graph.inputs.bound;
  const inputs: Record<string, unknown> = {};
  // Internal bookkeeping keyed by each node's own input names: a dictionary from the start, so thousands of
  // distinct names don't each add a hidden class (the node function gets an ordinary object).
  const versions = Object.create(null) as Record<string, number>;
  for (const input of n.inputs) {
    const slot = state.values.get(input);
    if (slot !== undefined) {
      inputs[input] = slot.value;
      versions[input] = slot.version;
    } else if (Object.hasOwn(bound, input)) {
      inputs[input] = structuredCloneSafe(bound[input]);
      versions[input] = 0;
    } else {
      versions[input] = 0;
      if (n instanceof FunctionNode) {
        const d = n.defaultValue(input);
        if (d !== undefined) inputs[input] = d.value;
      }
    }
  }
  if (n instanceof InterruptNode) {
    const response = state.values.get(n.responseKey);
    if (response !== undefined) versions[n.responseKey] = response.version;
  }
  return { node: n, inputs, versions, spanId, startedAt };
}

function structuredCloneSafe(value: unknown): unknown {
  try {
    return structuredClone(value);
  } catch {
    return value;
  }
}

/** Applies the outcomes of a superstep to run state, in node order; Paused comes after every sibling's NodeEnd. */
function applyOutcomes(host: EngineHost, executions: readonly Execution[], outcomes: readonly Outcome[]): void {
  for (let i = 0; i < executions.length; i++) applyOutcome(host, executions[i]!, outcomes[i]!);
  for (let i = 0; i < executions.length; i++) {
    const o = outcomes[i]!;
    if (o.kind === "paused")
      host.event(
        "Paused",
        { nodeName: o.pause.nodeName, value: o.pause.value, responseKey: o.pause.responseKey },
        executions[i]!.spanId,
      );
  }
}

function applyOutcome(host: EngineHost, ex: Execution, o: Outcome): void {
  const { state, config } = host;
  const n = ex.node;
  if (o.nested !== undefined) state.nested.set(n.name, o.nested);
  switch (o.kind) {
    case "completed": {
      state.completed(n.name, ex.versions, o.outputs, o.index!);
      if (n instanceof GateNode) {
        const decision = o.decision ?? null;
        state.decide(n, decision);
        if (config.emitter.active)
          host.event("RouteDecision", { gate: n.name, decision: decisionShape(n, decision), replayed: false });
      }
      state.regions.completed(n.name, o.decision, n instanceof GateNode);
      for (const r of state.regions.drainReopened()) state.dirty.add(r);
      if (config.emitter.active)
        host.event(
          "NodeEnd",
          endFields(n, ex, "completed", o.outputs, o.cached === true, o.truncated === true),
          ex.spanId,
        );
      if (o.truncated) state.stopped = true;
      return;
    }
    case "paused":
      state.pause ??= o.pause;
      return;
    case "stopped":
      state.settled.add(n.name);
      state.stopped = true;
      host.event("NodeEnd", endFields(n, ex, "stopped", {}, false, false), ex.spanId);
      return;
    case "failed": {
      state.settled.add(n.name);
      state.failure ??= wrapFailure(n, o.error);
      if (o.reported !== true)
        host.event("NodeError", { nodeName: n.name, error: o.error, attempt: 1, willRetry: false }, ex.spanId);
      return;
    }
  }
}

function endFields(
  n: AnyNode,
  ex: Execution,
  status: "completed" | "stopped",
  outputs: Record<string, unknown>,
  cached: boolean,
  truncated: boolean,
) {
  return {
    nodeName: n.name,
    status,
    outputs,
    durationMs: Date.now() - ex.startedAt,
    cached,
    replayed: false,
    truncated,
  };
}
