import { DirectedGraph } from "graphology";
import { computeLoops, type LoopInfo } from "./loops.js";

/** Minimal view of a node the analysis needs. */
export interface AnalysisNode {
  readonly name: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  readonly isGate: boolean;
  readonly targets?: readonly unknown[];
  readonly defaultOpen?: boolean;
}

export interface EdgeSpec {
  readonly from: string;
  readonly to: string;
  readonly kind: "data" | "control" | "ordering";
  readonly valueNames: readonly string[];
}

const key = (from: string, to: string) => `${from}\u0000${to}`;

/**
 * Everything the scheduler needs to know about a graph's shape, computed once per graph:
 * strongly connected components, entry nodes, feedback edges, seeds, a deterministic acyclic order and
 * (lazily, memoised) reachability used by the staleness exemptions and the "upstream first" rule.
 */
export class Analysis {
  readonly order: readonly string[];
  readonly position: ReadonlyMap<string, number>;
  /** value name → producers (node-list order). */
  readonly producers: ReadonlyMap<string, readonly string[]>;
  /** node → input → wired producers. */
  readonly wiredProducers: ReadonlyMap<string, ReadonlyMap<string, ReadonlySet<string>>>;
  /** value name → nodes that consume it through a data edge or as a graph input. */
  readonly consumers: ReadonlyMap<string, readonly string[]>;
  /** node → gates that target it. */
  readonly controllers: ReadonlyMap<string, readonly string[]>;
  /** node → component id. */
  readonly componentOf: ReadonlyMap<string, number>;
  readonly components: readonly (readonly string[])[];
  /** Components that are cycles (more than one node, or a node with a self edge). */
  readonly cyclic: ReadonlySet<number>;
  /** Component id → its entry node(s). */
  readonly entries: ReadonlyMap<number, readonly string[]>;
  /** Edge keys (from, to) that close a cycle into its entry. */
  readonly feedback: ReadonlySet<string>;
  /** Values carried by feedback data edges: the cycles' first values. */
  readonly seedValues: ReadonlySet<string>;
  /** node → seeds of the cycles it belongs to that it produces. */
  readonly ownCycleSeeds: ReadonlyMap<string, ReadonlySet<string>>;
  /** Topological position with feedback edges removed (ties broken by node-list order). */
  readonly acyclicIndex: ReadonlyMap<string, number>;
  /** Topological position of each component in the condensation. */
  readonly componentIndex: ReadonlyMap<number, number>;

  /** Seeds, gated loops and branch regions (see loops.ts). */
  readonly loops: LoopInfo;

  readonly #succ = new Map<string, string[]>(); // acyclic successors
  readonly #isGate = new Set<string>();
  readonly #gatedReach = new Map<string, Set<string>>();
  readonly #compSucc = new Map<number, Set<number>>();
  readonly #descendants = new Map<string, Set<string>>();
  readonly #compDescendants = new Map<number, Set<number>>();

