import { END, type Graph, type Target } from "@graph/core";

const NONE: readonly string[] = [];

/**
 * Branch regions of the gates inside loops, as the run goes: which nodes are closed in the current iteration.
 *
 * When a gate of a loop decides, the regions of the targets it did not choose are closed (END or a target outside
 * the loop closes all of them); the regions of the targets it chose are opened again, so the latest decision wins.
 * A closed node does not run, even if stale, until the loop's entry runs again, which starts a new iteration.
 * This is what keeps a node further along an unchosen branch from running on a fresh value plus a value left over
 * from an earlier iteration (a human approval, a tool request). Regions are precomputed by the graph's analysis.
 */
export class ClosedRegions {
  readonly #analysis: Graph["analysis"];
  /** Loop (component id) → its closed nodes. */
  readonly #closed = new Map<number, Set<string>>();
  /** Nodes whose state changed and must be re-examined by the scheduler. */
  readonly #reopened: string[] = [];

  constructor(analysis: Graph["analysis"]) {
    this.#analysis = analysis;
  }

  isClosed(name: string): boolean {
    if (this.#closed.size === 0) return false;
    const c = this.#analysis.componentOf.get(name);
    return c !== undefined && (this.#closed.get(c)?.has(name) ?? false);
  }

  /** A node completed: a loop entry starts a new iteration; a gate closes and opens its regions. */
  completed(name: string, decision: readonly Target[] | null | undefined, isGate: boolean): void {
    const a = this.#analysis;
    const c = a.componentOf.get(name)!;
    if (!a.loops.gated.has(c)) return;
    if ((a.entries.get(c) ?? []).includes(name)) {
      const closed = this.#closed.get(c);
      if (closed !== undefined) {
        this.#reopened.push(...closed);
        this.#closed.delete(c);
      }
    }
    if (!isGate) return;
    const regions = a.loops.regions.get(name);
    if (regions === undefined || regions.size === 0) return;
    const chosen = new Set<Target>(decision ?? []);
    let closed = this.#closed.get(c);
    for (const [target, region] of regions) {
      if (chosen.has(target)) continue;
      if (closed === undefined) this.#closed.set(c, (closed = new Set()));
      for (const n of region) closed.add(n);
    }
    if (closed === undefined) return;
    for (const target of chosen) {
      if (target === END) continue;
      const region = regions.get(target);
      if (region === undefined) continue;
      for (const n of region) if (closed.delete(n)) this.#reopened.push(n);
    }
    if (closed.size === 0) this.#closed.delete(c);
  }

  /** A new turn: every region is open again. */
  clear(): void {
    for (const set of this.#closed.values()) this.#reopened.push(...set);
    this.#closed.clear();
  }

  /** Nodes opened since the last call (the scheduler re-examines them). */
  drainReopened(): readonly string[] {
    return this.#reopened.length === 0 ? NONE : this.#reopened.splice(0, this.#reopened.length);
  }
}
