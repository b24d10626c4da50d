import { INPUT_STEP } from "@graph/checkpoint";
import type { GateNode } from "@graph/core";
import { InfiniteLoopError } from "../errors.js";
import type { NodePlan } from "./plan.js";
import { EVER_RAN, RAN_THIS_RUN, type RunState, SETTLED } from "./state.js";

// Readiness: which nodes run in the next superstep. Pure functions of the run state (docs/semantics.md); only
// nodes marked dirty (their inputs, permissions or decisions changed) and held-back candidates are re-examined.

/** The nodes of the next superstep (their plans), in graph order; consumes `state.dirty`. */
export function computeReady(state: RunState): readonly NodePlan[] {
  const check = state.dirty;
  for (const w of state.waiting) check.add(w);
  state.dirty = state.spare;
  state.spare = check;
  const memo = state.permitMemo;
  memo.clear();
  let candidates: NodePlan[] = [];
  if (state.all) {
    // The first superstep examines every node: walk the plans, no set of all names.
    state.all = false;
    for (const plan of state.planList) if (isCandidate(state, plan, memo)) candidates.push(plan);
  } else for (const plan of check) if (isCandidate(state, plan, memo)) candidates.push(plan);
  check.clear();
  if (state.waiting.size > 0) state.waiting = new Set();
  if (candidates.length > 1) {
    // Structural order (upstream first, ties by name), never node-list order: the trace is the same for any listing.
    const rank = state.graph.analysis.acyclicIndex;
    candidates.sort((a, b) => rank.get(a.name)! - rank.get(b.name)!);
    // Upstream first: a node waits while something upstream of it is ready, so it runs once on fresh values.
    const held = heldBack(state, candidates);
    if (held.size > 0) {
      for (const c of held) state.waiting.add(c);
      candidates = candidates.filter((c) => !held.has(c));
    }
  }
  return candidates;
}

/**
 * The candidates something upstream of which is also a candidate. Pairwise for a few; for many (a fan-out of
 * thousands) each candidate looks at whichever is smaller, what lies downstream of it or the candidates, so
 * siblings with nothing but a reducer below them cost O(candidates), not O(candidates²).
 */
export function heldBack(state: RunState, candidates: readonly NodePlan[]): Set<NodePlan> {
  const a = state.graph.analysis;
  const held = new Set<NodePlan>();
  if (candidates.length <= 8) {
    for (const c of candidates) if (candidates.some((d) => d !== c && a.isUpstream(d.name, c.name))) held.add(c);
    return held;
  }
  const byComponent = new Map<number, NodePlan[]>();
  for (const c of candidates) {
    const comp = a.componentOf.get(c.name)!;
    const list = byComponent.get(comp);
    if (list === undefined) byComponent.set(comp, [c]);
    else list.push(c);
  }
  for (const [comp, members] of byComponent) {
    const below = a.componentsDownstream(comp);
    if (below.size <= byComponent.size) {
      for (const x of below) for (const c of byComponent.get(x) ?? []) held.add(c);
    } else {
      for (const [x, cs] of byComponent) if (below.has(x)) for (const c of cs) held.add(c);
    }
    // Inside one component (a loop), upstream means reachable once its feedback edges are removed.
    if (members.length > 1)
      for (const c of members) if (members.some((d) => d !== c && a.reachesAcyclic(d.name, c.name))) held.add(c);
  }
  return held;
}

/**
 * Counts one more run of each ready node; maxIterations bounds how often one node runs in one run (a loop's
 * iterations), never the number of supersteps, so a DAG of any depth never reaches it.
 */
export function countRuns(state: RunState, ready: readonly NodePlan[], max: number): InfiniteLoopError | undefined {
  const runs = state.runs;
  for (const n of ready) {
    if (runs[n.id]! + 1 > max) {
      const a = state.graph.analysis;
      const c = a.componentOf.get(n.name)!;
      const loop = a.cyclic.has(c) ? [...a.components[c]!] : [n.name];
      return new InfiniteLoopError(n.name, loop, max);
    }
  }
  for (const n of ready) runs[n.id]!++;
  return undefined;
}

