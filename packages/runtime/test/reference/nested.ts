/**
 * Reference model, part 3: nested graphs (docs/semantics.md, "Nested graphs: their own loop state is private").
 * What a graph takes from outside, which of it is the graph's own loop state, the ports of its GraphNode, the
 * build-time refusal of a mapped node fed its own collected output, and a run in which every call of a nested graph
 * — every map item, every turn of a loop around it — is a fresh run of the model from the child's own seeds.
 */
import { NOT_WRITTEN, type RefBehaviour, type RefOutcome, referenceRun } from "./run.js";
import { type RefGraph, type RefNode, Structure } from "./structure.js";

export type BoundGraph = RefGraph & { readonly boundValues: Readonly<Record<string, unknown>> };

/** What a graph takes from outside: values no node writes, or that reach a node only over feedback edges. */
export interface RefInputs {
  readonly all: ReadonlySet<string>;
  /** Bound, or every node that needs it from outside has a default. */
  readonly optional: ReadonlySet<string>;
  /** Values some node of the graph writes. */
  readonly outputs: ReadonlySet<string>;
}

export function refInputs(graph: RefGraph): RefInputs {
  const s = new Structure(graph);
  const needs = new Map<string, string[]>(); // value → nodes that need it from outside
  for (const n of s.names) {
    for (const i of s.node.get(n)!.inputs) {
      const producers = s.producers(i);
      if (producers.every((p) => s.feedback.has(`${p}>${n}`))) needs.set(i, [...(needs.get(i) ?? []), n]);
    }
  }
  const optional = new Set(
    [...needs].filter(([v, ns]) => graph.bound.has(v) || ns.every((n) => s.node.get(n)!.defaults.includes(v))),
  );
  return {
    all: new Set(needs.keys()),
    optional: new Set([...optional].map(([v]) => v)),
    outputs: new Set(graph.nodes.flatMap((n) => n.outputs)),
  };
}

/** The graph's own loop state: what it may do without (bound or defaulted) and also writes. */
export function refPrivateState(graph: RefGraph): string[] {
  const { optional, outputs } = refInputs(graph);
  return [...optional].filter((v) => outputs.has(v)).sort();
}

/** A graph used as a node: the child, what the parent maps in and renames, and the input it maps over. */
export interface RefSub {
  readonly name: string;
  readonly child: BoundGraph;
  /** Own loop state the parent maps in: inner name → public name. */
  readonly mapIn: Readonly<Record<string, string>>;
  /** Output renames: inner name → public name. */
  readonly renameOut: Readonly<Record<string, string>>;
  /** Mapped: the inner input each item takes its value of, and the public name of the list. */
  readonly mapped?: { readonly inner: string; readonly list: string };
}

interface Port {
  readonly outer: string;
  readonly inner: string;
}

/** The ports of the GraphNode: the child's inputs but its own loop state (unless mapped in), all its outputs. */
function subPorts(sub: RefSub): { inputs: Port[]; outputs: Port[]; defaults: string[] } {
  const ins = refInputs(sub.child);
  const own = refPrivateState(sub.child);
  const inputs = [...ins.all]
    .filter((v) => !own.includes(v) || v in sub.mapIn)
    .sort()
    .map((v) => ({ inner: v, outer: sub.mapIn[v] ?? (sub.mapped?.inner === v ? sub.mapped.list : v) }));
  const outputs = [...ins.outputs].sort().map((v) => ({ inner: v, outer: sub.renameOut[v] ?? v }));
  const defaults = inputs.filter((p) => ins.optional.has(p.inner)).map((p) => p.outer);
  return { inputs, outputs, defaults };
}

/** The build-time rule: a mapped node may not take, as a value every item shares, a value it writes itself. */
export function refusedAtBuild(sub: RefSub): boolean {
  if (sub.mapped === undefined) return false;
  const { inputs, outputs } = subPorts(sub);
  return inputs.some((p) => p.outer !== sub.mapped!.list && outputs.some((o) => o.outer === p.outer));
}

/** The parent's node standing for `sub` (what the parent's structure sees). */
export function subNode(sub: RefSub): RefNode {
  const { inputs, outputs, defaults } = subPorts(sub);
  return {
    name: sub.name,
    kind: "fn",
    inputs: inputs.map((p) => p.outer),
    outputs: outputs.map((p) => p.outer),
    targets: [],
    defaultOpen: true,
    defaults,
    unset: NOT_GIVEN,
  };
}

