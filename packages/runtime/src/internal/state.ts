import { INPUT_STEP } from "@graph/checkpoint";
import { END, GateNode, type Graph, type Target } from "@graph/core";
import type { PauseInfo, RunResult, RunStatus } from "../RunResult.js";
import { ClosedRegions } from "./regions.js";

/** A value in run state: its data, its version (index of the step that wrote it) and who wrote it. */
export interface Slot {
  readonly value: unknown;
  readonly version: number;
  readonly writer: string;
}

/**
 * The state of one run of one graph: values with their versions, what each node last consumed, gate decisions,
 * and the set of nodes whose readiness must be re-examined (`dirty`). Plain data plus the two writes that mark
 * nodes dirty; readiness (readiness.ts) only reads it.
 */
export class RunState {
  readonly graph: Graph;
  readonly values = new Map<string, Slot>();
  /** The input versions each node consumed when it last completed. */
  readonly consumed = new Map<string, Readonly<Record<string, number>>>();
  readonly everRan = new Set<string>();
  /** Nodes that ran in the current turn (a loop entry does not get its before-the-gate run again). */
  readonly ranThisRun = new Set<string>();
  /** Gate → targets it chose that have not run since. */
  readonly pending = new Map<string, Set<Target>>();
  readonly decided = new Set<string>();
  readonly nested = new Map<string, RunResult>();
  /** Nodes stopped or failed in this run: not retried within it. */
  readonly settled = new Set<string>();
  /** Nodes to re-examine at the next superstep. */
  dirty = new Set<string>();
  /** An empty set swapped with `dirty` at each superstep (no allocation per superstep). */
  spare = new Set<string>();
  /** Gate permissions memoised within one readiness pass. */
  readonly permitMemo = new Map<string, boolean>();
  /** Candidates held back while something upstream of them is ready. */
  waiting = new Set<string>();
  /** How often each node started in this run (maxIterations bounds it). */
  readonly runs = new Map<string, number>();
  readonly regions: ClosedRegions;

  nextIndex = 1;
  superstep = 0;
  pause: PauseInfo | undefined;
  failure: unknown;
  stopped = false;

  constructor(graph: Graph) {
    this.graph = graph;
    this.regions = new ClosedRegions(graph.analysis);
  }

  write(name: string, value: unknown, version: number, writer: string): void {
    this.values.set(name, { value, version, writer });
    const consumers = this.graph.analysis.consumers.get(name);
    if (consumers !== undefined) for (const c of consumers) this.dirty.add(c);
  }

  /** Records a gate's decision and marks its targets (through chained gates) for re-examination. */
  decide(gate: GateNode, decision: readonly Target[] | null): void {
    this.decided.add(gate.name);
    if (decision === null) this.pending.delete(gate.name);
    else this.pending.set(gate.name, new Set(decision));
    const mark = (g: GateNode, seen: Set<string>) => {
      for (const t of g.targets) {
        if (t === END || seen.has(t)) continue;
        seen.add(t);
        this.dirty.add(t);
        const target = this.graph.nodes.get(t);
        if (target instanceof GateNode) mark(target, seen);
      }
    };
    mark(gate, new Set());
  }

  /** A node completed with these outputs at step `index` having consumed `versions`. */
  completed(name: string, versions: Readonly<Record<string, number>>, outputs: Record<string, unknown>, index: number) {
    this.everRan.add(name);
    this.ranThisRun.add(name);
    this.consumed.set(name, versions);
    this.dirty.add(name);
    for (const g of this.graph.analysis.controllers.get(name)!) this.pending.get(g)?.delete(name);
    for (const k in outputs) this.write(k, outputs[k], index, name);
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
    for (const [k, slot] of this.values) if (slot.writer !== INPUT_STEP) values[k] = slot.value;
    for (const [k, nested] of this.nested) values[k] = nested;
    return values;
  }
}