function isCandidate(state: RunState, plan: NodePlan, memo: Map<string, boolean>): boolean {
  // The cheap exclusions first: asking the gates walks them.
  if ((state.flags[plan.id]! & SETTLED) !== 0 || state.regions.isClosed(plan.name)) return false;
  if (plan.controllers.length > 0 && !permitted(state, plan.name, memo)) return false;
  return wouldRun(state, plan);
}

/**
 * Would the node run now if its gates permitted it: not settled or closed, every input available, and it needs to run
 * (a gate's decision names it, it never ran and was not skipped, or it is stale).
 */
function wouldRun(state: RunState, plan: NodePlan): boolean {
  const flags = state.flags[plan.id]!;
  if ((flags & SETTLED) !== 0 || state.regions.isClosed(plan.name)) return false;
  const controllers = plan.controllers;
  const ids = plan.inputIds;
  const given = plan.given;
  const writers = state.values.writers;
  for (let i = 0; i < ids.length; i++) if (!given[i] && writers[ids[i]!] === undefined) return false;
  for (let i = 0; i < controllers.length; i++) if (state.pending.get(controllers[i]!)?.has(plan.name)) return true;
  if ((flags & EVER_RAN) === 0) {
    if (plan.relays) return isStale(state, plan) && fedBackByLoop(state, plan);
    return !skipped(state, plan);
  }
  return isStale(state, plan);
}

/** Can the node run in the first superstep of this run (its gates permitting)? The start of a loop asks. */
export function canStart(state: RunState, name: string): boolean {
  return isCandidate(state, state.plans.get(name)!, new Map());
}

/** A gated node may run when a gate chose it, or (do-while) before its cycle's gate decided for the first time. */
function permitted(state: RunState, name: string, memo: Map<string, boolean>): boolean {
  const analysis = state.graph.analysis;
  const controllers = analysis.controllers.get(name)!;
  if (controllers.length === 0) return true;
  const cached = memo.get(name);
  if (cached !== undefined) return cached;
  memo.set(name, false); // cycles of gates: assume not permitted while deciding
  let ok = false;
  for (const g of controllers) {
    if (state.pending.get(g)?.has(name)) {
      ok = true;
      break;
    }
    const gate = state.graph.nodes.get(g) as GateNode;
    // Before the gate decides, a target in its loop may run once: the configured entrypoint (do-while), or, in a loop
    // with none, any target while the gate cannot decide yet (it waits for what the loop produces). A gate that can
    // decide decides first (while), even when its target lies upstream of it. The gate itself must not be held back
    // by a decision upstream of it — but it need not be the entrypoint: in a chain of undecided gates (`outer →
    // inner → increment`, entrypoint `increment`) the entrypoint starts the loop.
    if (
      !state.decided.has(g) &&
      !state.has(name, RAN_THIS_RUN) &&
      gate.defaultOpen &&
      analysis.sameCycle(g, name) &&
      startsBeforeGate(state, name, g) &&
      notHeldBack(state, g, memo)
    ) {
      ok = true;
      break;
    }
  }
  memo.set(name, ok);
  return ok;
}

/**
 * Is gate `g` free to decide, as far as the gates upstream of it go: permitted, or only waiting for gates of its
 * cycle that have not decided yet (so a decision may still choose it)? Unlike {@link permitted} it does not ask
 * whether `g` may start the loop: a gate in the middle of a chain runs after the entrypoint, not before.
 */
function notHeldBack(state: RunState, g: string, memo: Map<string, boolean>): boolean {
  if (permitted(state, g, memo)) return true;
  const key = `\u0000${g}`;
  const cached = memo.get(key);
  if (cached !== undefined) return cached;
  memo.set(key, false); // cycles of gates: assume held back while deciding
  const analysis = state.graph.analysis;
  let ok = true;
  for (const c of analysis.controllers.get(g)!) {
    const gate = state.graph.nodes.get(c) as GateNode;
    const open =
      state.pending.get(c)?.has(g) ||
      (!state.decided.has(c) && gate.defaultOpen && analysis.sameCycle(c, g) && notHeldBack(state, c, memo));
    if (open) {
      ok = true;
      break;
    }
    ok = false;
  }
  memo.set(key, ok);
  return ok;
}

