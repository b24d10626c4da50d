import type { Graph, Target } from "@graph/core";

const NONE: readonly string[] = [];

/**
 * Branch regions of the gates inside loops, as the run goes: which nodes are closed in the current iteration.
 *
 * When a gate of a loop decides, the regions of the targets it did not choose are closed (END or a target outside
 * the loop closes all of them); the regions of the targets it chose are opened again, so the latest decision wins.
 * The decisions of one superstep count as one: a node is closed only if one of them closed it and none opened it.
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
  /** Nodes newly closed (a closed gate that has not decided lets its targets start the loop: they are re-examined). */
  readonly #newlyClosed: string[] = [];
  /** The current superstep's notes (see {@link flush}): loops whose entry ran, regions closed and opened. */
  readonly #newIteration = new Set<number>();
  readonly #closes = new Map<number, Set<string>>();
  readonly #opens = new Map<number, Set<string>>();

  constructor(analysis: Graph["analysis"]) {
    this.#analysis = analysis;
  }

  isClosed(name: string): boolean {
    if (this.#closed.size === 0) return false;
    const c = this.#analysis.componentOf.get(name);
    return c !== undefined && (this.#closed.get(c)?.has(name) ?? false);
  }

  /**
   * A node completed in the current superstep: noted, applied by {@link flush} once the whole superstep is in. A
   * loop entry starts a new iteration; a gate closes the regions of the targets it did not choose and opens those of
   * the targets it chose.
   */
  completed(name: string, decision: readonly Target[] | null | undefined, isGate: boolean): void {
    const a = this.#analysis;
    const c = a.componentOf.get(name)!;
    if (!a.loops.gated.has(c)) return;
    if ((a.entries.get(c) ?? []).includes(name)) this.#newIteration.add(c);
    if (!isGate) return;
    const regions = a.loops.regions.get(name);
    if (regions === undefined || regions.size === 0) return;
    const chosen = new Set<Target>(decision ?? []);
    for (const [target, region] of regions) {
      const into = chosen.has(target) ? this.#opens : this.#closes;
      let set = into.get(c);
      if (set === undefined) into.set(c, (set = new Set()));
      for (const n of region) set.add(n);
    }
  }

  /**
   * Applies the superstep's notes together, so the outcome does not depend on the order its nodes finished or are
   * listed in: first a new iteration of every loop whose entry ran (its regions open), then every decision — a node
   * is closed when some decision closed it and none opened it; a node some decision opened is open again.
   */
  flush(): void {
    if (this.#newIteration.size > 0) {
      for (const c of this.#newIteration) {
        const closed = this.#closed.get(c);
        if (closed === undefined) continue;
        this.#reopened.push(...closed);
        this.#closed.delete(c);
      }
      this.#newIteration.clear();
    }
    if (this.#closes.size === 0 && this.#opens.size === 0) return;
    for (const [c, closes] of this.#closes) {
      const opens = this.#opens.get(c);
      let closed = this.#closed.get(c);
      for (const n of closes) {
        if (opens?.has(n)) continue;
        if (closed === undefined) this.#closed.set(c, (closed = new Set()));
        if (!closed.has(n)) this.#newlyClosed.push(n);
        closed.add(n);
      }
    }
    for (const [c, opens] of this.#opens) {
      const closed = this.#closed.get(c);
      if (closed === undefined) continue;
      for (const n of opens) if (closed.delete(n)) this.#reopened.push(n);
      if (closed.size === 0) this.#closed.delete(c);
    }
    this.#closes.clear();
    this.#opens.clear();
  }

  /** A new turn: every region is open again. */
  clear(): void {
    this.flush();
    for (const set of this.#closed.values()) this.#reopened.push(...set);
    this.#closed.clear();
  }

  /** Nodes closed since the last call. */
  drainClosed(): readonly string[] {
    return this.#newlyClosed.length === 0 ? NONE : this.#newlyClosed.splice(0, this.#newlyClosed.length);
  }

  /** Nodes opened since the last call (the scheduler re-examines them). */
  drainReopened(): readonly string[] {
    return this.#reopened.length === 0 ? NONE : this.#reopened.splice(0, this.#reopened.length);
  }
}
