import { INPUT_STEP, type UsageRecord } from "@graph/checkpoint";
import { END, type GateNode, type Graph, type Target } from "@graph/core";
import type { PauseInfo, RunResult, RunStatus } from "../RunResult.js";
import { type GraphPlan, type NodePlan, planOf } from "./plan.js";
import { ClosedRegions } from "./regions.js";
import { ValueStore } from "./values.js";

/** Node flags in {@link RunState.flags}: completed at least once in this workflow. */
export const EVER_RAN = 1;
/** Completed in the current turn (a loop entry does not get its before-the-gate run again). */
export const RAN_THIS_RUN = 2;
/** Stopped or failed in this run: not retried within it. */
export const SETTLED = 4;

/**
 * The state of one run of one graph: values with their versions, what each node last consumed, gate decisions,
 * and the set of nodes whose readiness must be re-examined (`dirty`). Plain data plus the two writes that mark
 * nodes dirty; readiness (readiness.ts) only reads it.
 */
export class RunState {
  readonly graph: Graph;
  readonly values: ValueStore;
  /** Per node (by plan id): the input versions it consumed when it last completed, aligned with its inputs. */
  readonly consumed: Array<readonly number[] | undefined>;
  /** Interrupts: the version of the answer each took when it last completed. */
  readonly answers = new Map<string, number>();
  /** Per node (by plan id): {@link EVER_RAN}, {@link RAN_THIS_RUN} (this turn) and {@link SETTLED} bits. */
  readonly flags: Uint8Array;
  /** Gate → targets it chose that have not run since. */
  readonly pending = new Map<string, Set<Target>>();
  readonly decided = new Set<string>();
  readonly nested = new Map<string, RunResult>();
  /** Nodes to re-examine at the next superstep. */
  dirty = new Set<NodePlan>();
  /** An empty set swapped with `dirty` at each superstep (no allocation per superstep). */
  spare = new Set<NodePlan>();
  /** Every node is to be examined at the next superstep (the first one): no need to list them in `dirty`. */
  all = false;
  /** Gate permissions memoised within one readiness pass. */
  readonly permitMemo = new Map<string, boolean>();
  /** Candidates held back while something upstream of them is ready. */
  waiting = new Set<NodePlan>();
  /** Per node (by plan id): how often it started in this run (maxIterations bounds it). */
  readonly runs: Uint32Array;
  readonly regions: ClosedRegions;
  /** Per node: what the scheduler asks about it (plan.ts), shared by every run of the graph. */
  readonly plans: ReadonlyMap<string, NodePlan>;
  readonly planList: readonly NodePlan[];
  readonly #plan: GraphPlan;

  /** Timed pauses in the stored history: node → when it first paused (epoch ms), to keep its due time on resume. */
  readonly pausedSince = new Map<string, number>();
  /** The earliest due time of this run's pauses (epoch ms): stored as the workflow's `wakeAt`. */
  wakeAt: number | undefined;
  /** The event a `waitFor` of this graph pauses for (the first by node name): stored as `waitingFor`. */
  waitingFor: { readonly event: string; readonly key: string; readonly nodeName: string } | undefined;

  /** What this run's steps of the current turn spent (its child runs' totals included): `result.usage`. */
  usage: UsageRecord | undefined;

  nextIndex = 1;
  superstep = 0;
  pause: PauseInfo | undefined;
  failure: unknown;
  stopped = false;

  constructor(graph: Graph) {
    this.graph = graph;
    this.regions = new ClosedRegions(graph.analysis);
    const plan = planOf(graph);
    this.#plan = plan;
    this.values = new ValueStore(plan.valueIds, plan.valueNames);
    this.plans = plan.byName;
    this.planList = plan.list;
    const n = plan.list.length;
    this.consumed = new Array(n).fill(undefined);
    this.flags = new Uint8Array(n);
    this.runs = new Uint32Array(n);
  }

  /** Whether the node has the flag ({@link EVER_RAN}, {@link RAN_THIS_RUN}, {@link SETTLED}). */
  has(name: string, flag: number): boolean {
    return (this.flags[this.plans.get(name)!.id]! & flag) !== 0;
  }

  /** Sets a flag on the node. */
  mark(name: string, flag: number): void {
    this.flags[this.plans.get(name)!.id]! |= flag;
  }

  /** Clears a flag on every node (a new turn forgets who ran in the last one). */
  clearAll(flag: number): void {
    const flags = this.flags;
    for (let i = 0; i < flags.length; i++) flags[i]! &= ~flag;
  }