  constructor(
    nodes: readonly AnalysisNode[],
    edges: readonly EdgeSpec[],
    entrypoints: ReadonlySet<string>,
    pickEntry: (candidates: readonly string[], component: readonly string[]) => readonly string[],
  ) {
    this.order = nodes.map((n) => n.name);
    this.position = new Map(this.order.map((n, i) => [n, i]));
    const byName = new Map(nodes.map((n) => [n.name, n]));

    const producers = new Map<string, string[]>();
    for (const n of nodes) for (const o of n.outputs) (producers.get(o) ?? producers.set(o, []).get(o)!).push(n.name);
    this.producers = producers;

    const wired = new Map<string, Map<string, Set<string>>>();
    const consumers = new Map<string, string[]>();
    for (const n of nodes) {
      wired.set(n.name, new Map(n.inputs.map((i) => [i, new Set<string>()])));
      for (const i of n.inputs) (consumers.get(i) ?? consumers.set(i, []).get(i)!).push(n.name);
    }
    const controllers = new Map<string, string[]>(nodes.map((n) => [n.name, []]));
    const g = new DirectedGraph({ allowSelfLoops: true });
    for (const n of nodes) g.addNode(n.name);
    const succ = new Map<string, Set<string>>(nodes.map((n) => [n.name, new Set()]));
    for (const e of edges) {
      if (e.kind === "data") for (const v of e.valueNames) wired.get(e.to)!.get(v)?.add(e.from);
      if (e.kind === "control") controllers.get(e.to)!.push(e.from);
      if (!g.hasEdge(e.from, e.to)) g.addEdge(e.from, e.to);
      succ.get(e.from)!.add(e.to);
    }
    this.wiredProducers = wired;
    this.consumers = consumers;
    this.controllers = controllers;

    // Components, in a deterministic topological order of the condensation.
    const rawComponents = stronglyConnected(g);
    const componentOf = new Map<string, number>();
    const comps = rawComponents.map((c) => [...c].sort((a, b) => this.position.get(a)! - this.position.get(b)!));
    comps.sort((a, b) => this.position.get(a[0]!)! - this.position.get(b[0]!)!);
    comps.forEach((c, i) => {
      for (const n of c) componentOf.set(n, i);
    });
    this.componentOf = componentOf;
    this.components = comps;
    const cyclic = new Set<number>();
    comps.forEach((c, i) => {
      if (c.length > 1 || succ.get(c[0]!)!.has(c[0]!)) cyclic.add(i);
    });
    this.cyclic = cyclic;
    for (const [from, tos] of succ) {
      for (const to of tos) {
        const a = componentOf.get(from)!;
        const b = componentOf.get(to)!;
        if (a !== b) (this.#compSucc.get(a) ?? this.#compSucc.set(a, new Set()).get(a)!).add(b);
      }
    }
    this.componentIndex = kahn(
      comps.map((_, i) => i),
      (i) => this.#compSucc.get(i) ?? [],
      (i) => this.position.get(comps[i]![0]!)!,
    );

    // Break cycles: pick an entry per cyclic component, drop the edges into it from inside, recurse.
    const feedback = new Set<string>();
    const entries = new Map<number, string[]>();
    const breakCycles = (members: readonly string[], top: number | undefined) => {
      const memberSet = new Set(members);
      const sub = new DirectedGraph({ allowSelfLoops: true });
      for (const m of members) sub.addNode(m);
      for (const m of members)
        for (const t of succ.get(m)!)
          if (memberSet.has(t) && !feedback.has(key(m, t)) && !sub.hasEdge(m, t)) sub.addEdge(m, t);
      for (const raw of stronglyConnected(sub)) {
        const comp = [...raw].sort((a, b) => this.position.get(a)! - this.position.get(b)!);
        const selfLoop = comp.length === 1 && sub.hasEdge(comp[0]!, comp[0]!);
        if (comp.length === 1 && !selfLoop) continue;
        const compSet = new Set(comp);
        const configured = comp.filter((n) => entrypoints.has(n));
        // A cycle left inside a loop once its feedback edges are gone is entered where the rest of the loop enters
        // it: the first such node in node-list order (unless an entrypoint lies in it).
        const enteredFromLoop =
          top === undefined && configured.length === 0
            ? comp.filter((n) => sub.inNeighbors(n).some((m) => !compSet.has(m)))
            : [];
        // pickEntry still drops nodes a closed gate holds back (none left: the sub-cycle deadlocks).
        const chosen = pickEntry(
          enteredFromLoop.length > 0 ? enteredFromLoop : configured.length > 0 ? configured : comp,
          comp,
        );
        if (top !== undefined && !entries.has(top)) entries.set(top, [...chosen]);
        // No entry: the cycle can't start (validation reports the deadlock); nothing to break further.
        if (chosen.length === 0) continue;
        for (const entry of chosen) for (const m of comp) if (sub.hasEdge(m, entry)) feedback.add(key(m, entry));
        breakCycles(comp, undefined);
      }
    };
    for (const i of cyclic) {
      breakCycles(comps[i]!, i);
    }
    this.feedback = feedback;
    this.entries = entries;

    const seeds = new Set<string>();
    const ownCycleSeeds = new Map<string, Set<string>>();
    for (const e of edges) {
      if (e.kind !== "data" || !feedback.has(key(e.from, e.to))) continue;
      for (const v of e.valueNames) {
        seeds.add(v);
        // Every producer of the seed inside the same component "owns" it: supplying it does not skip them.
        const comp = componentOf.get(e.to)!;
        for (const p of producers.get(v) ?? []) {
          if (componentOf.get(p) === comp) (ownCycleSeeds.get(p) ?? ownCycleSeeds.set(p, new Set()).get(p)!).add(v);
        }
      }
    }
    this.seedValues = seeds;
    this.ownCycleSeeds = ownCycleSeeds;

    for (const [from, tos] of succ)
      this.#succ.set(
        from,
        [...tos].filter((t) => !feedback.has(key(from, t))),
      );
    this.acyclicIndex = kahn(
      this.order,
      (n) => this.#succ.get(n)!,
      (n) => this.position.get(n)!,
    );
    for (const n of nodes) if (n.isGate) this.#isGate.add(n.name);
    this.loops = computeLoops(nodes, this);
    void byName;
  }

  /** The entry node(s) of the loop `node` belongs to (empty outside loops). */
  loopEntries(node: string): readonly string[] {
    const c = this.componentOf.get(node)!;
    return this.cyclic.has(c) ? (this.entries.get(c) ?? []) : [];
  }

  /** Is `value` a seed of the loop `node` is in, read by `node` although it is not that loop's entry? */
  isSeedForNonEntry(value: string, node: string): boolean {
    const c = this.componentOf.get(node)!;
    return (this.loops.seeds.get(c)?.has(value) ?? false) && !(this.entries.get(c) ?? []).includes(node);
  }

