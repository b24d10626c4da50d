import { INPUT_STEP, type StepRecord, type UsageRecord } from "@graph/checkpoint";
import { END, type Target } from "@graph/core";
import type { EngineHost } from "./host.js";
import { decisionFromStored, decisionShape } from "./outcome.js";
import { EVER_RAN, RAN_THIS_RUN } from "./state.js";
import { turnUsage } from "./usage.js";

/** What folding a workflow's history told the journal about the run to come. */
export interface Folded {
  /** Parent versions recorded by this child workflow's input steps (undefined: never started with a history). */
  readonly parentVersionsSeen: Record<string, number> | undefined;
  /** GraphNodes that completed before this run, with their last step (their results are replayed, not re-run). */
  readonly replayedGraphNodes: ReadonlyArray<readonly [string, StepRecord]>;
  /** Emits the replayed RouteDecision and NodeEnd events: the journal calls it once the run holds the workflow. */
  readonly replay: () => void;
  /** This run starts a turn (a fresh workflow, or a finished one run again). */
  readonly newTurn: boolean;
  /** Nodes whose last step paused (interrupts, GraphNodes holding one), with the response key they asked for. */
  readonly paused: ReadonlyMap<string, string>;
  /** What the steps of the current turn spent (since the last input record that started a turn). */
  readonly turnUsage: UsageRecord | undefined;
  /** The budget of the latest input record that has one (it stays in force across turns). */
  readonly budget: UsageRecord | undefined;
}

/**
 * Folds stored steps into run state: values with their versions, what each node consumed, the regions of loops
 * and (unless a finished workflow starts a new turn) the gates' pending decisions. The replayed RouteDecision and
 * NodeEnd events are returned as `replay`, not emitted: a run that fails to claim the workflow must not tell them.
 */
export function foldSteps(host: EngineHost, steps: readonly StepRecord[], newTurn: boolean): Folded {
  const { state, graph } = host;
  const sorted = [...steps].sort((a, b) => a.index - b.index);
  let parentVersionsSeen: Record<string, number> | undefined;
  if (host.config.parentVersions !== undefined) {
    for (const s of sorted)
      if (s.nodeName === INPUT_STEP) parentVersionsSeen = { ...parentVersionsSeen, ...s.inputVersions };
  }
  const lastDecision = new Map<string, { superstep: number; decision: readonly Target[] | null }>();
  const lastCompleted = new Map<string, StepRecord>();
  const paused = new Map<string, string>();
  let turnStart = 0;
  let budget: UsageRecord | undefined;
  let superstep: number | undefined;
  // A nested run's new turn is a new call: its own loop state starts from its seed (what the parent passes follows).
  const ownState = host.config.isChild ? graph.privateState : [];
  for (const s of sorted) {
    // Branch regions change once per superstep, as they did when the steps ran (regions.ts).
    if (s.superstep !== superstep) state.regions.flush();
    superstep = s.superstep;
    state.nextIndex = Math.max(state.nextIndex, s.index + 1);
    state.superstep = Math.max(state.superstep, s.superstep);
    if (s.nodeName === INPUT_STEP && s.turnStart === true && ownState.length > 0) state.resetOwnState(ownState);
    for (const [k, v] of Object.entries(s.values))
      state.values.set(k, { value: v, version: s.index, writer: s.nodeName });
    if (s.nodeName === INPUT_STEP && s.turnStart === true) {
      // A new turn began here: earlier gate decisions and runs belong to finished turns.
      turnStart = s.index;
      lastDecision.clear();
      state.clearAll(RAN_THIS_RUN);
      state.regions.clear();
    }
    if (s.budget !== undefined) budget = s.budget;
    if (s.nodeName !== INPUT_STEP) {
      if (s.status === "paused" && s.pause !== undefined) {
        paused.set(s.nodeName, s.pause.responseKey);
        // A timed pause's step starts when it first paused (the executor keeps it on every re-pause).
        state.pausedSince.set(s.nodeName, s.startedAt.getTime());
      } else {
        paused.delete(s.nodeName);
        state.pausedSince.delete(s.nodeName);
      }
    }
    if (s.nodeName === INPUT_STEP || s.status !== "completed") continue;
    const node = graph.nodes.get(s.nodeName);
    if (node === undefined) continue;
    state.mark(s.nodeName, EVER_RAN);
    state.consume(state.plans.get(s.nodeName)!, s.inputVersions);
    lastCompleted.set(s.nodeName, s);
    // Ran in the current turn: a loop entry does not get its before-the-gate run again.
    if (s.index > turnStart) state.mark(s.nodeName, RAN_THIS_RUN);
    const isGate = node.kind === "gate";
    const decision = isGate ? decisionFromStored(s.decision) : undefined;
    if (isGate) lastDecision.set(node.name, { superstep: s.superstep, decision: decision ?? null });
    state.regions.completed(s.nodeName, decision, isGate);
  }
  state.regions.flush();
  // A finished workflow run again is a new turn: gates decide afresh. Otherwise (paused, stopped, crashed) replay.
  if (newTurn) {
    state.clearAll(RAN_THIS_RUN);
    state.regions.clear();
    if (ownState.length > 0) state.resetOwnState(ownState);
  }
  state.regions.drainReopened(); // every node is examined at the start anyway
  state.regions.drainClosed();
  const events: Array<() => void> = [];
  if (!newTurn) {
    for (const [gate, { superstep, decision }] of lastDecision) {
      state.decided.add(gate);
      if (decision === null) continue;
      // Only a target's run in a later superstep took the decision: one beside the gate ran before it existed.
      const pending = new Set<Target>(
        decision.filter((t) => t === END || !((lastCompleted.get(t as string)?.superstep ?? -1) > superstep)),
      );
      state.pending.set(gate, pending);
      const node = graph.nodes.get(gate);
      if (node?.kind !== "gate") continue; // lastDecision holds gates only
      events.push(() => host.event("RouteDecision", { gate, decision: decisionShape(node, decision), replayed: true }));
    }
  }
  for (const [name, s] of lastCompleted) {
    if (graph.nodes.get(name)?.kind === "gate") continue;
    events.push(() =>
      host.event("NodeEnd", {
        nodeName: name,
        status: "completed",
        outputs: s.values,
        durationMs: 0,
        cached: false,
        replayed: true,
        truncated: s.truncated,
      }),
    );
  }
  return {
    parentVersionsSeen,
    replayedGraphNodes: [...lastCompleted].filter(([name]) => graph.nodes.get(name)?.kind === "graph"),
    newTurn: newTurn || sorted.length === 0,
    paused,
    turnUsage: turnUsage(sorted),
    budget,
    replay: () => {
      for (const emit of events) emit();
    },
  };
}
