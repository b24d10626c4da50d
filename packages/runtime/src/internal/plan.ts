import type { AnyNode, Graph, NodeFunction } from "@graph/core";
import { assertNever } from "./assertNever.js";
import { responseKeys } from "./responseKeys.js";

/** How a node runs: through the Effect executors, or called directly, sync or async (executors/plain.ts). */
const OTHER = 0;
export const SYNC = 1;
export const ASYNC = 2;
type Path = typeof OTHER | typeof SYNC | typeof ASYNC;

/**
 * What the scheduler asks about one node on every superstep, worked out once per graph. Per-input facts are arrays
 * aligned with `inputs`, so a superstep touches one object per node instead of a lookup per question in maps
 * keyed by name (that cost grows with the graph: ten thousand names no longer fit the CPU's caches).
 */
export interface NodePlan {
  /** Position in the graph's node list: the index of this node's entries in the run state's per-node arrays. */
  readonly id: number;
  readonly node: AnyNode;
  readonly name: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  /** Per input / output: the number of the value (ValueStore, values.ts). */
  readonly inputIds: readonly number[];
  readonly outputIds: readonly number[];
  /** Per input: bound by the graph. */
  readonly bound: readonly boolean[];
  /** Per input: available without a value in state (bound, or a default of the node). */
  readonly given: readonly boolean[];
  /** Per input: the producers wired to it. */
  readonly wired: readonly ReadonlySet<string>[];
  /**
   * Per input: readiness's staleness exemption by writer (readiness.ts `exempt`), filled on first use. It depends
   * only on the graph, and asking the analysis on every check cost ~5% of an agent loop.
   */
  readonly exempt: Map<string, boolean>[];
  /** Gates that target this node. */
  readonly controllers: readonly string[];
  /**
   * A node of a gated loop (not its entry) that reads only the loop's seeds relays what the loop feeds back to its
   * entry (Self-RAG's `retrieveAgain(question) → retrieve`). It does not run on the caller's values — that would
   * start one extra iteration once the loop settled — but once the loop has written one of them.
   */
  readonly relays: boolean;
  /** Has outputs the caller may supply to skip it (not a side effect, an interrupt or a GraphNode with answers). */
  readonly skippable: boolean;
  /** Seeds of its own cycle it produces (supplying them does not skip it). */
  readonly ownSeeds: ReadonlySet<string> | undefined;
  /** Per output: the nodes that consume it (filled in once every node has its plan). */
  readonly consumers: (readonly NodePlan[])[];
  /** Belongs to a loop with a gate (branch regions apply, regions.ts). */
  readonly inGatedLoop: boolean;
  /** The function to call with the inputs as they are (no renamed inputs, no schemas), else undefined. */
  readonly call: NodeFunction | undefined;
  /** Interrupts: the value its answer arrives in. */
  readonly responseKey: string | undefined;
  readonly isGate: boolean;
  /** Returns its value as its one output, with no schema to check (no need to ask the node). */
  readonly single: boolean;
  /** How it runs: directly (sync or async) or through its executor. */
  readonly path: Path;
}

/** The plans of a graph's nodes, in node-list order and by name. */
export interface GraphPlan {
  readonly list: readonly NodePlan[];
  readonly byName: ReadonlyMap<string, NodePlan>;
  /** The names of the graph's values by number, and their numbers. */
  readonly valueNames: readonly string[];
  readonly valueIds: ReadonlyMap<string, number>;
  /** Per value number: the nodes that consume it. */
  readonly consumers: readonly (readonly NodePlan[])[];
  /** Nodes every input of which is bound or defaulted (or that have none): they need no value to be ready. */
  readonly starters: readonly NodePlan[];
}

const plans = new WeakMap<Graph, GraphPlan>();

/** The plans of a graph's nodes (graphs are immutable: computed on first use, then shared by every run). */
export function planOf(graph: Graph): GraphPlan {
  let plan = plans.get(graph);
  if (plan === undefined) {
    const valueIds = new Map<string, number>();
    const valueNames: string[] = [];
    const idOf = (name: string): number => {
      let id = valueIds.get(name);
      if (id === undefined) {
        id = valueNames.push(name) - 1;
        valueIds.set(name, id);
      }
      return id;
    };
    for (const k of graph.inputs.all) idOf(k);
    const list = [...graph.nodes.values()].map((n, id) => nodePlan(graph, n, id, idOf));
    for (const k of responseKeys(graph)) idOf(k);
    const byName = new Map(list.map((p) => [p.name, p]));
    const consumers = valueNames.map((v) => (graph.analysis.consumers.get(v) ?? []).map((c) => byName.get(c)!));
    for (const p of list) for (const o of p.outputIds) p.consumers.push(consumers[o]!);
    const starters = list.filter((p) => p.given.every((g) => g));
    plan = { list, byName, valueNames, valueIds, consumers, starters };
    plans.set(graph, plan);
  }
  return plan;
}

function nodePlan(graph: Graph, n: AnyNode, id: number, idOf: (name: string) => number): NodePlan {
  const a = graph.analysis;
  const bound = n.inputs.map((i) => Object.hasOwn(graph.inputs.bound, i));
  const component = a.componentOf.get(n.name)!;
  return {
    id,
    node: n,
    name: n.name,
    inputs: n.inputs,
    outputs: n.outputs,
    inputIds: n.inputs.map(idOf),
    outputIds: n.outputs.map(idOf),
    bound,
    given: n.inputs.map((i, k) => bound[k]! || n.hasDefault(i)),
    wired: n.inputs.map((i) => a.wiredProducers.get(n.name)!.get(i)!),
    exempt: n.inputs.map(() => new Map()),
    controllers: a.controllers.get(n.name)!,
    relays:
      n.inputs.length > 0 && a.loops.gated.has(component) && n.inputs.every((i) => a.isSeedForNonEntry(i, n.name)),
    skippable:
      n.outputs.length > 0 &&
      n.kind !== "interrupt" &&
      !(n.kind === "graph" && [...responseKeys(n.graph)].some((k) => n.outerOutput(k) !== undefined)),
    ownSeeds: a.ownCycleSeeds.get(n.name),
    consumers: [],
    inGatedLoop: a.loops.gated.has(component),
    call: n.kind === "function" ? n.directCall : undefined,
    responseKey: n.kind === "interrupt" ? n.responseKey : undefined,
    path: pathOf(n),
    isGate: n.kind === "gate",
    single: n.kind === "function" && n.spec.outputKind === "single" && n.spec.outputSchemas === undefined,
  };
}

/** Which path runs the node: gates and plain function nodes directly, everything else through its executor. */
function pathOf(n: AnyNode): Path {
  switch (n.kind) {
    case "gate":
      return SYNC;
    case "function":
      if (
        n.cache ||
        n.retry !== undefined ||
        n.timeoutMs !== undefined ||
        n.concurrency !== undefined ||
        n.rateLimit !== undefined
      )
        return OTHER;
      return n.mode === "sync" ? SYNC : n.mode === "async" ? ASYNC : OTHER;
    case "interrupt":
    case "graph":
      return OTHER;
    default:
      return assertNever(n, "node kind", (n as AnyNode).kind);
  }
}
