import {
  type BrokenCycles,
  breakCycles,
  type CycleNode,
  type FeedbackKind,
  type PairInfo,
  pairKey,
  tarjan,
} from "./cycles.js";
import { computeLoops, type LoopInfo } from "./loops.js";

/** Minimal view of a node the analysis needs. */
export interface AnalysisNode extends CycleNode {}

export interface EdgeSpec {
  readonly from: string;
  readonly to: string;
  readonly kind: "data" | "control" | "ordering";
  readonly valueNames: readonly string[];
}

const key = pairKey;

/**
 * Everything the scheduler needs to know about a graph's shape, computed once per graph: strongly connected
 * components, entry nodes, feedback edges, seeds, a deterministic acyclic order and (lazily, memoised) reachability
 * used by the staleness exemptions and the "upstream first" rule. None of it depends on the order of the node list:
 * ties are broken by name (cycles.ts).
 */
export class Analysis {
  /** Node names in node-list order (per-node arrays of a run are indexed by this position; scheduling never is). */
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
  /** Components, each in acyclic order (entry first, then downstream, ties by name). */
  readonly components: readonly (readonly string[])[];
  /** Components that are cycles (more than one node, or a node with a self edge). */
  readonly cyclic: ReadonlySet<number>;
  /** Component id → its entry node(s). */
  readonly entries: ReadonlyMap<number, readonly string[]>;
  /** Edge keys (from, to) that close a cycle into its entry or carry loop-carried values back. */
  readonly feedback: ReadonlySet<string>;
  /** Every cycle found while breaking the loops (the loops themselves and the cycles inside them). */
  readonly cycles: BrokenCycles["cycles"];
  /** Build warnings: cycles whose entry only a name tie-break decided. */
  readonly warnings: readonly string[];
  /** Values carried by feedback data edges: the cycles' first values. */
  readonly seedValues: ReadonlySet<string>;
  /** node → seeds of the cycles it belongs to that it produces. */
  readonly ownCycleSeeds: ReadonlyMap<string, ReadonlySet<string>>;
  /** Topological position with feedback edges removed (ties broken by name). */
  readonly acyclicIndex: ReadonlyMap<string, number>;
  /** Topological position of each component in the condensation (ties broken by name). */
  readonly componentIndex: ReadonlyMap<number, number>;

  /** Seeds, gated loops and branch regions (see loops.ts). */
  readonly loops: LoopInfo;

