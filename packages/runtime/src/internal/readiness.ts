import { INPUT_STEP } from "@graph/checkpoint";
import { type AnyNode, type GateNode, GraphNode, InterruptNode } from "@graph/core";
import { InfiniteLoopError } from "../errors.js";
import { responseKeys } from "./responseKeys.js";
import type { RunState } from "./state.js";

// Readiness: which nodes run in the next superstep. Pure functions of the run state (docs/semantics.md); only
// nodes marked dirty (their inputs, permissions or decisions changed) and held-back candidates are re-examined.

/** The nodes of the next superstep, in graph order; consumes `state.dirty`. */
export function computeReady(state: RunState): AnyNode[] {
  const graph = state.graph;
  const check = state.dirty;
  for (const w of state.waiting) check.add(w);
  state.dirty = state.spare;
  state.spare = check;
  const memo = state.permitMemo;
  memo.clear();
  let candidates: string[] = [];
  for (const name of check) if (isCandidate(state, name, memo)) candidates.push(name);
  check.clear();
  if (state.waiting.size > 0) state.waiting = new Set();
  if (candidates.length > 1) {
    const analysis = graph.analysis;
    const pos = analysis.position;
    candidates.sort((a, b) => pos.get(a)! - pos.get(b)!);
    // Upstream first: a node waits while something upstream of it is ready, so it runs once on fresh values.
    const kept = candidates.filter((c) => !candidates.some((d) => d !== c && analysis.isUpstream(d, c)));
    for (const c of candidates) if (!kept.includes(c)) state.waiting.add(c);
    candidates = kept;
  }
  return candidates.map((c) => graph.nodes.get(c)!);
}

/**
 * Counts one more run of each ready node; maxIterations bounds how often one node runs in one run (a loop's
 * iterations), never the number of supersteps, so a DAG of any depth never reaches it.
 */
export function countRuns(state: RunState, ready: readonly AnyNode[], max: number): InfiniteLoopError | undefined {
  for (const n of ready) {
    const count = (state.runs.get(n.name) ?? 0) + 1;
    if (count > max) {
      const a = state.graph.analysis;
      const c = a.componentOf.get(n.name)!;
      const loop = a.cyclic.has(c) ? [...a.components[c]!] : [n.name];
      return new InfiniteLoopError(n.name, loop, max);
    }
  }
  for (const n of ready) state.runs.set(n.name, (state.runs.get(n.name) ?? 0) + 1);
  return undefined;
}

function isCandidate(state: RunState, name: string, memo: Map<string, boolean>): boolean {
  if (state.settled.has(name) || state.regions.isClosed(name)) return false;
  const n = state.graph.nodes.get(name)!;
  if (!permitted(state, name, memo)) return false;
  for (const input of n.inputs) if (!available(state, n, input)) return false;
  for (const g of state.graph.analysis.controllers.get(name)!) if (state.pending.get(g)?.has(name)) return true;
  if (!state.everRan.has(name)) {
    if (relaysFeedback(state, n)) return isStale(state, n) && fedBackByLoop(state, n);
    return !skippedBySuppliedOutputs(state, n);
  }
  return isStale(state, n);
}

function available(state: RunState, n: AnyNode, input: string): boolean {
  return state.values.has(input) || Object.hasOwn(state.graph.inputs.bound, input) || hasDefault(n, input);
}

/** Nodes are immutable: which of their inputs have defaults, worked out once per node. */
const defaults = new WeakMap<AnyNode, ReadonlySet<string>>();

function hasDefault(n: AnyNode, input: string): boolean {
  let set = defaults.get(n);
  if (set === undefined) {
    set = new Set(n.inputs.filter((i) => n.hasDefault(i)));
    defaults.set(n, set);
  }
  return set.has(input);
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
    // Before the gate decides, its cycle's entry may run once (do-while); after that the gate drives it.
    if (
      !state.decided.has(g) &&
      !state.ranThisRun.has(name) &&
      gate.defaultOpen &&
      analysis.sameCycle(g, name) &&
      entryAllows(state, name) &&
      permitted(state, g, memo)
    ) {
      ok = true;
      break;
    }
  }
  memo.set(name, ok);
  return ok;
}

