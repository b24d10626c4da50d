/**
 * Reference model, part 1: what the scheduling rules of docs/semantics.md ("Loops") derive from a graph's structure.
 * Written for reading, not speed, and sharing no code with the engine: the differential test
 * (test/reference.test.ts) runs random graphs through both and expects the same runs. Node-list order is never
 * consulted; every tie goes to the name that sorts first.
 */

/** Thrown when a cycle has no node that can run first (the build refuses the graph). */
export class Deadlock extends Error {}

export interface RefNode {
  readonly name: string;
  readonly kind: "fn" | "gate";
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  /** Gates: node names or "END". */
  readonly targets: readonly string[];
  readonly defaultOpen: boolean;
  /** Inputs with a default. */
  readonly defaults: readonly string[];
  /** What an input with a default gets when nothing wrote it (absent: 0); a nested graph's node passes nothing. */
  readonly unset?: unknown;
}

export interface RefGraph {
  readonly nodes: readonly RefNode[];
  readonly entrypoint: string | undefined;
  readonly bound: ReadonlySet<string>;
}

type Kind = "entry" | "carried";

export class Structure {
  readonly node = new Map<string, RefNode>();
  readonly names: string[];
  /** Edges: "from>to" → the values its data edges carry, and whether a gate's control edge is among them. */
  readonly edges = new Map<string, { values: Set<string>; control: boolean }>();
  readonly feedback = new Map<string, Kind>();
  /** Node → its component (the set of nodes it reaches and is reached by). */
  readonly component = new Map<string, ReadonlySet<string>>();
  /** Per cyclic component (keyed by its smallest name): entries, loop-carried values, seeds, is it gated. */
  readonly loops = new Map<string, { entries: string[]; carried: Set<string>; seeds: Set<string>; gated: boolean }>();
  /** Gate → target → region. */
  readonly regions = new Map<string, Map<string, Set<string>>>();
  /** Node names in scheduling order: upstream first (feedback edges removed), ties by name. */
  readonly rank: string[] = [];

  constructor(readonly graph: RefGraph) {
    for (const n of graph.nodes) this.node.set(n.name, n);
    this.names = [...this.node.keys()].sort();
    for (const r of this.names)
      for (const input of this.node.get(r)!.inputs)
        for (const p of this.producers(input)) this.edge(p, r).values.add(input);
    for (const g of this.names)
      for (const t of this.node.get(g)!.targets) if (t !== "END") this.edge(g, t).control = true;
    for (const n of this.names) {
      const comp = new Set(this.names.filter((m) => m === n || (this.reaches(n, m, true) && this.reaches(m, n, true))));
      this.component.set(n, comp);
    }
    for (const n of this.names) {
      const comp = this.component.get(n)!;
      const id = this.loopId(n);
      if (this.loops.has(id) || !this.isCycle(comp)) continue;
      this.breakCycle([...comp].sort(), comp, 0);
    }
    for (const id of this.loops.keys()) this.computeRegions(id);
    // Kahn's order over the edges that are not feedback edges, always taking the smallest name that is free.
    const placed = new Set<string>();
    while (placed.size < this.names.length) {
      const free = this.names.find(
        (n) => !placed.has(n) && this.names.every((m) => placed.has(m) || !this.forward(m, n)),
      )!;
      placed.add(free);
      this.rank.push(free);
    }
  }

  producers(value: string): string[] {
    return this.names.filter((n) => this.node.get(n)!.outputs.includes(value));
  }

  edge(from: string, to: string) {
    const k = `${from}>${to}`;
    if (!this.edges.has(k)) this.edges.set(k, { values: new Set(), control: false });
    return this.edges.get(k)!;
  }

  hasEdge(from: string, to: string): boolean {
    return this.edges.has(`${from}>${to}`);
  }

  /** An edge that is not a feedback edge. */
  forward(from: string, to: string): boolean {
    return this.hasEdge(from, to) && !this.feedback.has(`${from}>${to}`);
  }

