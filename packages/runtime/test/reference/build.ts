/**
 * Reference model, part 0: which graphs the build refuses (a GraphConfigError), by the rules of docs/semantics.md
 * and docs/graphs.md, and which values `bind` may take. Like the rest of the model it shares no code with the
 * engine and reads the rules as written.
 */
import { Deadlock, type RefGraph, type RefNode, Structure } from "./structure.js";

/** Why the build refuses the graph, or its structure (with `bind` applied) when it builds. */
export type RefBuild = { readonly rejected: string } | { readonly structure: Structure; readonly bound: Set<string> };

/** Builds `nodes` as `new Graph(nodes, { entrypoint }).bind(values of `bindable` the graph takes as inputs)`. */
export function referenceBuild(
  nodes: readonly RefNode[],
  entrypoint: string | undefined,
  bindable: readonly string[],
): RefBuild {
  const first = structureOf({ nodes, entrypoint, bound: new Set() });
  if ("rejected" in first) return first;
  const inputs = graphInputs(first);
  const bound = new Set(bindable.filter((k) => inputs.has(k)));
  if (bound.size === 0) return { structure: first, bound };
  const rebound = structureOf({ nodes, entrypoint, bound });
  return "rejected" in rebound ? rebound : { structure: rebound, bound };
}

function structureOf(graph: RefGraph): { rejected: string } | Structure {
  let s: Structure;
  try {
    s = new Structure(graph);
  } catch (error) {
    if (error instanceof Deadlock) return { rejected: error.message };
    throw error;
  }
  const why = entrypointOutsideLoops(s) ?? loopWithoutExit(s) ?? sharedProducer(s);
  return why === undefined ? s : { rejected: why };
}

/** The values the caller may give: read with no producer wired in, or only over feedback edges. */
function graphInputs(s: Structure): Set<string> {
  const out = new Set<string>();
  for (const r of s.names)
    for (const k of s.node.get(r)!.inputs) {
      const wired = s.producers(k).filter((p) => s.hasEdge(p, r));
      if (wired.every((p) => s.feedback.has(`${p}>${r}`))) out.add(k);
    }
  return out;
}

function entrypointOutsideLoops(s: Structure): string | undefined {
  const ep = s.graph.entrypoint;
  return ep !== undefined && !s.isCycle(s.component.get(ep)!) ? `entrypoint '${ep}' is not part of a cycle` : undefined;
}

/** A loop whose gates only route back into it never ends. */
function loopWithoutExit(s: Structure): string | undefined {
  for (const id of s.loops.keys()) {
    const members = s.component.get(id)!;
    const gates = [...members].filter((m) => s.node.get(m)!.kind === "gate");
    if (gates.length === 0) continue;
    if (!gates.some((g) => s.node.get(g)!.targets.some((t) => t === "END" || !members.has(t))))
      return `loop ${id} has no termination path`;
  }
  return undefined;
}

/**
 * Two producers of one value must lie in exclusive branches of a single-choice gate, and, when both branches are in
 * the gate's loop, the gate must decide before either runs (defaultOpen: false, or an entrypoint in the loop).
 */
function sharedProducer(s: Structure): string | undefined {
  const values = new Set(s.names.flatMap((n) => s.node.get(n)!.outputs));
  for (const v of values) {
    const producers = s.producers(v);
    for (let i = 0; i < producers.length; i++)
      for (let j = i + 1; j < producers.length; j++) {
        const pairs = exclusive(s, producers[i]!, producers[j]!);
        if (pairs.length === 0) return `'${producers[i]}' and '${producers[j]}' both produce '${v}'`;
        // A target runs when any of its gates permits it: one gate opening both before it decides is enough.
        const open = pairs.find((pair) => opensBeforeDeciding(s, pair.gate, pair.targets));
        if (open !== undefined) return `gate '${open.gate}' lets both run before deciding`;
      }
  }
  return undefined;
}

/** Every gate (by name) whose exclusive branches hold `a` and `b`, in different branches. */
function exclusive(s: Structure, a: string, b: string): { gate: string; targets: [string, string] }[] {
  const out: { gate: string; targets: [string, string] }[] = [];
  for (const g of s.names) {
    if (s.node.get(g)!.kind !== "gate") continue;
    const owned = ownedBranches(s, g);
    const ia = owned.findIndex(([, set]) => set.has(a));
    const ib = owned.findIndex(([, set]) => set.has(b));
    if (ia >= 0 && ib >= 0 && ia !== ib) out.push({ gate: g, targets: [owned[ia]![0], owned[ib]![0]] });
  }
  return out;
}

/** Each target's branch: its region in the gate's loop, else what it reaches without the gate; minus what others reach. */
function ownedBranches(s: Structure, g: string): [string, Set<string>][] {
  const targets = s.node.get(g)!.targets.filter((t) => t !== "END");
  const inLoop = (t: string) => s.component.get(g)!.has(t) && s.loops.has(s.loopId(g));
  const configured = s.graph.entrypoint !== undefined && s.component.get(g)!.has(s.graph.entrypoint);
  const branches = targets.map((t) =>
    inLoop(t) ? new Set(s.regions.get(g)?.get(t) ?? (configured ? [] : [t])) : reachWithout(s, g, t),
  );
  return targets.map((t, i) => [
    t,
    new Set(
      [...branches[i]!].filter(
        (n) => n === t || (!targets.includes(n) && branches.every((other, j) => j === i || !other.has(n))),
      ),
    ),
  ]);
}

function reachWithout(s: Structure, gate: string, start: string): Set<string> {
  const out = new Set([start]);
  const stack = [start];
  while (stack.length > 0) {
    const n = stack.pop()!;
    for (const m of s.names)
      if (m !== gate && !out.has(m) && s.forward(n, m)) {
        out.add(m);
        stack.push(m);
      }
  }
  return out;
}

function opensBeforeDeciding(s: Structure, g: string, targets: readonly string[]): boolean {
  const comp = s.component.get(g)!;
  if (!s.isCycle(comp) || !s.node.get(g)!.defaultOpen) return false;
  if (!targets.every((t) => comp.has(t))) return false;
  return s.graph.entrypoint === undefined || !comp.has(s.graph.entrypoint);
}
