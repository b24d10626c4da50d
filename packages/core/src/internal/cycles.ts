/**
 * Breaking a graph's cycles into an acyclic order: each cycle's entry, its loop-carried values and its feedback
 * edges, recursively until no cycle is left (docs/semantics.md, "Loops"). Every choice here is a function of the
 * graph's structure — never of the position of a node in the list given to `new Graph` — so any permutation of
 * the node list schedules the same way. Where the structure leaves a tie, the name that sorts first wins and the
 * build records a warning.
 */

/** What the cycle analysis needs to know about a node. */
export interface CycleNode {
  readonly name: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  readonly isGate: boolean;
  readonly targets?: readonly unknown[];
  readonly defaultOpen?: boolean;
  /** Does the node declare a default for this input? */
  hasDefault?(input: string): boolean;
}

/** One edge pair (from → to) as the cycle analysis sees it: the values its data edges carry. */
export interface PairInfo {
  readonly values: ReadonlySet<string>;
  /** Some edge of the pair is a control or ordering edge (then it never carries "only loop-carried values"). */
  readonly nonData: boolean;
}

export interface CycleGraph {
  readonly nodes: ReadonlyMap<string, CycleNode>;
  /** Successors over every edge (data, control, ordering). */
  readonly succ: ReadonlyMap<string, ReadonlySet<string>>;
  readonly pairs: ReadonlyMap<string, PairInfo>;
  /** node → input → wired producers. */
  readonly wired: ReadonlyMap<string, ReadonlyMap<string, ReadonlySet<string>>>;
  readonly entrypoints: ReadonlySet<string>;
  /** Values bound on the graph. */
  readonly bound: ReadonlySet<string>;
}

/** A cycle found while breaking a loop (the loop itself, or a cycle left inside it once feedback edges are gone). */
interface Cycle {
  /** Members, sorted by name. */
  readonly members: readonly string[];
  readonly entries: readonly string[];
  /** Values produced and read inside the cycle that have a value before its first turn. */
  readonly carried: ReadonlySet<string>;
  /** The component (top-level loop) it lies in. */
  readonly loop: number;
  /** 0 for the loop itself, 1 for a cycle inside it, … */
  readonly depth: number;
}

export type FeedbackKind = "entry" | "carried";

export interface BrokenCycles {
  /** Top-level loop (component id) → its entries. */
  readonly entries: ReadonlyMap<number, readonly string[]>;
  /** Edge key (from, to) → why it is a feedback edge: it goes into a cycle's entry, or carries loop-carried values. */
  readonly feedback: ReadonlyMap<string, FeedbackKind>;
  readonly cycles: readonly Cycle[];
  readonly warnings: readonly string[];
}

export const pairKey = (from: string, to: string) => `${from}\u0000${to}`;

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Breaks every cyclic component. `onDeadlock` is called (and must throw) for a cycle nothing can start: every node
 * the cycle can be entered through is a target of a `defaultOpen: false` gate of that cycle, and no entrypoint
 * lies in it.
 */