  /** Is `b` reachable from `a` in one or more steps (over every edge, or only forward edges)? */
  reaches(a: string, b: string, everyEdge = false): boolean {
    const seen = new Set<string>();
    const stack = [a];
    while (stack.length > 0) {
      const m = stack.pop()!;
      for (const t of this.names) {
        if (seen.has(t) || !(everyEdge ? this.hasEdge(m, t) : this.forward(m, t))) continue;
        if (t === b) return true;
        seen.add(t);
        stack.push(t);
      }
    }
    return false;
  }

  loopId(n: string): string {
    return [...this.component.get(n)!].sort()[0]!;
  }

  isCycle(set: ReadonlySet<string>): boolean {
    return set.size > 1 || [...set].some((n) => this.hasEdge(n, n));
  }

  /** Is the value read by `reader` produced by a node of `set`? */
  fromInside(reader: string, value: string, set: ReadonlySet<string>): boolean {
    return this.producers(value).some((p) => set.has(p) && this.hasEdge(p, reader));
  }

  /** Cycle entries, loop-carried values and feedback edges (docs/semantics.md), then the cycles left inside. */
  breakCycle(cycle: readonly string[], loop: ReadonlySet<string>, depth: number): void {
    const inCycle = new Set(cycle);
    const gatesOfLoop = [...loop].map((n) => this.node.get(n)!).filter((n) => n.kind === "gate");
    let entries: string[];
    if (this.graph.entrypoint !== undefined && inCycle.has(this.graph.entrypoint)) entries = [this.graph.entrypoint];
    else {
      let left = [...cycle];
      if (depth > 0) {
        const entered = left.filter((n) => [...loop].some((m) => !inCycle.has(m) && this.forward(m, n)));
        if (entered.length > 0) left = entered;
      }
      // Every node it can be entered through waits for a `defaultOpen: false` gate of the cycle: nothing starts it.
      const closedHere = cycle.filter((g) => this.node.get(g)!.kind === "gate" && !this.node.get(g)!.defaultOpen);
      if (left.every((n) => closedHere.some((g) => this.node.get(g)!.targets.includes(n))))
        throw new Deadlock(`cycle ${cycle.join(",")} cannot start`);
      const keep = (test: (n: string) => boolean) => {
        const kept = left.filter(test);
        if (kept.length > 0) left = kept;
      };
      if (depth === 0) {
        keep((n) => !gatesOfLoop.some((g) => !g.defaultOpen && g.targets.includes(n)));
        keep((n) =>
          this.node
            .get(n)!
            .inputs.every(
              (i) =>
                !this.fromInside(n, i, loop) ||
                this.graph.bound.has(i) ||
                this.node.get(n)!.defaults.includes(i) ||
                this.accumulator(i, loop),
            ),
        );
      }
      keep((n) => gatesOfLoop.some((g) => g.targets.includes(n)));
      const inside = (n: string) => this.node.get(n)!.inputs.filter((i) => this.fromInside(n, i, inCycle)).length;
      const fewest = Math.min(...left.map(inside));
      keep((n) => inside(n) === fewest);
      entries = [left.sort()[0]!];
    }
    const carried = new Set<string>();
    for (const r of cycle)
      for (const i of this.node.get(r)!.inputs)
        if (
          this.fromInside(r, i, inCycle) &&
          (entries.includes(r) || this.graph.bound.has(i) || this.node.get(r)!.defaults.includes(i))
        )
          carried.add(i);
    if (depth === 0) {
      const seeds = new Set(
        entries.flatMap((e) => this.node.get(e)!.inputs.filter((i) => this.fromInside(e, i, inCycle))),
      );
      this.loops.set(cycle[0]!, { entries, carried, seeds, gated: gatesOfLoop.length > 0 });
    }
    // Feedback: every edge into the entry from inside; a data edge inside carrying only loop-carried values when its
    // reader reaches its writer without such edges (and without edges into the entry).
    const live = (a: string, b: string) => inCycle.has(a) && inCycle.has(b) && this.forward(a, b);
    const onlyCarried = (a: string, b: string) => {
      const e = this.edges.get(`${a}>${b}`)!;
      return !e.control && e.values.size > 0 && [...e.values].every((v) => carried.has(v)) && !entries.includes(b);
    };
    const found: [string, Kind][] = [];
    for (const m of cycle) for (const e of entries) if (live(m, e)) found.push([`${m}>${e}`, "entry"]);
    for (const a of cycle)
      for (const b of cycle) {
        if (!live(a, b) || !onlyCarried(a, b)) continue;
        const seen = new Set([b]);
        const stack = [b];
        while (stack.length > 0) {
          const m = stack.pop()!;
          for (const t of cycle)
            if (!seen.has(t) && live(m, t) && !entries.includes(t) && !onlyCarried(m, t)) {
              seen.add(t);
              stack.push(t);
            }
        }
        if (seen.has(a)) found.push([`${a}>${b}`, "carried"]);
      }
    for (const [k, kind] of found) this.feedback.set(k, kind);
    // What is left: the cycles among the remaining edges, each broken the same way.
    const done = new Set<string>();
    for (const n of cycle) {
      if (done.has(n)) continue;
      const part = cycle.filter(
        (m) => m === n || (this.reachesWithin(n, m, inCycle) && this.reachesWithin(m, n, inCycle)),
      );
      for (const m of part) done.add(m);
      if (part.length > 1 || live(n, n)) this.breakCycle(part, loop, depth + 1);
    }
  }

