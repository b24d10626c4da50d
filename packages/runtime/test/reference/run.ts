/**
 * Reference model, part 2: running a graph superstep by superstep by the rules of docs/semantics.md. Every
 * superstep examines every node (no incremental bookkeeping) so the rules read as written.
 */
import { type RefGraph, Structure } from "./structure.js";

export interface RefBehaviour {
  /** A function node's outputs, given its call count (1, 2, …) and inputs. */
  fn(name: string, calls: number, inputs: readonly unknown[]): readonly unknown[];
  /** A gate's decision (a target name or "END"). */
  gate(name: string, calls: number, inputs: readonly unknown[]): string;
}

export interface RefOutcome {
  readonly trace: readonly string[];
  readonly status: string;
  readonly values: Readonly<Record<string, unknown>>;
  readonly error?: string;
}

const INPUT = "(caller)";
/** An output a node's run did not produce (see `RefBehaviour.fn`). */
export const NOT_WRITTEN: unique symbol = Symbol("not written");

export function referenceRun(
  graph: RefGraph & { readonly boundValues: Readonly<Record<string, unknown>> },
  values: Readonly<Record<string, unknown>>,
  behaviour: RefBehaviour,
  maxIterations: number,
): RefOutcome {
  const s = new Structure(graph);
  let version = 0;
  const state = new Map<string, { value: unknown; version: number; writer: string }>();
  for (const [k, v] of Object.entries(values)) state.set(k, { value: v, version: ++version, writer: INPUT });
  const consumed = new Map<string, Map<string, number>>();
  const ran = new Set<string>();
  const pending = new Map<string, Set<string>>();
  const decided = new Set<string>();
  const closed = new Set<string>();
  const runs = new Map<string, number>();
  const calls = new Map<string, number>();
  const trace: string[] = [];
  const node = (n: string) => s.node.get(n)!;
  const given = (n: string, i: string) => graph.bound.has(i) || node(n).defaults.includes(i);
  const wired = (n: string, i: string, writer: string) => s.producers(i).includes(writer) && s.hasEdge(writer, n);

  /** Permitted by its gates: a pending decision names it, or (before the gate decides) the loop may start here. */
  const permitted = (n: string, visiting: Set<string>): boolean => {
    const gates = s.controllers(n);
    if (gates.length === 0) return true;
    if (visiting.has(n)) return false;
    visiting.add(n);
    const ok = gates.some(
      (g) =>
        pending.get(g)?.has(n) ||
        (!decided.has(g) &&
          !ran.has(n) &&
          node(g).defaultOpen &&
          s.sameLoop(g, n) &&
          startsBeforeGate(n, g) &&
          undecidedOrChosen(g, new Set(visiting))),
    );
    visiting.delete(n);
    return ok;
  };
  /** A gate no decision upstream has ruled out: permitted, or waiting only for undecided open gates of its loop. */
  const undecidedOrChosen = (g: string, visiting: Set<string>): boolean => {
    if (permitted(g, new Set(visiting))) return true;
    if (visiting.has(`*${g}`)) return false;
    visiting.add(`*${g}`);
    return s
      .controllers(g)
      .some(
        (c) =>
          pending.get(c)?.has(g) ||
          (!decided.has(c) && node(c).defaultOpen && s.sameLoop(c, g) && undecidedOrChosen(c, visiting)),
      );
  };
  /** Before gate `g` first decides: only a configured entrypoint of the loop (do-while), else any while `g` can't run. */
  const startsBeforeGate = (n: string, g: string) => {
    const ep = graph.entrypoint;
    if (ep !== undefined && s.component.get(n)!.has(ep)) return ep === n;
    return !wouldRun(g);
  };
  /** An input's newer version makes the node stale, unless one of the exemptions of a node no gate controls holds. */
  const stale = (n: string): boolean =>
    node(n).inputs.some((i) => {
      const v = state.get(i);
      if (v === undefined || v.version === (consumed.get(n)?.get(i) ?? 0)) return false;
      if (v.writer !== INPUT && !wired(n, i, v.writer)) return false;
      if (s.controllers(n).length > 0) return true;
      if (v.writer === n) return false; // its own output
      if (v.writer === INPUT) return true;
      if (s.feedback.get(`${v.writer}>${n}`) === "carried") return false; // read in the next iteration
      if (!s.reaches(n, v.writer)) return true; // written upstream
      return s.gateBetween(n, v.writer) && !s.carriedForNonEntry(i, n); // came around a gate's loop
    });
  /** `o` is fed back over a feedback edge inside `n`'s loop: supplying it does not skip `n`. */
  const ownSeed = (n: string, o: string) =>
    s.names.some((x) =>
      s.names.some(
        (r) => s.feedback.has(`${x}>${r}`) && s.edges.get(`${x}>${r}`)!.values.has(o) && s.component.get(r)!.has(n),
      ),
    );
  /** Never ran, and the caller supplied all its outputs (its own loop's seeds excepted). */
  const skipped = (n: string) =>
    node(n).outputs.length > 0 && node(n).outputs.every((o) => state.has(o) && !ownSeed(n, o));
  const relays = (n: string) =>
    node(n).inputs.length > 0 &&
    s.loops.get(s.loopId(n))?.gated === true &&
    node(n).inputs.every((i) => s.carriedForNonEntry(i, n));

  /**
   * A loop lacks a first value only when none of its nodes can start with the run's values; then it lacks the seeds
   * of its entry that are not bound, not defaulted by every node reading them over a feedback edge, not given, and
   * not only read by nodes the caller skipped.
   */
  const missingAtStart = (): string[] => {
    const out = new Set<string>();
    for (const [id, loop] of s.loops) {
      const readsFedBack = (r: string, k: string) =>
        s.producers(k).some((p) => s.hasEdge(p, r)) &&
        s.producers(k).every((p) => !s.hasEdge(p, r) || s.feedback.has(`${p}>${r}`));
      const lacking = [...loop.seeds].filter((k) => {
        if (state.has(k) || graph.bound.has(k)) return false;
        const fedTo = s.names.filter((r) => node(r).inputs.includes(k) && readsFedBack(r, k));
        if (fedTo.length === 0 || fedTo.every((r) => node(r).defaults.includes(k))) return false;
        return !s.names.filter((r) => node(r).inputs.includes(k)).every((r) => skipped(r));
      });
      if (lacking.length === 0 || [...s.component.get(id)!].some(candidate)) continue;
      for (const k of lacking) out.add(k);
    }
    return [...out].sort();
  };
  const candidate = (n: string): boolean => permitted(n, new Set()) && wouldRun(n);
  /** Would `n` run now if its gates permitted it? */
  const wouldRun = (n: string): boolean => {
    if (closed.has(n)) return false;
    if (!node(n).inputs.every((i) => state.has(i) || given(n, i))) return false;
    if (s.controllers(n).some((g) => pending.get(g)?.has(n))) return true;
    if (!consumed.has(n)) {
      if (relays(n))
        return (
          stale(n) &&
          node(n).inputs.some((i) => state.get(i)?.writer !== INPUT && state.get(i)?.writer !== n && state.has(i))
        );
      return !skipped(n);
    }
    return stale(n);
  };

  const missing = missingAtStart();
  if (missing.length > 0)
    return { trace, status: "failed", values: {}, error: `MissingInputError [${missing.join(",")}]` };

  for (;;) {
    const candidates = s.names.filter(candidate);
    const ready = s.rank.filter((n) => candidates.includes(n) && !candidates.some((d) => d !== n && s.upstream(d, n)));
    if (ready.length === 0) break;
    const over = ready.find((n) => (runs.get(n) ?? 0) + 1 > maxIterations);
    if (over !== undefined) {
      const loop = s.rank.filter((m) => s.component.get(over)!.has(m));
      return { trace, status: "failed", values: {}, error: `InfiniteLoopError ${over} [${loop.join(",")}]` };
    }
    const results: { n: string; inputs: Map<string, number>; outputs: readonly unknown[]; decision?: string }[] = [];
    for (const n of ready) {
      runs.set(n, (runs.get(n) ?? 0) + 1);
      if (node(n).kind === "gate") pending.delete(n);
      const args = node(n).inputs.map((i) =>
        state.has(i) ? state.get(i)!.value : i in graph.boundValues ? graph.boundValues[i] : (node(n).unset ?? 0),
      );
      const inputs = new Map(node(n).inputs.map((i) => [i, state.get(i)?.version ?? 0]));
      const c = (calls.get(n) ?? 0) + 1;
      calls.set(n, c);
      trace.push(n);
      if (node(n).kind === "gate") results.push({ n, inputs, outputs: [], decision: behaviour.gate(n, c, args) });
      else results.push({ n, inputs, outputs: behaviour.fn(n, c, args) });
    }
    // Apply the superstep: values and consumed decisions, then the gates' decisions, then the branch regions.
    const newIteration = new Set<string>();
    const closes = new Set<string>();
    const opens = new Set<string>();
    for (const r of results) {
      consumed.set(r.n, r.inputs);
      ran.add(r.n);
      for (const g of s.controllers(r.n)) pending.get(g)?.delete(r.n);
      version++;
      node(r.n).outputs.forEach((o, k) => {
        // A nested graph's node writes only the outputs its run produced.
        if (r.outputs[k] !== NOT_WRITTEN) state.set(o, { value: r.outputs[k], version, writer: r.n });
      });
      const loop = s.loops.get(s.loopId(r.n));
      if (loop?.gated && loop.entries.includes(r.n)) newIteration.add(s.loopId(r.n));
    }
    for (const r of results) {
      if (r.decision === undefined) continue;
      decided.add(r.n);
      pending.set(r.n, new Set([r.decision]));
      for (const [t, region] of s.regions.get(r.n) ?? [])
        for (const m of region) (t === r.decision ? opens : closes).add(m);
    }
    for (const id of newIteration) for (const m of s.component.get(id)!) closed.delete(m);
    for (const m of closes) if (!opens.has(m)) closed.add(m);
    for (const m of opens) closed.delete(m);
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of state) if (v.writer !== INPUT) out[k] = v.value;
  return { trace, status: "completed", values: out };
}