export function breakCycles(
  g: CycleGraph,
  components: readonly (readonly string[])[],
  cyclic: ReadonlySet<number>,
  onDeadlock: (cycle: readonly string[]) => never,
): BrokenCycles {
  const feedback = new Map<string, FeedbackKind>();
  const entries = new Map<number, string[]>();
  const cycles: Cycle[] = [];
  const warnings: string[] = [];

  const edgeLive = (from: string, to: string) => !feedback.has(pairKey(from, to));

  const visit = (comp: readonly string[], loopId: number, loop: ReadonlySet<string>, depth: number) => {
    const compSet = new Set(comp);
    const configured = comp.filter((n) => g.entrypoints.has(n));
    // The nodes the cycle can be entered through: all of a loop's nodes; for a cycle inside a loop, the nodes another
    // node of the loop reaches it through (nodes upstream of the loop don't count).
    let candidates: string[] = [...comp];
    if (depth > 0) {
      const entered = comp.filter((n) =>
        [...loop].some((m) => !compSet.has(m) && g.succ.get(m)!.has(n) && edgeLive(m, n)),
      );
      if (entered.length > 0) candidates = entered;
    }
    if (configured.length === 0) {
      const closedHere = closedTargets(g, comp);
      if (candidates.every((c) => closedHere.has(c))) onDeadlock(comp);
    }
    let chosen: string[];
    if (configured.length > 0) chosen = configured;
    else {
      const steps: ((c: string[]) => string[])[] = [];
      if (depth === 0) {
        const closed = closedTargets(g, [...loop]);
        steps.push((c) => c.filter((n) => !closed.has(n)));
        steps.push((c) =>
          c.filter((n) => {
            const node = g.nodes.get(n)!;
            return node.inputs.every(
              (i) =>
                !producedIn(g, n, i, loop) ||
                g.bound.has(i) ||
                (node.hasDefault?.(i) ?? false) ||
                accumulates(g, i, loop),
            );
          }),
        );
      }
      const targeted = gateTargets(g, loop);
      steps.push((c) => c.filter((n) => targeted.has(n)));
      steps.push((c) => {
        const score = (n: string) => g.nodes.get(n)!.inputs.filter((i) => producedIn(g, n, i, compSet)).length;
        const best = Math.min(...c.map(score));
        return c.filter((n) => score(n) === best);
      });
      let left = [...candidates].sort(byName);
      for (const step of steps) {
        const kept = step(left);
        if (kept.length > 0) left = kept;
      }
      chosen = [left[0]!];
      if (left.length > 1) warnings.push(tieWarning(comp, left));
    }
    chosen.sort(byName);
    if (depth === 0) entries.set(loopId, chosen);
    const entrySet = new Set(chosen);

    // Loop-carried values: produced and read inside the cycle, with a value before its first turn: the entry reads it
    // (from the caller, a bind or a checkpoint), it is bound, or a reader inside declares a default for it.
    const carried = new Set<string>();
    for (const r of comp) {
      const reader = g.nodes.get(r)!;
      for (const [input, producers] of g.wired.get(r)!) {
        if (![...producers].some((p) => compSet.has(p))) continue;
        if (entrySet.has(r) || g.bound.has(input) || (reader.hasDefault?.(input) ?? false)) carried.add(input);
      }
    }
    cycles.push({ members: [...comp].sort(byName), entries: chosen, carried, loop: loopId, depth });

    // Feedback edges: every live edge into the entry from inside; every live data edge inside that carries only
    // loop-carried values, provided its reader reaches its writer without such edges (it reads the previous turn's
    // value; otherwise the reader sees what was written in the same turn and the edge stays forward).
    const carriedPairs: [string, string][] = [];
    for (const m of comp) {
      for (const t of g.succ.get(m)!) {
        if (!compSet.has(t) || !edgeLive(m, t)) continue;
        if (entrySet.has(t)) continue;
        const info = g.pairs.get(pairKey(m, t))!;
        if (!info.nonData && info.values.size > 0 && [...info.values].every((v) => carried.has(v)))
          carriedPairs.push([m, t]);
      }
    }
    const excluded = new Set(carriedPairs.map(([a, b]) => pairKey(a, b)));
    const forward = (n: string) =>
      [...g.succ.get(n)!].filter(
        (t) => compSet.has(t) && !entrySet.has(t) && edgeLive(n, t) && !excluded.has(pairKey(n, t)),
      );
    const reach = new Map<string, Set<string>>();
    const reachOf = (from: string) => {
      let set = reach.get(from);
      if (set === undefined) {
        set = new Set([from]);
        const stack = [from];
        while (stack.length > 0) for (const t of forward(stack.pop()!)) if (!set.has(t) && set.add(t)) stack.push(t);
        reach.set(from, set);
      }
      return set;
    };
    const found: [string, FeedbackKind][] = [];
    for (const m of comp)
      for (const e of chosen) if (g.succ.get(m)!.has(e) && edgeLive(m, e)) found.push([pairKey(m, e), "entry"]);
    for (const [a, b] of carriedPairs) if (reachOf(b).has(a)) found.push([pairKey(a, b), "carried"]);
    for (const [k, kind] of found) feedback.set(k, kind);

    // What is left may still hold cycles: each gets the same treatment.
    for (const sub of cyclicParts(g, comp, edgeLive)) visit(sub, loopId, loop, depth + 1);
  };

  const ids = [...cyclic].sort((a, b) => byName(minName(components[a]!), minName(components[b]!)));
  for (const c of ids) {
    const comp = components[c]!;
    visit(comp, c, new Set(comp), 0);
  }
  return { entries, feedback, cycles, warnings };
}