  readonly #feedbackKind: ReadonlyMap<string, FeedbackKind>;
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
    bound: ReadonlySet<string>,
    onDeadlock: (cycle: readonly string[]) => never,
  ) {
    this.order = nodes.map((n) => n.name);
    this.position = new Map(this.order.map((n, i) => [n, i]));
    const nodeByName = new Map(nodes.map((n) => [n.name, n]));
    const sortedNames = [...this.order].sort(byName);
    const nameRank = new Map(sortedNames.map((n, i) => [n, i]));

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
    const succ = new Map<string, Set<string>>(nodes.map((n) => [n.name, new Set()]));
    const pairs = new Map<string, { values: Set<string>; nonData: boolean }>();
    for (const e of edges) {
      if (e.kind === "data") for (const v of e.valueNames) wired.get(e.to)!.get(v)?.add(e.from);
      if (e.kind === "control") controllers.get(e.to)!.push(e.from);
      succ.get(e.from)!.add(e.to);
      const k = key(e.from, e.to);
      const pair = pairs.get(k) ?? pairs.set(k, { values: new Set(), nonData: false }).get(k)!;
      if (e.kind === "data") for (const v of e.valueNames) pair.values.add(v);
      else pair.nonData = true;
    }
    for (const list of controllers.values()) list.sort(byName);
    this.wiredProducers = wired;
    this.consumers = consumers;
    this.controllers = controllers;

    // Components, numbered in name order of their smallest member.
    const successors = (n: string) => [...succ.get(n)!];
    const comps = tarjan(sortedNames, successors).map((c) => c.sort(byName));
    comps.sort((a, b) => byName(a[0]!, b[0]!));
    const componentOf = new Map<string, number>();
    comps.forEach((c, i) => {
      for (const n of c) componentOf.set(n, i);
    });
    this.componentOf = componentOf;
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
      (i) => i,
    );

    const broken = breakCycles(
      { nodes: nodeByName, succ, pairs: pairs as ReadonlyMap<string, PairInfo>, wired, entrypoints, bound },
      comps,
      cyclic,
      onDeadlock,
    );
    const feedback = new Set(broken.feedback.keys());
    this.#feedbackKind = broken.feedback;
    this.feedback = feedback;
    this.entries = broken.entries;
    this.cycles = broken.cycles;
    this.warnings = broken.warnings;

    const seeds = new Set<string>();
    const ownCycleSeeds = new Map<string, Set<string>>();
    // An acyclic graph has no feedback edges: skip building a pair key per edge just to miss.
    for (const e of feedback.size === 0 ? [] : edges) {
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
      this.#succ.set(from, feedback.size === 0 ? [...tos] : [...tos].filter((t) => !feedback.has(key(from, t))));
    this.acyclicIndex = kahn(
      this.order,
      (n) => this.#succ.get(n)!,
      (n) => nameRank.get(n)!,
    );
    // Each component in acyclic order: the loop's entry first, then what it feeds (InfiniteLoopError lists them so).
    this.components = comps.map((c) => [...c].sort((a, b) => this.acyclicIndex.get(a)! - this.acyclicIndex.get(b)!));
    for (const n of nodes) if (n.isGate) this.#isGate.add(n.name);
    this.loops = computeLoops(nodes, this);
  }

  /** The entry node(s) of the loop `node` belongs to (empty outside loops). */
  loopEntries(node: string): readonly string[] {
    const c = this.componentOf.get(node)!;
    return this.cyclic.has(c) ? (this.entries.get(c) ?? []) : [];
  }

  /**
   * Is `value` loop-carried in the loop `node` is in (a seed, or a value bound or defaulted that the loop rewrites),
   * read by `node` although it is not that loop's entry? Such a node reads it in the next iteration.
   */
  isSeedForNonEntry(value: string, node: string): boolean {
    const c = this.componentOf.get(node)!;
    return (this.loops.carried.get(c)?.has(value) ?? false) && !(this.entries.get(c) ?? []).includes(node);
  }

  /** Is (from → to) a feedback edge that carries loop-carried values to a node other than its cycle's entry? */
  isCarriedFeedback(from: string, to: string): boolean {
    return this.#feedbackKind.get(key(from, to)) === "carried";
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

/** Kahn's algorithm, ties broken by the smallest rank (a binary heap: wide graphs stay O(n log n)); item → position. */
function kahn<T>(items: readonly T[], next: (item: T) => Iterable<T>, rank: (item: T) => number): Map<T, number> {
  const indegree = new Map<T, number>(items.map((i) => [i, 0]));
  for (const i of items) for (const j of next(i)) indegree.set(j, (indegree.get(j) ?? 0) + 1);
  const heap = new RankHeap<T>(rank);
  for (const i of items) if (indegree.get(i) === 0) heap.push(i);
  const out = new Map<T, number>();
  while (heap.size > 0) {
    const item = heap.pop();
    out.set(item, out.size);
    for (const j of next(item)) {
      const d = indegree.get(j)! - 1;
      indegree.set(j, d);
      if (d === 0) heap.push(j);
    }
  }
  // Anything left is in a cycle that feedback edges did not break (should not happen); append in rank order.
  for (const i of [...items].sort((a, b) => rank(a) - rank(b))) if (!out.has(i)) out.set(i, out.size);
  return out;
}

class RankHeap<T> {
  readonly #items: { item: T; rank: number }[] = [];
  readonly #rank: (item: T) => number;
  constructor(rank: (item: T) => number) {
    this.#rank = rank;
  }
  get size(): number {
    return this.#items.length;
  }
  push(item: T): void {
    const a = this.#items;
    a.push({ item, rank: this.#rank(item) });
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (a[p]!.rank <= a[i]!.rank) break;
      [a[p], a[i]] = [a[i]!, a[p]!];
      i = p;
    }
  }
  pop(): T {
    const a = this.#items;
    const top = a[0]!;
    const last = a.pop()!;
    if (a.length > 0) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && a[l]!.rank < a[m]!.rank) m = l;
        if (r < a.length && a[r]!.rank < a[m]!.rank) m = r;
        if (m === i) break;
        [a[m], a[i]] = [a[i]!, a[m]!];
        i = m;
      }
    }
    return top.item;
  }
}

function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
