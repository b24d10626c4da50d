import { type AnyNode, END, Graph, node, route, type Target } from "@graph/core";
import fc from "fast-check";
import { Runner } from "../../src/index.js";

/**
 * Random workflow graphs for the order-independence properties: small graphs (2–7 nodes) with loops, gates and
 * shared values (a value read by many nodes, written by one or by exclusive branches of a gate), plain data, so one
 * description builds the engine's graph and feeds the reference model (test/reference/).
 */
export interface NodeSpec {
  readonly name: string;
  readonly kind: "fn" | "gate";
  readonly inputs: readonly string[];
  /** fn: the values it writes. */
  readonly outputs: readonly string[];
  /** gate: its targets (node names, or "END"). */
  readonly targets: readonly string[];
  readonly defaultOpen: boolean;
  /** fn: inputs that have a default (0). */
  readonly defaults: readonly string[];
  /** gate: after this many decisions it returns END (when END is a target). */
  readonly budget: number;
}

export interface GraphSpec {
  readonly nodes: readonly NodeSpec[];
  readonly entrypoint: string | undefined;
  readonly bound: Readonly<Record<string, number>>;
  readonly values: Readonly<Record<string, number>>;
  /** The caller gives no first value for the loops (only what `values` holds): the missing-input rule decides. */
  readonly withoutSeeds?: boolean;
}

/** What a run did: the nodes in the order they were called, and how it ended. */
export interface Outcome {
  readonly trace: readonly string[];
  readonly status: string;
  readonly values: Readonly<Record<string, unknown>>;
  /** `_tag` (and for InfiniteLoopError the node and loop) when the run failed. */
  readonly error?: string;
}

const NAMES = ["ant", "bee", "cat", "dog", "eel", "fox", "gnu"];
const VALUES = ["log", "v1", "v2", "v3", "v4"];

/** Deterministic mixing of a node's name, its call count and its inputs (what its function returns). */
export function mix(name: string, calls: number, inputs: readonly unknown[]): number {
  let h = calls * 7919;
  for (const ch of name) h = (h * 31 + ch.charCodeAt(0)) % 1_000_003;
  for (const v of inputs) h = (h * 131 + (typeof v === "number" ? v : 17)) % 1_000_003;
  return h;
}

/** A gate's decision: after `budget` decisions END (if it may), else a target picked from its inputs. */
export function decideFor(spec: NodeSpec, calls: number, inputs: readonly unknown[]): string {
  const real = spec.targets.filter((t) => t !== "END");
  if (spec.targets.includes("END") && (calls > spec.budget || real.length === 0)) return "END";
  return real[mix(spec.name, calls, inputs) % real.length]!;
}

const nodeSpec = (name: string, others: readonly string[]): fc.Arbitrary<NodeSpec> =>
  fc
    .record({
      gate: fc.nat(3).map((n) => n === 0),
      inputs: fc.uniqueArray(fc.constantFrom(...VALUES), { minLength: 1, maxLength: 3 }),
      outputs: fc.uniqueArray(fc.constantFrom(...VALUES), { minLength: 1, maxLength: 2 }),
      targets: fc.uniqueArray(fc.constantFrom(...others), { minLength: 1, maxLength: 2 }),
      end: fc.nat(3).map((n) => n > 0),
      defaultOpen: fc.nat(3).map((n) => n > 0),
      defaults: fc.uniqueArray(fc.constantFrom(...VALUES), { maxLength: 1 }),
      budget: fc.integer({ min: 0, max: 3 }),
    })
    .map((r) => ({
      name,
      kind: r.gate ? "gate" : "fn",
      inputs: r.inputs,
      outputs: r.gate ? [] : r.outputs,
      targets: r.gate ? (r.end ? [...r.targets, "END"] : r.targets) : [],
      defaultOpen: r.defaultOpen,
      defaults: r.gate ? [] : r.defaults.filter((d) => r.inputs.includes(d)),
      budget: r.budget,
    }));

