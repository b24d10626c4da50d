import { type AnyNode, END, Graph, type GraphNode, node, route, type Target } from "@graph/core";
import fc from "fast-check";
import { Runner, RunResult } from "../../src/index.js";
import { type BoundGraph, type RefSub, refInputs, refPrivateState, subNode } from "../reference/nested.js";
import { build, decideFor, type GraphSpec, graphSpecs, mix, type NodeSpec } from "./randomGraphs.js";

/**
 * Random graphs with nested graphs for the differential test of test/reference/nested.ts: a random parent graph
 * (test/support/randomGraphs.ts) in which one or two function nodes are nested graphs, each a random graph with its
 * own bound values (often its own loop state), sometimes mapped over a list, sometimes with its loop state mapped in
 * by name (under its own name or another), its outputs renamed where another node of the parent writes the same name.
 */
export interface SubSpec {
  readonly name: string;
  readonly child: GraphSpec;
  readonly mapIn: Readonly<Record<string, string>>;
  readonly renameOut: Readonly<Record<string, string>>;
  readonly mapped?: { readonly inner: string; readonly list: string };
}

export interface NestedSpec {
  readonly parent: GraphSpec;
  readonly subs: readonly SubSpec[];
  /** The list a mapped node maps over. */
  readonly items: readonly number[];
}