  /** Every node of `loop` that writes `value` also reads it (a history the caller seeds). */
  accumulator(value: string, loop: ReadonlySet<string>): boolean {
    return [...loop].every(
      (m) => !this.node.get(m)!.outputs.includes(value) || this.node.get(m)!.inputs.includes(value),
    );
  }

  reachesWithin(a: string, b: string, set: ReadonlySet<string>): boolean {
    const seen = new Set<string>();
    const stack = [a];
    while (stack.length > 0) {
      const m = stack.pop()!;
      for (const t of set)
        if (!seen.has(t) && this.forward(m, t)) {
          if (t === b) return true;
          seen.add(t);
          stack.push(t);
        }
    }
    return false;
  }

  /** Regions of the gates of a gated loop: what a target causes to run before the entry runs again. */
  computeRegions(id: string): void {
    const loop = this.loops.get(id)!;
    if (!loop.gated) return;
    const members = this.component.get(id)!;
    const inLoop = (n: string) => members.has(n) && !loop.entries.includes(n);
    for (const g of [...members].filter((n) => this.node.get(n)!.kind === "gate")) {
      const perTarget = new Map<string, Set<string>>();
      for (const t of this.node.get(g)!.targets) {
        if (t === "END" || !inLoop(t)) continue;
        const region = new Set([t]);
        const stack = [t];
        while (stack.length > 0) {
          const m = this.node.get(stack.pop()!)!;
          const next = [
            ...m.outputs
              .filter((v) => !loop.carried.has(v))
              .flatMap((v) =>
                this.names.filter((k) => this.node.get(k)!.inputs.includes(v) && this.controllers(k).length === 0),
              ),
            ...m.targets,
          ];
          for (const k of next)
            if (k !== "END" && inLoop(k) && !region.has(k)) {
              region.add(k);
              stack.push(k);
            }
        }
        perTarget.set(t, region);
      }
      this.regions.set(g, perTarget);
    }
  }

  controllers(n: string): string[] {
    return this.names.filter((g) => this.node.get(g)!.targets.includes(n));
  }

  sameLoop(a: string, b: string): boolean {
    return this.component.get(a)!.has(b) && this.loops.has(this.loopId(a));
  }

  /** Loop-carried in the loop `n` is in, read by `n` though `n` is not that loop's entry. */
  carriedForNonEntry(value: string, n: string): boolean {
    const loop = this.loops.get(this.loopId(n));
    if (loop === undefined) return false;
    return loop.carried.has(value) && !loop.entries.includes(n);
  }

  /** Does a gate lie on a forward path from `a` to `b` (`a` itself counts)? */
  gateBetween(a: string, b: string): boolean {
    return this.names.some(
      (g) => this.node.get(g)!.kind === "gate" && (g === a || this.reaches(a, g)) && this.reaches(g, b),
    );
  }

  /** Must `b` wait while `a` is ready? `a`'s loop comes first, or (same loop) `a` reaches `b` over forward edges. */
  upstream(a: string, b: string): boolean {
    if (this.component.get(a)!.has(b)) return a !== b && this.reaches(a, b);
    return this.reaches(a, b, true);
  }
}