export const graphSpecs: fc.Arbitrary<GraphSpec> = fc
  .integer({ min: 2, max: 7 })
  .chain((n) => fc.shuffledSubarray(NAMES, { minLength: n, maxLength: n }))
  .chain((names) =>
    fc.record({
      nodes: fc.tuple(
        ...names.map((name) =>
          nodeSpec(
            name,
            names.filter((m) => m !== name),
          ),
        ),
      ),
      entrypoint: fc.option(fc.constantFrom(...names), { nil: undefined, freq: 2 }),
      bound: fc.dictionary(fc.constantFrom(...VALUES), fc.nat(9), { maxKeys: 2 }),
      values: fc.dictionary(fc.constantFrom(...VALUES), fc.nat(9), { maxKeys: 3 }),
      sharedWriters: fc.boolean(),
      withoutSeeds: fc.nat(3).map((n) => n === 0),
    }),
  )
  .map(({ sharedWriters, ...spec }) => withToString({ ...spec, nodes: oneWriterEach(spec.nodes, sharedWriters) }));

/**
 * Each value gets one writer (a node left with none writes a value of its own), except, when `shared`, the targets
 * of one gate that all write `res` — as agents behind a supervisor do — which the graph accepts only when they are
 * exclusive branches of that gate.
 */
function oneWriterEach(nodes: readonly NodeSpec[], shared: boolean): NodeSpec[] {
  const taken = new Set<string>();
  const out = nodes.map((n) => {
    if (n.kind === "gate") return n;
    const outputs = n.outputs.filter((o) => !taken.has(o));
    for (const o of outputs) taken.add(o);
    return { ...n, outputs: outputs.length > 0 ? outputs : [`w_${n.name}`] };
  });
  const gate = shared ? out.find((n) => n.kind === "gate" && n.targets.length >= 2) : undefined;
  if (gate === undefined) return out;
  const writers = new Set(gate.targets);
  return out.map((n) => {
    if (n.kind === "fn" && writers.has(n.name)) return { ...n, outputs: [...n.outputs, "res"] };
    // someone reads `res`: the node after the agents (it appends to the shared history)
    if (n.kind === "fn" && !writers.has(n.name) && n.outputs.includes("log"))
      return { ...n, inputs: [...new Set([...n.inputs, "res"])] };
    return n;
  });
}

/** The spec as the code a user would write: what fast-check prints for a counterexample. */
function toCode(spec: GraphSpec): string {
  const lines = spec.nodes.map((n) => {
    const ins = `{ ${n.inputs.join(", ")} }`;
    if (n.kind === "gate") {
      const targets = n.targets.map((t) => (t === "END" ? "END" : JSON.stringify(t))).join(", ");
      const open = n.defaultOpen ? "" : ", defaultOpen: false";
      return `  route({ name: "${n.name}", targets: [${targets}]${open} }, (${ins}) => /* END after ${n.budget} decisions */ …),`;
    }
    const defaults = n.defaults.length > 0 ? `, defaults: { ${n.defaults.map((d) => `${d}: 0`).join(", ")} }` : "";
    const out = n.outputs.length === 1 ? `"${n.outputs[0]}"` : `[${n.outputs.map((o) => `"${o}"`).join(", ")}]`;
    return `  node({ name: "${n.name}", output: ${out}${defaults} }, (${ins}) => …),`;
  });
  const options = spec.entrypoint === undefined ? "" : `, { entrypoint: "${spec.entrypoint}" }`;
  const bind = Object.keys(spec.bound).length > 0 ? `.bind(${JSON.stringify(spec.bound)})` : "";
  const seeds = spec.withoutSeeds ? " (no first values for the loops)" : "";
  return `new Graph([\n${lines.join("\n")}\n]${options})${bind}\n  run with values ${JSON.stringify(spec.values)}${seeds}`;
}

function withToString(spec: GraphSpec): GraphSpec {
  return Object.defineProperty({ ...spec }, fc.toStringMethod, {
    value: () => `\n${toCode(spec)}\n`,
    enumerable: false,
  });
}

/** The spec's nodes in another order (same graph). */
export function reorder(spec: GraphSpec, order: readonly number[]): GraphSpec {
  return withToString({ ...spec, nodes: order.map((i) => spec.nodes[i]!) });
}

/**
 * The node orders to check: every permutation for up to 3 nodes; else the listing, its reverse, the listing by name
 * and by reverse name, and one order per `extra` shuffle.
 */
