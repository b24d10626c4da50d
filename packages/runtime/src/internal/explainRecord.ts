/**
 * What `explain(result)` reads: the events of one run, gathered by a processor that exists only for runs started
 * with `{ explain: true }` (other runs have no such processor and pay nothing), plus — with a checkpointer — which
 * nodes of each workflow ran before this run (their stored steps started earlier).
 */
import { type Checkpointer, END_DECISION, INPUT_STEP } from "@graph/checkpoint";
import type { EventProcessor, GraphEvent } from "../events.js";

/** What one node did in one workflow during the run. */
export interface NodeActivity {
  /** Executions of its function (a cache hit or a replay is not one). */
  ran: number;
  cached: number;
  replayed: number;
  failed: boolean;
  stopped: boolean;
  paused: boolean;
}

/** One workflow (the root or a nested child) as the run saw it. */
export interface WorkflowActivity {
  readonly nodes: Map<string, NodeActivity>;
  /** Each gate's last decision in this run, as target names (`END` as "END"). */
  readonly decisions: Map<string, readonly string[]>;
  /** Stored decisions of gates that did not decide in this run (filled when the run ends). */
  readonly restored: Map<string, readonly string[]>;
  /** Nodes with a step stored before this run started (filled when the run ends, with a checkpointer). */
  ranBefore: ReadonlySet<string>;
  /** Values the caller supplied in earlier runs of this workflow (their input steps; with a checkpointer). */
  suppliedBefore?: ReadonlySet<string>;
}

/** The record of one run. */
export interface RunRecord {
  readonly workflows: Map<string, WorkflowActivity>;
  readonly supplied: ReadonlySet<string>;
  startedAt: number;
}

const storedTarget = (t: string): string => (t === END_DECISION ? "END" : t);
const targetName = (t: unknown): string =>
  typeof t === "symbol" ? (t.description ?? "END").replace("@graph/", "") : String(t);

/** Gathers the events of one run (the root and its nested runs share one emitter). */
export class ExplainRecorder implements EventProcessor {
  readonly record: RunRecord;

  constructor(values: Readonly<Record<string, unknown>> | undefined) {
    this.record = { workflows: new Map(), supplied: new Set(Object.keys(values ?? {})), startedAt: Date.now() };
  }

  #workflow(id: string): WorkflowActivity {
    let w = this.record.workflows.get(id);
    if (w === undefined) {
      w = { nodes: new Map(), decisions: new Map(), restored: new Map(), ranBefore: new Set() };
      this.record.workflows.set(id, w);
    }
    return w;
  }

  #node(id: string, name: string): NodeActivity {
    const w = this.#workflow(id);
    let n = w.nodes.get(name);
    if (n === undefined) {
      n = { ran: 0, cached: 0, replayed: 0, failed: false, stopped: false, paused: false };
      w.nodes.set(name, n);
    }
    return n;
  }

  onEvent(event: GraphEvent): void {
    switch (event.type) {
      case "RunStart":
        this.#workflow(event.workflowId);
        if (event.depth === 0) this.record.startedAt = event.timestamp;
        return;
      case "NodeEnd": {
        const n = this.#node(event.workflowId, event.nodeName);
        if (event.status === "stopped") n.stopped = true;
        else if (event.replayed) n.replayed++;
        else if (event.cached) n.cached++;
        else n.ran++;
        return;
      }
      case "NodeError":
        if (!event.willRetry) this.#node(event.workflowId, event.nodeName).failed = true;
        return;
      case "Paused":
        this.#node(event.workflowId, event.nodeName).paused = true;
        return;
      case "RouteDecision": {
        const d = event.decision;
        const names = d === null ? [] : Array.isArray(d) ? d.map(targetName) : [targetName(d)];
        this.#workflow(event.workflowId).decisions.set(event.gate, names);
        return;
      }
      default:
        return;
    }
  }

  #decidedNow(w: WorkflowActivity, gate: string): boolean {
    return w.decisions.has(gate) && !w.restored.has(gate);
  }

  /** Reads which nodes of each workflow the run touched had stored steps from before it started. */
  async history(checkpointer: Checkpointer): Promise<RunRecord> {
    const start = this.record.startedAt;
    await Promise.all(
      [...this.record.workflows].map(async ([id, w]) => {
        const stored = (await checkpointer.getSteps(id, { includeInputs: true })).filter(
          (s) => s.startedAt.getTime() < start,
        );
        const earlier = stored.filter((s) => s.nodeName !== INPUT_STEP);
        w.ranBefore = new Set(earlier.map((s) => s.nodeName));
        w.suppliedBefore = new Set(stored.flatMap((s) => (s.nodeName === INPUT_STEP ? Object.keys(s.values) : [])));
        // A gate that did not decide again in this run still routes by its stored decision.
        for (const step of earlier) {
          const d = step.decision;
          if (d === undefined || this.#decidedNow(w, step.nodeName)) continue;
          w.restored.set(step.nodeName, d === null ? [] : (Array.isArray(d) ? d : [d]).map(storedTarget));
        }
        for (const [gate, names] of w.restored) w.decisions.set(gate, names);
      }),
    );
    return this.record;
  }
}