export interface NestedRun {
  readonly trace: readonly string[];
  readonly status: string;
  readonly values: Readonly<Record<string, unknown>>;
  readonly error?: string;
  readonly childTraces: Readonly<Record<string, readonly string[]>>;
  readonly nested: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

const LIST = "items";

/** The model's view of a graph spec: its bound values are the ones the graph takes as inputs. */
export function refGraph(spec: GraphSpec, nodes = spec.nodes): BoundGraph {
  const all = refInputs({ nodes, entrypoint: spec.entrypoint, bound: new Set() }).all;
  const boundValues = Object.fromEntries(Object.entries(spec.bound).filter(([k]) => all.has(k)));
  return { nodes, entrypoint: spec.entrypoint, bound: new Set(Object.keys(boundValues)), boundValues };
}

export function refSub(sub: SubSpec): RefSub {
  return { ...sub, child: refGraph(sub.child) };
}

/** The parent's nodes as the model sees them (a nested node's ports are derived from its child). */
export function parentNodes(spec: NestedSpec): (NodeSpec & { readonly unset?: unknown })[] {
  const byName = new Map(spec.subs.map((s) => [s.name, s]));
  return spec.parent.nodes.map((n) => {
    const sub = byName.get(n.name);
    return sub === undefined ? n : { ...subNode(refSub(sub)), budget: 0 };
  });
}

/** Nested graphs the engine accepts, with a few bound values; mostly ones with loop state of their own. */
const validChildren: fc.Arbitrary<GraphSpec> = graphSpecs
  .chain((child) =>
    fc
      .dictionary(fc.constantFrom("log", "v1", "v2", "v3", "v4"), fc.nat(9), { minKeys: 1, maxKeys: 3 })
      .map((bound) => ({ ...child, bound })),
  )
  .filter((child) => typeof build(child, []) !== "string");
const childSpecs: fc.Arbitrary<GraphSpec> = fc.oneof(
  { weight: 3, arbitrary: validChildren.filter((child) => refPrivateState(refGraph(child)).length > 0) },
  { weight: 1, arbitrary: validChildren },
);

export const nestedSpecs: fc.Arbitrary<NestedSpec> = graphSpecs
  .filter((p) => p.nodes.some((n) => n.kind === "fn"))
  .chain((parent) => {
    const fns = parent.nodes.filter((n) => n.kind === "fn").map((n) => n.name);
    return fc.record({
      parent: fc.constant(parent),
      picks: fc.uniqueArray(fc.constantFrom(...fns), { minLength: 1, maxLength: Math.min(2, fns.length) }),
      children: fc.tuple(childSpecs, childSpecs),
      mapIn: fc.tuple(fc.nat(3), fc.nat(3)),
      mapped: fc.tuple(fc.nat(2), fc.nat(2)),
      items: fc.array(fc.nat(9), { minLength: 1, maxLength: 2 }),
    });
  })
  .map(({ parent, picks, children, mapIn, mapped, items }) => {
    const taken = new Set(parent.nodes.filter((n) => !picks.includes(n.name)).flatMap((n) => n.outputs));
    const subs = picks.map((name, k): SubSpec => {
      const child = children[k]!;
      const ref = refGraph(child);
      const own = refPrivateState(ref);
      const ins = refInputs(ref);
      // 0–1: nothing mapped in; 2: the first own value under its own name; 3: under another name.
      const pick = mapIn[k]!;
      const v = own[0];
      const mapInSpec: Record<string, string> = v === undefined || pick < 2 ? {} : { [v]: pick === 2 ? v : `h_${v}` };
      const open = [...ins.all].filter((i) => !own.includes(i) && !(i in mapInSpec)).sort();
      const mappedSpec = mapped[k] === 0 && open.length > 0 ? { inner: open[0]!, list: LIST } : undefined;
      const renameOut: Record<string, string> = {};
      for (const o of [...ins.outputs].sort()) {
        if (taken.has(o)) renameOut[o] = `${name}_${o}`;
        taken.add(renameOut[o] ?? o);
      }
      return { name, child, mapIn: mapInSpec, renameOut, ...(mappedSpec === undefined ? {} : { mapped: mappedSpec }) };
    });
    // Only one node maps over the list (two would both read it, which is fine, but keeps the counterexamples small).
    const firstMapped = subs.findIndex((s) => s.mapped !== undefined);
    const cleaned = subs.map((s, i) => (i === firstMapped || s.mapped === undefined ? s : withoutMap(s)));
    return withToString({ parent, subs: cleaned, items });
  });

function withoutMap(s: SubSpec): SubSpec {
  const { mapped: _, ...rest } = s;
  return rest;
}

function withToString(spec: NestedSpec): NestedSpec {
  return Object.defineProperty({ ...spec }, fc.toStringMethod, {
    value: () =>
      `\nparent: ${fc.stringify(spec.parent)}\n${spec.subs
        .map(
          (s) =>
            `${s.name} = ${fc.stringify(s.child).trim()}\n  .asNode().withInputs(${JSON.stringify({
              ...s.mapIn,
              ...(s.mapped ? { [s.mapped.inner]: s.mapped.list } : {}),
            })}).withOutputs(${JSON.stringify(s.renameOut)})${s.mapped ? `.mapOver("${s.mapped.list}", { concurrency: 1 })` : ""}`,
        )
        .join("\n")}\nitems: ${JSON.stringify(spec.items)}\n`,
    enumerable: false,
  });
}

/** A function node or gate of a spec, recording its calls in `trace` (as randomGraphs' `build` does). */
function specNode(n: NodeSpec, trace: string[], calls: Map<string, number>): AnyNode {
  const count = () => {
    const c = (calls.get(n.name) ?? 0) + 1;
    calls.set(n.name, c);
    trace.push(n.name);
    return c;
  };
  if (n.kind === "gate") {
    const targets: Target[] = n.targets.map((t) => (t === "END" ? END : t));
    return route(
      { name: n.name, inputs: n.inputs, targets, defaultOpen: n.defaultOpen },
      (args: Record<string, unknown>) => {
        const d = decideFor(
          n,
          count(),
          n.inputs.map((i) => args[i]),
        );
        return d === "END" ? END : d;
      },
    );
  }
  const defaults = Object.fromEntries(n.defaults.map((d) => [d, 0]));
  return node({ name: n.name, inputs: n.inputs, output: [...n.outputs], defaults }, (args: Record<string, unknown>) => {
    const c = count();
    return n.outputs.map((_, k) =>
      mix(
        n.name,
        c + k,
        n.inputs.map((i) => args[i]),
      ),
    );
  });
}

/** The engine's graph of the spec, with the traces its nodes record; a rejected graph gives its error. */
export function buildNested(
  spec: NestedSpec,
): { graph: Graph; trace: string[]; childTraces: Record<string, string[]> } | { rejected: string; message: string } {
  const trace: string[] = [];
  const childTraces: Record<string, string[]> = Object.fromEntries(spec.subs.map((s) => [s.name, []]));
  const calls = new Map<string, number>();
  const subs = new Map(spec.subs.map((s) => [s.name, s]));
  try {
    const nodes = spec.parent.nodes.map((n): AnyNode => {
      const sub = subs.get(n.name);
      if (sub === undefined) return specNode(n, trace, calls);
      const child = build(sub.child, childTraces[sub.name]!);
      if (typeof child === "string") throw Object.assign(new Error(`child: ${child}`), { _tag: `child ${child}` });
      let gn: GraphNode = child
        .asNode({ name: sub.name })
        .withInputs({ ...sub.mapIn, ...(sub.mapped ? { [sub.mapped.inner]: sub.mapped.list } : {}) })
        .withOutputs(sub.renameOut);
      if (sub.mapped) gn = gn.mapOver(sub.mapped.list, { concurrency: 1 });
      return gn;
    });
    let graph = new Graph(nodes, spec.parent.entrypoint === undefined ? {} : { entrypoint: spec.parent.entrypoint });
    const bound = Object.fromEntries(Object.entries(spec.parent.bound).filter(([k]) => graph.inputs.all.has(k)));
    if (Object.keys(bound).length > 0) graph = graph.bind(bound);
    return { graph, trace, childTraces };
  } catch (error) {
    const e = error as { _tag?: string; message?: string };
    return { rejected: e._tag ?? String(error), message: e.message ?? "" };
  }
}

/** The values a run passes: the spec's values the graph takes, the list, and 1 for anything else it needs. */
export function nestedValues(spec: NestedSpec, graph: Graph): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(spec.parent.values)) if (graph.inputs.all.has(k)) values[k] = v;
  if (graph.inputs.all.has(LIST)) values[LIST] = [...spec.items];
  for (const k of [...graph.inputs.required, ...graph.inputs.seeds]) values[k] ??= 1;
  return values;
}

const runner = new Runner();

/** Runs a graph {@link buildNested} made. */
export async function runNested(
  built: { graph: Graph; trace: string[]; childTraces: Record<string, string[]> },
  values: Record<string, unknown>,
  maxIterations: number,
): Promise<NestedRun> {
  const { graph, trace, childTraces } = built;
  try {
    const r = await runner.run(graph, { values, maxIterations });
    const own: Record<string, unknown> = {};
    const nested: Record<string, Record<string, unknown>> = {};
    for (const [k, v] of Object.entries(r.values)) {
      if (v instanceof RunResult) nested[k] = { ...(v.values as Record<string, unknown>) };
      else own[k] = v;
    }
    return { trace, status: r.status, values: own, childTraces, nested };
  } catch (error) {
    const e = error as { _tag?: string };
    return { trace, status: "failed", values: {}, error: e._tag ?? String(error), childTraces, nested: {} };
  }
}
