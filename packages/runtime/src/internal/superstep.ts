import type { AnyNode, GateNode } from "@graph/core";
import * as Effect from "effect/Effect";
import type { PauseInfo } from "../RunResult.js";
import { nextSpanId } from "./context.js";
import { eventKey } from "./eventKey.js";
import { collect, isPlain, runPlain } from "./executors/plain.js";
import { execute } from "./executors/table.js";
import type { EngineHost } from "./host.js";
import type { Journal } from "./journal.js";
import {
  Completed,
  decisionShape,
  Execution,
  isThenable,
  type Outcome,
  type RunError,
  stopped,
  wrapFailure,
} from "./outcome.js";
import type { NodePlan } from "./plan.js";
import { SETTLED } from "./state.js";

/** runSuperstep's answer while plain nodes are under way: the superstep calls `resume` once it is applied. */
export const WAITING = Symbol("waiting");

/**
 * Runs one superstep: every ready node starts now, their outcomes are applied together once all finished.
 * Returns undefined when everything ran inline; WAITING while plain nodes' promises are awaited (no Effect
 * involved: `resume` is called once the superstep is applied); or an Effect when a node needs one (nested graphs,
 * interrupts, retries, timeouts, cache) or a step is saved through an Effect (a store with durability "sync").
 */
export function runSuperstep(
  host: EngineHost,
  journal: Journal,
  ready: readonly NodePlan[],
  resume: () => void,
): typeof WAITING | Effect.Effect<void, RunError> | undefined {
  const { config, state } = host;
  const active = config.emitter.active;
  const timed = active || config.shared.store !== undefined;
  const executions = new Array<Execution>(ready.length);
  for (let i = 0; i < ready.length; i++) {
    const plan = ready[i]!;
    // A gate about to decide again forgets its previous decision first (no extra loop iteration).
    if (plan.isGate) state.pending.delete(plan.name);
    executions[i] = resolveInputs(host, plan, active ? nextSpanId(config.shared) : host.spanId, timed ? Date.now() : 0);
  }
  // Nodes started before a stop are cut off by it (their late results are dropped); later ones run to the end.
  const cuttable = !config.control.stopRequested;
  let effects: Effect.Effect<void, RunError>[] | undefined;
  let pending: Execution[] | undefined;
  let promises: PromiseLike<unknown>[] | undefined;
  for (let i = 0; i < executions.length; i++) {
    const ex = executions[i]!;
    if (active)
      host.event("NodeStart", { nodeName: ex.node.name, nodeType: ex.node.nodeType, inputs: ex.inputs }, ex.spanId);
    if (isPlain(host, ex)) {
      const o = runPlain(host, ex);
      if (isThenable(o)) {
        (pending ??= []).push(ex);
        (promises ??= []).push(o);
      } else {
        ex.outcome = o;
        const save = journal.record(ex, o);
        if (save !== undefined) (effects ??= []).push(save);
      }
    } else {
      (effects ??= []).push(
        execute(host, ex).pipe(
          Effect.flatMap((o) => {
            ex.outcome = o;
            return journal.record(ex, o) ?? Effect.void;
          }),
        ),
      );
    }
  }
  if (pending !== undefined && effects === undefined && journal.inline) {
    const wait = new PlainWait(host, journal, executions, pending.length, resume);
    for (let k = 0; k < pending.length; k++) {
      const ex = pending[k]!;
      promises![k]!.then(
        (value) => wait.settle(ex, collect(ex, value)),
        (error: unknown) => wait.settle(ex, { kind: "failed", error }),
      );
    }
    if (cuttable) config.control.setWaiter(wait);
    return WAITING;
  }
  if (pending !== undefined) {
    const stop = cuttable ? stopGate(host) : undefined;
    for (let k = 0; k < pending.length; k++) {
      const ex = pending[k]!;
      const settled = Promise.resolve(promises![k]!).then(
        (value) => collect(ex, value),
        (error: unknown): Outcome => ({ kind: "failed", error }),
      );
      const raced = stop === undefined ? settled : Promise.race([settled, stop]);
      (effects ??= []).push(
        Effect.promise(() => raced).pipe(
          Effect.flatMap((o) => {
            ex.outcome = o;
            return journal.record(ex, o) ?? Effect.void;
          }),
        ),
      );
    }
  }
  if (effects === undefined) {
    applyOutcomes(host, executions);
    return undefined;
  }
  const all = effects.length === 1 ? effects[0]! : Effect.all(effects, { concurrency: "unbounded", discard: true });
  return Effect.zipRight(
    all,
    Effect.sync(() => {
      config.control.setWaiter(undefined);
      applyOutcomes(host, executions);
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
  readonly #resume: () => void;
  #left: number;
  #done = false;

  constructor(host: EngineHost, journal: Journal, executions: readonly Execution[], left: number, resume: () => void) {
    this.#host = host;
    this.#journal = journal;
    this.#executions = executions;
    this.#left = left;
    this.#resume = resume;
  }

  settle(ex: Execution, o: Outcome): void {
    if (this.#done) return; // a late result after a stop: dropped
    ex.outcome = o;
    this.#journal.record(ex, o);
    if (--this.#left > 0) return;
    this.#host.config.control.setWaiter(undefined);
    this.#finish();
    this.#resume();
  }

  /** The run was stopped: nodes still running end as stopped. */
  cut(): void {
    if (this.#done) return;
    for (const ex of this.#executions) {
      if (ex.outcome !== undefined) continue;
      const o = stopped();
      ex.outcome = o;
      this.#journal.record(ex, o);
    }
    this.#finish();
    // The stop may arrive while the superstep is still starting its nodes: resume from a fresh microtask.
    queueMicrotask(this.#resume);
  }

  #finish(): void {
    this.#done = true;
    applyOutcomes(this.#host, this.#executions);
  }
}

/** A promise of "stopped" that settles when the run is stopped (for racing plain nodes inside an Effect). */
function stopGate(host: EngineHost): Promise<Outcome> {
  return new Promise<Outcome>((resolve) => host.config.control.setWaiter({ cut: () => resolve(stopped()) }));
}

function resolveInputs(host: EngineHost, plan: NodePlan, spanId: string, startedAt: number): Execution {
  const values = host.state.values;
  const { data, versions, writers } = values;
  const names = plan.inputs;
  const ids = plan.inputIds;
  const n = plan.node;
  const inputs: Record<string, unknown> = {};
  // Sized up front: it outlives the superstep (what the node consumed), so no spare capacity.
  const list = new Array<number>(names.length);
  for (let i = 0; i < names.length; i++) {
    const input = names[i]!;
    const id = ids[i]!;
    if (writers[id] !== undefined) {
      inputs[input] = data[id];
      list[i] = versions[id]!;
      continue;
    }
    list[i] = 0;
    if (plan.bound[i]) inputs[input] = structuredCloneSafe(host.graph.inputs.bound[input]);
    else if (n.kind === "function") {
      const d = n.defaultValue(input);
      if (d !== undefined) inputs[input] = d.value;
    }
  }
  const response = plan.responseKey === undefined ? undefined : values.get(plan.responseKey)?.version;
  return new Execution(plan, inputs, list, response, spanId, startedAt);
}

function structuredCloneSafe(value: unknown): unknown {
  try {
    return structuredClone(value);
  } catch {
    return value;
  }
}

/**
 * Applies the outcomes of a superstep to run state, in the scheduler's order; Paused comes after every sibling's
 * NodeEnd. Branch regions change once for the whole superstep, and when several nodes fail (or pause) the one whose
 * name sorts first is reported: nothing depends on the order the nodes finished or were listed in.
 */
function applyOutcomes(host: EngineHost, executions: readonly Execution[]): void {
  const { state } = host;
  // The gates' decisions come after every run of the superstep is applied: a target that ran beside its gate ran
  // before that decision existed, so it does not consume it (whatever the order of the two in the superstep).
  let decisions: Execution[] | undefined;
  for (let i = 0; i < executions.length; i++) {
    const ex = executions[i]!;
    if (applyOutcome(host, ex, ex.outcome!)) (decisions ??= []).push(ex);
  }
  if (decisions !== undefined)
    for (const ex of decisions) {
      const o = ex.outcome as Extract<Outcome, { kind: "completed" }>;
      state.decide(ex.node as GateNode, o.decision ?? null);
    }
  state.regions.flush();
  for (const r of state.regions.drainReopened()) state.touch(r);
  for (const c of state.regions.drainClosed()) state.closedGate(c);
  let failed: Execution | undefined;
  let paused: Execution | undefined;
  for (let i = 0; i < executions.length; i++) {
    const ex = executions[i]!;
    const kind = ex.outcome!.kind;
    if (kind === "failed" && (failed === undefined || ex.node.name < failed.node.name)) failed = ex;
    if (kind === "paused" && (paused === undefined || ex.node.name < paused.node.name)) paused = ex;
  }
  if (failed !== undefined && state.failure === undefined) {
    const o = failed.outcome as Extract<Outcome, { kind: "failed" }>;
    state.failure = wrapFailure(failed.node, o.error);
  }
  if (paused !== undefined && state.pause === undefined)
    state.pause = (paused.outcome as Extract<Outcome, { kind: "paused" }>).pause;
  for (let i = 0; i < executions.length; i++) {
    const o = executions[i]!.outcome!;
    if (o.kind !== "paused") continue;
    const wakeAt = o.pause.wakeAt?.getTime();
    noteTimes(host, executions[i]!, o.pause, wakeAt);
    host.event(
      "Paused",
      {
        reason: o.pause.reason,
        nodeName: o.pause.nodeName,
        value: o.pause.value,
        responseKey: o.pause.responseKey,
        ...(wakeAt === undefined ? {} : { wakeAt }),
      },
      executions[i]!.spanId,
    );
  }
}

/**
 * Keeps what the workflow record stores for its pauses: the earliest due time (of any pause, nested ones too: a
 * resume of the root re-runs them) and the event of this graph's first `waitFor` by name (`runner.send` resumes the
 * root with the payload under the pause's response key, which only a pause of the root's own graph can take).
 */
function noteTimes(host: EngineHost, ex: Execution, pause: PauseInfo, wakeAt: number | undefined): void {
  const { state } = host;
  if (wakeAt !== undefined && (state.wakeAt === undefined || wakeAt < state.wakeAt)) state.wakeAt = wakeAt;
  const wait = pause.waitingFor;
  if (wait === undefined || ex.node.kind !== "interrupt") return;
  if (state.waitingFor === undefined || ex.node.name < state.waitingFor.nodeName)
    state.waitingFor = { event: wait.event, key: eventKey(wait.match), nodeName: ex.node.name };
}

/** Applies one node's outcome; true when it is a gate's decision, which the caller records once all runs are applied. */
function applyOutcome(host: EngineHost, ex: Execution, o: Outcome): boolean {
  const { state, config } = host;
  const n = ex.node;
  const plan = ex.plan;
  if (o.nested !== undefined) state.nested.set(n.name, o.nested);
  switch (o.kind) {
    case "completed": {
      if (o instanceof Completed) {
        state.completedPlan(plan, ex.list, o.values, o.index!, ex.responseVersion);
        // A plain function node: no decision, nothing nested, never truncated or cached.
        if (plan.inGatedLoop) state.regions.completed(n.name, undefined, false);
        if (config.emitter.active)
          host.event("NodeEnd", endFields(n, ex, "completed", o.outputs, false, false), ex.spanId);
        return false;
      }
      state.completedPlan(plan, ex.list, o.outputs, o.index!, ex.responseVersion);
      if (n.kind === "gate") {
        const decision = o.decision ?? null;
        if (config.emitter.active)
          host.event("RouteDecision", { gate: n.name, decision: decisionShape(n, decision), replayed: false });
      }
      if (plan.inGatedLoop) state.regions.completed(n.name, o.decision, plan.isGate);
      if (config.emitter.active)
        host.event(
          "NodeEnd",
          endFields(n, ex, "completed", o.outputs, o.cached === true, o.truncated === true),
          ex.spanId,
        );
      if (o.truncated) state.stopped = true;
      return n.kind === "gate";
    }
    case "paused": // reported by applyOutcomes (the first by name, when several pause)
      return false;
    case "stopped":
      state.flags[ex.plan.id]! |= SETTLED;
      state.stopped = true;
      host.event("NodeEnd", endFields(n, ex, "stopped", {}, false, false), ex.spanId);
      return false;
    case "failed": {
      state.flags[ex.plan.id]! |= SETTLED; // state.failure: set by applyOutcomes (the first by name)
      if (o.reported !== true)
        host.event("NodeError", { nodeName: n.name, error: o.error, attempt: 1, willRetry: false }, ex.spanId);
      return false;
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