/**
 * May `name`, a target of the undecided gate `g` in its loop, run before `g` first decides? With a configured
 * entrypoint in the loop only that entrypoint may; with none, any target may while `g` cannot run yet.
 */
function startsBeforeGate(state: RunState, name: string, g: string): boolean {
  const entry = state.graph.entrypoint;
  if (entry.length > 0) {
    const componentOf = state.graph.analysis.componentOf;
    const comp = componentOf.get(name);
    const inComponent = entry.filter((e) => componentOf.get(e) === comp);
    if (inComponent.length > 0) return inComponent.includes(name);
  }
  return !wouldRun(state, state.plans.get(g)!);
}

function fedBackByLoop(state: RunState, plan: NodePlan): boolean {
  return plan.inputIds.some((id) => {
    const w = state.values.writers[id];
    return w !== undefined && w !== INPUT_STEP && w !== plan.name;
  });
}

/**
 * A node that never ran is skipped when the caller supplied all its outputs — except a seed of its own cycle
 * (the cycle's first value), side-effect nodes (no outputs), interrupts (they take or ask for their answer) and
 * GraphNodes holding interrupts (the child must take the answer).
 */
export function skippedBySuppliedOutputs(state: RunState, name: string): boolean {
  const plan = state.plans.get(name)!;
  return (state.flags[plan.id]! & EVER_RAN) === 0 && skipped(state, plan);
}

/** {@link skippedBySuppliedOutputs} for a node known not to have run. */
function skipped(state: RunState, plan: NodePlan): boolean {
  if (!plan.skippable) return false;
  const ids = plan.outputIds;
  const writers = state.values.writers;
  // Cheapest test first: a node none of whose outputs the caller supplied is not skipped.
  if (writers[ids[0]!] === undefined) return false;
  const own = plan.ownSeeds;
  for (let i = 0; i < ids.length; i++)
    if (writers[ids[i]!] === undefined || (own?.has(plan.outputs[i]!) ?? false)) return false;
  return true;
}

function isStale(state: RunState, plan: NodePlan): boolean {
  const consumed = state.consumed[plan.id];
  const gated = plan.controllers.length > 0;
  const ids = plan.inputIds;
  const { versions, writers } = state.values;
  for (let i = 0; i < ids.length; i++) {
    const writer = writers[ids[i]!];
    if (writer === undefined) continue;
    if (versions[ids[i]!] === (consumed === undefined ? 0 : consumed[i])) continue;
    if (writer !== INPUT_STEP && !plan.wired[i]!.has(writer)) continue;
    if (!gated && writer !== INPUT_STEP && exemptFor(state, plan, i, writer)) continue;
    return true;
  }
  return false;
}

/** {@link exempt} for input `i` of `plan`, remembered in the plan (it depends only on the graph). */
function exemptFor(state: RunState, plan: NodePlan, i: number, writer: string): boolean {
  const memo = plan.exempt[i]!;
  let known = memo.get(writer);
  if (known === undefined) {
    known = exempt(state, plan.name, plan.inputs[i]!, writer);
    memo.set(writer, known);
  }
  return known;
}

/**
 * The staleness exemptions of a node no gate controls. Its own output never re-triggers it. A loop-carried value fed
 * back to it over a feedback edge (it is not its cycle's entry) waits for the next iteration. A value written
 * downstream of it waits for the next run when no gate lies on a path to the writer (a feedback loop); when one
 * does, the value came around the gate's loop and re-triggers it now — unless it is loop-carried in the loop and
 * this node is not the loop's entry (it reads it in the next iteration, after the entry ran).
 */
function exempt(state: RunState, name: string, input: string, writer: string): boolean {
  if (writer === name) return true;
  if (writer === INPUT_STEP) return false;
  const a = state.graph.analysis;
  // A loop-carried value fed back to a node other than its cycle's entry: read in the next iteration.
  if (a.isCarriedFeedback(writer, name)) return true;
  if (!a.reachesAcyclic(name, writer)) return false;
  return !a.gateBetween(name, writer) || a.isSeedForNonEntry(input, name);
}