  /**
   * Does a gate lie on some path from `a` to `b` once feedback edges are removed (`a` itself counts)? Then a value
   * `b` writes back to `a` came around a gate's loop, and `a` is stale at once instead of at the next run.
   */
  gateBetween(a: string, b: string): boolean {
    let set = this.#gatedReach.get(a);
    if (set === undefined) {
      set = new Set();
      const gates = this.#isGate.has(a) ? [a] : [];
      if (gates.length === 0) for (const d of this.#descendantsOf(a)) if (this.#isGate.has(d)) gates.push(d);
      for (const g of gates) for (const d of this.#descendantsOf(g)) set.add(d);
      this.#gatedReach.set(a, set);
    }
    return set.has(b);
  }

  #descendantsOf(a: string): Set<string> {
    let set = this.#descendants.get(a);
    if (set === undefined) {
      set = new Set();
      const stack = [...this.#succ.get(a)!];
      while (stack.length > 0) {
        const n = stack.pop()!;
        if (set.has(n)) continue;
        set.add(n);
        stack.push(...this.#succ.get(n)!);
      }
      this.#descendants.set(a, set);
    }
    return set;
  }

  /** Is `edge` (from → to) a feedback edge? */
  isFeedback(from: string, to: string): boolean {
    return this.feedback.has(key(from, to));
  }

  /** Is `b` reachable from `a` once feedback edges are removed? (Used by the downstream-producer exemption.) */
  reachesAcyclic(a: string, b: string): boolean {
    if (a === b) return false;
    if (this.acyclicIndex.get(a)! > this.acyclicIndex.get(b)!) return false;
    return this.#descendantsOf(a).has(b);
  }

  /**
   * Must `b` wait while `a` is ready? True when `a`'s component comes before `b`'s in the condensation (a loop
   * settles before anything downstream of it starts), or, inside one component, when `a` reaches `b` without
   * feedback edges.
   */
  isUpstream(a: string, b: string): boolean {
    const ca = this.componentOf.get(a)!;
    const cb = this.componentOf.get(b)!;
    if (ca === cb) return this.reachesAcyclic(a, b);
    if (this.componentIndex.get(ca)! > this.componentIndex.get(cb)!) return false;
    return this.componentsDownstream(ca).has(cb);
  }

  /** The components reachable from component `c` (not `c` itself), memoised. */
  componentsDownstream(c: number): ReadonlySet<number> {
    let set = this.#compDescendants.get(c);
    if (set === undefined) {
      set = new Set();
      const stack = [...(this.#compSucc.get(c) ?? [])];
      while (stack.length > 0) {
        const d = stack.pop()!;
        if (set.has(d)) continue;
        set.add(d);
        stack.push(...(this.#compSucc.get(d) ?? []));
      }
      this.#compDescendants.set(c, set);
    }
    return set;
  }

  /** Are both nodes in the same cyclic component? */
  sameCycle(a: string, b: string): boolean {
    const c = this.componentOf.get(a);
    return c !== undefined && c === this.componentOf.get(b) && this.cyclic.has(c);
  }
}

/** Kahn's algorithm with deterministic tie-breaking; returns item → position. */
function kahn<T>(items: readonly T[], next: (item: T) => Iterable<T>, rank: (item: T) => number): Map<T, number> {
  const indegree = new Map<T, number>(items.map((i) => [i, 0]));
  for (const i of items) for (const j of next(i)) indegree.set(j, (indegree.get(j) ?? 0) + 1);
  const ready = items.filter((i) => indegree.get(i) === 0).sort((a, b) => rank(a) - rank(b));
  const out = new Map<T, number>();
  while (ready.length > 0) {
    const item = ready.shift()!;
    out.set(item, out.size);
    for (const j of next(item)) {
      const d = indegree.get(j)! - 1;
      indegree.set(j, d);
      if (d === 0) {
        const r = rank(j);
        let at = ready.findIndex((x) => rank(x) > r);
        if (at < 0) at = ready.length;
        ready.splice(at, 0, j);
      }
    }
  }
  // Anything left is in a cycle that feedback edges did not break (should not happen); append in rank order.
  for (const i of [...items].sort((a, b) => rank(a) - rank(b))) if (!out.has(i)) out.set(i, out.size);
  return out;
}

/**
 * Tarjan's strongly connected components, iterative: graphology-components recurses once per node and overflows
 * the stack on long chains (≈ 8,000 nodes).
 */
function stronglyConnected(graph: DirectedGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const result: string[][] = [];
  let counter = 0;
  for (const root of graph.nodes()) {
    if (index.has(root)) continue;
    const work: Array<{ node: string; next: string[]; i: number }> = [
      { node: root, next: graph.outNeighbors(root), i: 0 },
    ];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      if (frame.i < frame.next.length) {
        const w = frame.next[frame.i++]!;
        if (!index.has(w)) {
          index.set(w, counter);
          low.set(w, counter++);
          stack.push(w);
          onStack.add(w);
          work.push({ node: w, next: graph.outNeighbors(w), i: 0 });
        } else if (onStack.has(w)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(w)!));
        }
        continue;
      }
      work.pop();
      const v = frame.node;
      const parent = work[work.length - 1];
      if (parent !== undefined) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(v)!));
      if (low.get(v) === index.get(v)) {
        const component: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          component.push(w);
        } while (w !== v);
        result.push(component);
      }
    }
  }
  return result;
}
