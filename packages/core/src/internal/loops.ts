/**
 * What the scheduler needs to know about the loops (cyclic components) of a graph beyond their entries and feedback
 * edges: each loop's seeds, and the branch regions of the gates inside it. Computed once per graph at build time.
 *
 * A *region* of a gate target T (T in the gate's own loop, not the loop's entry) is T plus, repeatedly, every node
 * of the loop other than the entry that the region causes to run: a node no gate controls that consumes a value
 * written in the region (loop-carried values excepted: the next iteration reads them), and the targets of a gate in
 * the region.
 * When a gate decides, the regions of the targets it did not choose are closed until the loop's entry runs again.
 */
export interface LoopNode {
  readonly name: string;
  readonly outputs: readonly string[];
  readonly isGate: boolean;
  readonly targets?: readonly unknown[];
}

export interface LoopGraphView {
  readonly componentOf: ReadonlyMap<string, number>;
  readonly entries: ReadonlyMap<number, readonly string[]>;
  readonly cyclic: ReadonlySet<number>;
  readonly components: readonly (readonly string[])[];
  readonly consumers: ReadonlyMap<string, readonly string[]>;
  readonly controllers: ReadonlyMap<string, readonly string[]>;
  readonly wiredProducers: ReadonlyMap<string, ReadonlyMap<string, ReadonlySet<string>>>;
  readonly cycles: readonly { readonly loop: number; readonly depth: number; readonly carried: ReadonlySet<string> }[];
}

export interface LoopInfo {
  /** Loop (component id) → values produced inside it that one of its entries consumes. */
  readonly seeds: ReadonlyMap<number, ReadonlySet<string>>;
  /**
   * Loop → its loop-carried values: produced and read inside it, with a value before its first turn (its seeds, and
   * values bound or defaulted that the loop rewrites). A node other than the entry reads them in the next iteration.
   */
  readonly carried: ReadonlyMap<number, ReadonlySet<string>>;
  /** Loops that contain at least one gate. */
  readonly gated: ReadonlySet<number>;
  /** Gate → target (inside the gate's own loop, not its entry) → region of that target. */
  readonly regions: ReadonlyMap<string, ReadonlyMap<string, ReadonlySet<string>>>;
}

export function computeLoops(nodes: readonly LoopNode[], view: LoopGraphView): LoopInfo {
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const seeds = new Map<number, Set<string>>();
  const gated = new Set<number>();
  const carried = new Map<number, ReadonlySet<string>>();
  for (const cycle of view.cycles) if (cycle.depth === 0) carried.set(cycle.loop, cycle.carried);
  for (const c of view.cyclic) {
    const members = new Set(view.components[c]!);
    const set = new Set<string>();
    for (const entry of view.entries.get(c) ?? []) {
      for (const [input, producers] of view.wiredProducers.get(entry) ?? []) {
        for (const p of producers) if (members.has(p)) set.add(input);
      }
    }
    seeds.set(c, set);
    if (view.components[c]!.some((m) => byName.get(m)!.isGate)) gated.add(c);
  }

  const regions = new Map<string, Map<string, Set<string>>>();
  for (const n of nodes) {
    if (!n.isGate) continue;
    const c = view.componentOf.get(n.name)!;
    if (!gated.has(c)) continue;
    const entries = new Set(view.entries.get(c) ?? []);
    const loopCarried = carried.get(c) ?? new Set<string>();
    const inLoop = (m: string) => view.componentOf.get(m) === c && !entries.has(m);
    const perTarget = new Map<string, Set<string>>();
    for (const t of n.targets ?? []) {
      if (typeof t !== "string" || !inLoop(t)) continue;
      const region = new Set<string>([t]);
      const stack = [t];
      while (stack.length > 0) {
        const m = stack.pop()!;
        const node = byName.get(m)!;
        const add = (k: string) => {
          if (region.has(k) || !inLoop(k)) return;
          region.add(k);
          stack.push(k);
        };
        for (const v of node.outputs) {
          if (loopCarried.has(v)) continue;
          for (const k of view.consumers.get(v) ?? []) {
            if ((view.controllers.get(k)?.length ?? 0) > 0) continue;
            if (view.wiredProducers.get(k)?.get(v)?.has(m)) add(k);
          }
        }
        if (node.isGate) for (const gt of node.targets ?? []) if (typeof gt === "string") add(gt);
      }
      perTarget.set(t, region);
    }
    regions.set(n.name, perTarget);
  }
  return { seeds, carried, gated, regions };
}