const NOT_GIVEN: unique symbol = Symbol("not given");

/** A nested run failed: the parent fails with it. */
class NestedFailure extends Error {
  constructor(readonly outcome: RefOutcome) {
    super(outcome.error);
  }
}

export interface NestedOutcome extends RefOutcome {
  /** Per nested node: the trace of every call, one after the other (map items in item order). */
  readonly childTraces: Readonly<Record<string, readonly string[]>>;
  /** Per nested node that ran: the values of its last call's run (columns for a mapped node). */
  readonly nested: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** Some call of an unmapped nested graph wrote only some of its outputs. */
  readonly partial: boolean;
  /** Every call of a nested graph (every map item), in order: which node, and the values its run was given. */
  readonly calls: readonly { readonly sub: string; readonly given: Readonly<Record<string, unknown>> }[];
}

/**
 * Runs `parent` (its nodes, with one node per `subs` entry) by the model. A nested node's run passes the values it
 * has under their inner names — its own loop state only when the parent mapped it in — and starts the child's model
 * afresh: nothing of an earlier call reaches it. `behaviour` runs the parent's own nodes; `childBehaviour(sub)` the
 * child's (call counts may carry over between calls, as a node function's own state would).
 */
export function referenceNestedRun(
  parent: BoundGraph,
  subs: readonly RefSub[],
  values: Readonly<Record<string, unknown>>,
  behaviour: RefBehaviour,
  childBehaviour: (sub: RefSub) => RefBehaviour,
  maxIterations: number,
): NestedOutcome {
  const byName = new Map(subs.map((s) => [s.name, s]));
  const childTraces: Record<string, string[]> = Object.fromEntries(subs.map((s) => [s.name, []]));
  const nested: Record<string, Record<string, unknown>> = {};
  let partial = false;
  const calls: { sub: string; given: Record<string, unknown> }[] = [];
  const callChild = (sub: RefSub, given: Record<string, unknown>): RefOutcome => {
    calls.push({ sub: sub.name, given });
    const r = referenceRun(sub.child, given, childBehaviour(sub), maxIterations);
    childTraces[sub.name]!.push(...r.trace);
    if (r.error !== undefined) throw new NestedFailure(r);
    return r;
  };
  const runSub = (sub: RefSub, args: readonly unknown[]): readonly unknown[] => {
    const { inputs, outputs } = subPorts(sub);
    const given: Record<string, unknown> = {};
    inputs.forEach((p, k) => {
      if (args[k] !== NOT_GIVEN) given[p.inner] = args[k];
    });
    if (sub.mapped === undefined) {
      const r = callChild(sub, given);
      nested[sub.name] = { ...r.values };
      if (outputs.some((o) => !Object.hasOwn(r.values, o.inner))) partial = true;
      return outputs.map((o) => (Object.hasOwn(r.values, o.inner) ? r.values[o.inner] : NOT_WRITTEN));
    }
    const list = given[sub.mapped.inner] as readonly unknown[];
    const runs = list.map((item) => callChild(sub, { ...given, [sub.mapped!.inner]: item }));
    const columns = outputs.map((o) => runs.map((r) => r.values[o.inner]));
    nested[sub.name] = Object.fromEntries(outputs.map((o, k) => [o.inner, columns[k]]));
    return columns;
  };
  const graph: BoundGraph = {
    ...parent,
    nodes: parent.nodes.map((n) => (byName.has(n.name) ? subNode(byName.get(n.name)!) : n)),
  };
  try {
    const r = referenceRun(
      graph,
      values,
      {
        fn: (name, calls, args) => {
          const sub = byName.get(name);
          return sub === undefined ? behaviour.fn(name, calls, args) : runSub(sub, args);
        },
        gate: behaviour.gate,
      },
      maxIterations,
    );
    return { ...r, trace: r.trace.filter((n) => !byName.has(n)), childTraces, nested, partial, calls };
  } catch (error) {
    if (!(error instanceof NestedFailure)) throw error;
    const { error: message = "" } = error.outcome;
    return { trace: [], status: "failed", values: {}, error: message, childTraces, nested: {}, partial, calls };
  }
}