  /**
   * Before the first superstep of a run whose values all arrived through {@link write} (nothing restored): a node
   * can only be ready if a written value reached it — {@link write} marked it — or if it needs no value at all.
   */
  markStarters(): void {
    for (const p of this.#plan.starters) this.dirty.add(p);
  }

  /** Marks a node for re-examination at the next superstep. */
  touch(name: string): void {
    this.dirty.add(this.plans.get(name)!);
  }

  write(name: string, value: unknown, version: number, writer: string): void {
    this.values.set(name, { value, version, writer });
    const id = this.#plan.valueIds.get(name);
    if (id === undefined) return;
    const consumers = this.#plan.consumers[id]!;
    for (let i = 0; i < consumers.length; i++) this.dirty.add(consumers[i]!);
  }

  /**
   * Puts the graph's own loop state back to its seed for a new call of a nested run: the values are removed (their
   * bound value or default applies again) and every node reading one counts as never having run, as in a fresh run.
   */
  resetOwnState(names: readonly string[]): void {
    for (const name of names) {
      this.values.delete(name);
      const id = this.#plan.valueIds.get(name);
      if (id === undefined) continue;
      for (const reader of this.#plan.consumers[id]!) {
        this.consumed[reader.id] = undefined;
        this.flags[reader.id]! &= ~EVER_RAN;
        this.dirty.add(reader);
      }
    }
  }

  /** Records a gate's decision and marks its targets (through chained gates) for re-examination. */
  decide(gate: GateNode, decision: readonly Target[] | null): void {
    this.decided.add(gate.name);
    if (decision === null) this.pending.delete(gate.name);
    else this.pending.set(gate.name, new Set(decision));
    this.#touchTargets(gate, new Set());
  }

  /**
   * A gate that has not decided was closed by a branch region: it cannot decide in this iteration, so its targets
   * may now start the loop (readiness asks whether their undecided gates can run). Marks them for re-examination.
   */
  closedGate(name: string): void {
    const node = this.graph.nodes.get(name);
    if (node?.kind === "gate" && !this.decided.has(name)) this.#touchTargets(node, new Set());
  }

  #touchTargets(gate: GateNode, seen: Set<string>): void {
    for (const t of gate.targets) {
      if (t === END || seen.has(t)) continue;
      seen.add(t);
      this.touch(t);
      const target = this.graph.nodes.get(t);
      if (target?.kind === "gate") this.#touchTargets(target, seen);
    }
  }

  /**
   * A node completed at step `index`, having consumed `versions` (by input name, or aligned with its inputs) and
   * written `outputs` (by output name, or all of them aligned with its outputs). An interrupt's `answer` is the
   * version of the answer it took (read from `versions` when given by name).
   */
  completed(
    name: string,
    versions: Readonly<Record<string, number>> | readonly number[],
    outputs: Readonly<Record<string, unknown>> | readonly unknown[],
    index: number,
    answer?: number,
  ): void {
    this.completedPlan(this.plans.get(name)!, versions, outputs, index, answer);
  }

  /** {@link completed}, given the node's plan. */
  completedPlan(
    plan: NodePlan,
    versions: Readonly<Record<string, number>> | readonly number[],
    outputs: Readonly<Record<string, unknown>> | readonly unknown[],
    index: number,
    answer?: number,
  ): void {
    const name = plan.name;
    this.flags[plan.id]! |= EVER_RAN | RAN_THIS_RUN;
    if (Array.isArray(versions)) {
      this.consumed[plan.id] = versions;
      if (plan.responseKey !== undefined) this.#answered(name, answer);
    } else this.consume(plan, versions as Readonly<Record<string, number>>);
    this.dirty.add(plan);
    const controllers = plan.controllers;
    for (let i = 0; i < controllers.length; i++) this.pending.get(controllers[i]!)?.delete(name);
    if (Array.isArray(outputs)) {
      const ids = plan.outputIds;
      for (let i = 0; i < ids.length; i++) {
        this.values.setId(ids[i]!, outputs[i], index, name);
        const consumers = plan.consumers[i]!;
        for (let k = 0; k < consumers.length; k++) this.dirty.add(consumers[k]!);
      }
    } else {
      const record = outputs as Readonly<Record<string, unknown>>;
      for (const k in record) this.write(k, record[k], index, name);
    }
  }

  /** Records what a node consumed, given by input name (a stored step, or a caller of {@link completed}). */
  consume(plan: NodePlan, versions: Readonly<Record<string, number>>): void {
    this.consumed[plan.id] = versionList(plan, versions);
    if (plan.responseKey !== undefined) this.#answered(plan.name, versions[plan.responseKey]);
  }

  #answered(name: string, answer: number | undefined): void {
    if (answer === undefined) this.answers.delete(name);
    else this.answers.set(name, answer);
  }

  status(stopRequested: boolean): RunStatus {
    if (this.failure !== undefined) return "failed";
    if (this.pause !== undefined) return "paused";
    if (this.stopped || stopRequested) return "stopped";
    return "completed";
  }

  /** The produced outputs (not the inputs) plus nested results. */
  resultValues(): Record<string, unknown> {
    const values: Record<string, unknown> = {};
    this.values.copyInto(values, INPUT_STEP);
    for (const [k, nested] of this.nested) values[k] = nested;
    return values;
  }
}

/** Versions recorded by input name (a stored step) as the list a node's plan aligns with its inputs. */
function versionList(plan: NodePlan, versions: Readonly<Record<string, number>>): number[] {
  return plan.inputs.map((i) => versions[i] ?? 0);
}