export function orders(names: readonly string[], extra: readonly (readonly number[])[]): number[][] {
  const n = names.length;
  const identity = Array.from({ length: n }, (_, i) => i);
  if (n <= 3) return permutations(identity);
  const byName = [...identity].sort((a, b) => (names[a]! < names[b]! ? -1 : 1));
  const out = [identity, [...identity].reverse(), byName, [...byName].reverse()];
  for (const shuffle of extra) {
    const rest = [...identity];
    const order: number[] = [];
    for (const k of shuffle) if (rest.length > 0) order.push(rest.splice(k % rest.length, 1)[0]!);
    out.push([...order, ...rest]);
  }
  return out;
}

function permutations(items: readonly number[]): number[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((x, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((p) => [x, ...p]));
}

/** Builds the engine's graph; a rejected graph gives the error's `_tag`. */
export function build(spec: GraphSpec, trace: string[]): Graph | string {
  const calls = new Map<string, number>();
  const count = (name: string) => {
    const c = (calls.get(name) ?? 0) + 1;
    calls.set(name, c);
    trace.push(name);
    return c;
  };
  try {
    const nodes: AnyNode[] = spec.nodes.map((n) => {
      if (n.kind === "gate") {
        const targets: Target[] = n.targets.map((t) => (t === "END" ? END : t));
        return route(
          { name: n.name, inputs: n.inputs, targets, defaultOpen: n.defaultOpen },
          (args: Record<string, unknown>) => {
            const d = decideFor(
              n,
              count(n.name),
              n.inputs.map((i) => args[i]),
            );
            return d === "END" ? END : d;
          },
        );
      }
      const defaults = Object.fromEntries(n.defaults.map((d) => [d, 0]));
      return node(
        { name: n.name, inputs: n.inputs, output: [...n.outputs], defaults },
        (args: Record<string, unknown>) => {
          const c = count(n.name);
          return n.outputs.map((_, k) =>
            mix(
              n.name,
              c + k,
              n.inputs.map((i) => args[i]),
            ),
          );
        },
      );
    });
    let graph: Graph = new Graph(nodes, spec.entrypoint === undefined ? {} : { entrypoint: spec.entrypoint });
    // Bind what the graph takes as an input (binding a value a node produces is a build error, not a case).
    const bound = Object.fromEntries(Object.entries(spec.bound).filter(([k]) => graph.inputs.all.has(k)));
    if (Object.keys(bound).length > 0) graph = graph.bind(bound);
    return graph;
  } catch (error) {
    return (error as { _tag?: string })._tag ?? String(error);
  }
}

const runner = new Runner();

/** The values a run of the spec passes: the spec's values the graph takes, and 1 for anything else it needs. */
export function callerValues(spec: GraphSpec, graph: Graph): Record<string, number> {
  const values: Record<string, number> = {};
  for (const [k, v] of Object.entries(spec.values)) if (graph.inputs.all.has(k)) values[k] = v;
  // Whatever the graph needs from the caller and the spec does not give: 1.
  for (const k of [...graph.inputs.required, ...(spec.withoutSeeds ? [] : graph.inputs.seeds)]) values[k] ??= 1;
  return values;
}

/** Runs the spec on the engine (sync nodes, so the trace is the order the scheduler called them in). */
export async function runEngine(spec: GraphSpec, maxIterations: number): Promise<Outcome | string> {
  const trace: string[] = [];
  const graph = build(spec, trace);
  if (typeof graph === "string") return `rejected: ${graph}`;
  return runBuilt(spec, graph, trace, maxIterations);
}

/** Runs a graph {@link build} made (its nodes record their calls in `trace`). */
export async function runBuilt(
  spec: GraphSpec,
  graph: Graph,
  trace: string[],
  maxIterations: number,
): Promise<Outcome> {
  const values = callerValues(spec, graph);
  try {
    const r = await runner.run(graph, { values, maxIterations });
    return { trace, status: r.status, values: { ...r.values } };
  } catch (error) {
    const e = error as { _tag?: string; nodeName?: string; nodes?: readonly string[]; missing?: readonly string[] };
    const detail =
      e._tag === "InfiniteLoopError"
        ? ` ${e.nodeName} [${e.nodes?.join(",")}]`
        : e._tag === "MissingInputError"
          ? ` [${[...(e.missing ?? [])].sort().join(",")}]`
          : "";
    return { trace, status: "failed", values: {}, error: `${e._tag ?? String(error)}${detail}` };
  }
}