/** Does `node` read `input` from a producer in `set`? */
function producedIn(g: CycleGraph, node: string, input: string, set: ReadonlySet<string>): boolean {
  for (const p of g.wired.get(node)!.get(input) ?? []) if (set.has(p)) return true;
  return false;
}

/**
 * Is `value` an accumulator of `loop`: every node of the loop that writes it also reads it (a history such as
 * `messages` that each turn extends)? Then it has a value before the loop's first turn — the caller's — and a node
 * reading it can start the loop.
 */
function accumulates(g: CycleGraph, value: string, loop: ReadonlySet<string>): boolean {
  for (const m of loop) {
    const node = g.nodes.get(m)!;
    if (node.outputs.includes(value) && !node.inputs.includes(value)) return false;
  }
  return true;
}

/** Targets of the `defaultOpen: false` gates among `members`. */
function closedTargets(g: CycleGraph, members: readonly string[]): Set<string> {
  const closed = new Set<string>();
  for (const m of members) {
    const n = g.nodes.get(m)!;
    if (n.isGate && n.defaultOpen === false) for (const t of n.targets ?? []) if (typeof t === "string") closed.add(t);
  }
  return closed;
}

/** Nodes of `loop` a gate of `loop` routes to. */
function gateTargets(g: CycleGraph, loop: ReadonlySet<string>): Set<string> {
  const out = new Set<string>();
  for (const m of loop) {
    const n = g.nodes.get(m)!;
    if (n.isGate) for (const t of n.targets ?? []) if (typeof t === "string" && loop.has(t)) out.add(t);
  }
  return out;
}

function minName(members: readonly string[]): string {
  let min = members[0]!;
  for (const m of members) if (m < min) min = m;
  return min;
}

function tieWarning(comp: readonly string[], left: readonly string[]): string {
  // A long ring of look-alike nodes would make a message of thousands of names: the first ten say enough.
  const q = (names: readonly string[]) =>
    names
      .slice(0, 10)
      .map((n) => `'${n}'`)
      .join(", ") + (names.length > 10 ? ` and ${names.length - 10} more` : "");
  return (
    `The cycle ${q([...comp].sort(byName))} has no entrypoint, and its structure does not decide which node starts it: ` +
    `${q(left)} qualify equally. Chose '${left[0]}' (first by name).\n` +
    `  How to fix: set entrypoint to the node that should run first, or make the loop's state explicit with bind() or a default.`
  );
}

/** The cycles (strongly connected parts with more than one node, or a self edge) of `members` over live edges. */
function cyclicParts(
  g: CycleGraph,
  members: readonly string[],
  live: (from: string, to: string) => boolean,
): string[][] {
  const set = new Set(members);
  const next = (n: string) => [...g.succ.get(n)!].filter((t) => set.has(t) && live(n, t));
  const parts = tarjan([...members].sort(byName), next);
  return parts
    .filter((p) => p.length > 1 || next(p[0]!).includes(p[0]!))
    .map((p) => p.sort(byName))
    .sort((a, b) => byName(a[0]!, b[0]!));
}

/**
 * Tarjan's strongly connected components, iterative (the recursive form overflows the stack on long chains, ≈ 8,000
 * nodes).
 */
export function tarjan(nodes: readonly string[], next: (n: string) => readonly string[]): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const result: string[][] = [];
  let counter = 0;
  for (const root of nodes) {
    if (index.has(root)) continue;
    const work: Array<{ node: string; next: readonly string[]; i: number }> = [{ node: root, next: next(root), i: 0 }];
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
          work.push({ node: w, next: next(w), i: 0 });
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