/** Before a gate decides, only the configured entrypoint of a cycle (if any) may start it. */
function entryAllows(state: RunState, name: string): boolean {
  const entry = state.graph.entrypoint;
  if (entry.length === 0) return true;
  const componentOf = state.graph.analysis.componentOf;
  const comp = componentOf.get(name);
  const inComponent = entry.filter((e) => componentOf.get(e) === comp);
  return inComponent.length === 0 || inComponent.includes(name);
}

/**
 * A node of a gated loop (not its entry) that reads only the loop's seeds relays what the loop feeds back to its
 * entry (Self-RAG's `retrieveAgain(question) → retrieve`). It does not run on the caller's values — that would
 * start one extra iteration once the loop settled — but once the loop has written one of them.
 */
function relaysFeedback(state: RunState, n: AnyNode): boolean {
  const a = state.graph.analysis;
  if (n.inputs.length === 0 || !a.loops.gated.has(a.componentOf.get(n.name)!)) return false;
  return n.inputs.every((i) => a.isSeedForNonEntry(i, n.name));
}

function fedBackByLoop(state: RunState, n: AnyNode): boolean {
  return n.inputs.some((i) => {
    const w = state.values.get(i)?.writer;
    return w !== undefined && w !== INPUT_STEP && w !== n.name;
  });
}

/**
 * A node that never ran is skipped when the caller supplied all its outputs — except a seed of its own cycle
 * (the cycle's first value), side-effect nodes (no outputs), interrupts (they take or ask for their answer) and
 * GraphNodes holding interrupts (the child must take the answer).
 */
export function skippedBySuppliedOutputs(state: RunState, n: AnyNode): boolean {
  if (state.everRan.has(n.name) || n.outputs.length === 0 || n instanceof InterruptNode) return false;
  // Cheapest test first: a node none of whose outputs the caller supplied is not skipped.
  if (!state.values.has(n.outputs[0]!)) return false;
  if (n instanceof GraphNode && [...responseKeys(n.graph)].some((k) => n.outerOutput(k) !== undefined)) return false;
  const own = state.graph.analysis.ownCycleSeeds.get(n.name);
  for (const o of n.outputs) if (!state.values.has(o) || (own?.has(o) ?? false)) return false;
  return true;
}

function isStale(state: RunState, n: AnyNode): boolean {
  const analysis = state.graph.analysis;
  const consumed = state.consumed.get(n.name);
  const gated = analysis.controllers.get(n.name)!.length > 0;
  const wired = analysis.wiredProducers.get(n.name)!;
  for (const input of n.inputs) {
    const slot = state.values.get(input);
    if (slot === undefined) continue;
    if (slot.version === (consumed?.[input] ?? 0)) continue;
    const writer = slot.writer;
    if (writer !== INPUT_STEP && !wired.get(input)!.has(writer)) continue;
    if (!gated && exempt(state, n.name, input, writer)) continue;
    return true;
  }
  return false;
}

/**
 * The staleness exemptions of a node no gate controls. Its own output never re-triggers it. A value written
 * downstream of it waits for the next run when no gate lies on a path to the writer (a feedback loop); when one
 * does, the value came around the gate's loop and re-triggers it now — unless it is a seed of the loop and this
 * node is not the loop's entry (it reads the seed in the next iteration, after the entry ran).
 */
function exempt(state: RunState, name: string, input: string, writer: string): boolean {
  if (writer === name) return true;
  if (writer === INPUT_STEP) return false;
  const a = state.graph.analysis;
  if (!a.reachesAcyclic(name, writer)) return false;
  return !a.gateBetween(name, writer) || a.isSeedForNonEntry(input, name);
}
