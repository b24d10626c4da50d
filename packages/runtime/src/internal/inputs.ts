import type { WorkflowRecord } from "@graph/checkpoint";
import type { Graph } from "@graph/core";
import type { MissingInputError, UnexpectedAnswerError, UnknownValueError } from "../errors.js";
import { InvalidAnswerError } from "../errors.js";
import type { EngineHost } from "./host.js";
import {
  graphLabel,
  type InputView,
  missingInputError,
  unansweredPauseError,
  unexpectedAnswerError,
  unknownValueError,
} from "./inputErrors.js";
import { canStart, skippedBySuppliedOutputs } from "./readiness.js";
import { responseKeys } from "./responseKeys.js";
import type { RunState } from "./state.js";

/**
 * Checks the caller's values before the first node: required inputs and seeds present (unless only skipped nodes
 * need them), no unknown names (an error, or a Warning when `unknownValues: "ignore"`), a pending pause answered,
 * and, when a paused workflow resumes, no answer for a pause that is not pending. `paused` (nodes paused in the stored history, with their response key)
 * is given for runs with a store: without one nothing tells which pauses are pending.
 */
export function inputProblem(
  host: EngineHost,
  workflow: WorkflowRecord | undefined,
  paused?: ReadonlyMap<string, string>,
): MissingInputError | UnknownValueError | UnexpectedAnswerError | InvalidAnswerError | undefined {
  const { graph, config, state } = host;
  const spec = graph.inputs;
  const known = knownNames(graph);
  const unknown: string[] = [];
  for (const k in config.values) if (!known.has(k)) unknown.push(k);
  let missing: string[] | undefined;
  for (const k of spec.required) if (isMissing(state, graph, k)) (missing ??= []).push(k);
  for (const k of missingSeeds(state, graph)) (missing ??= []).push(k);
  if (missing !== undefined) return missingInputError(inputView(host, workflow), missing, unknown);
  if (!config.isChild) {
    const refused = invalidAnswer(graph, config.values, config.workflowId);
    if (refused !== undefined) return refused;
  }
  // Only a resume of a paused workflow: on a first run (and on a completed workflow's next turn) a supplied value
  // for an interrupt's response is its documented skip, and any other state is left to the claim. The record and
  // the steps are read one after the other: a record that says paused over steps with no pause left means another
  // runner resumed it in between — its claim, not this check, answers the caller (WorkflowConflictError).
  if (paused !== undefined && paused.size > 0 && !config.isChild && workflow?.status === "paused") {
    const early = earlyAnswers(graph, config.values, paused);
    if (early !== undefined) return unexpectedAnswerError(inputView(host, workflow), early.answers, early.pending);
  }
  // Build warnings (a loop whose start only a name tie-break decided) reach the user with every run.
  for (const message of graph.warnings) host.event("Warning", { message });
  if (unknown.length === 0 || config.isChild) return undefined;
  const pending = workflow?.status === "paused" ? workflow.pause?.responseKey : undefined;
  const answered = pending !== undefined && Object.hasOwn(config.values, pending);
  if (pending !== undefined && !answered) return unansweredPauseError(inputView(host, workflow), pending, unknown);
  if (config.unknownValues === "error") return unknownValueError(inputView(host, workflow), unknown, known);
  host.event("Warning", {
    message: `Unknown input(s) ${unknown.map((k) => `'${k}'`).join(", ")} for ${graphLabel(graph)}; they are ignored. Inputs: ${[...spec.all].map((k) => `'${k}'`).join(", ") || "(none)"}.`,
    unknownInputs: unknown,
  });
  return undefined;
}

/**
 * Answers (values named by a response key) for pauses that are not pending. An answer kept until its interrupt runs
 * would be taken silently by a later visit, so it is refused. A paused GraphNode accepts every answer of its graph:
 * its step names one pause, though several inside it may be waiting.
 */
function earlyAnswers(
  graph: Graph,
  values: Readonly<Record<string, unknown>>,
  paused: ReadonlyMap<string, string>,
): { answers: string[]; pending: Map<string, string> } | undefined {
  const keys = responseKeys(graph);
  let answers: string[] | undefined;
  for (const k in values) if (keys.has(k)) (answers ??= []).push(k);
  if (answers === undefined) return undefined;
  const pending = new Map<string, string>();
  const accepted = new Set<string>();
  for (const [nodeName, key] of paused) {
    pending.set(key, nodeName);
    accepted.add(key);
    const node = graph.nodes.get(nodeName);
    if (node?.kind !== "graph") continue;
    for (const inner of responseKeys(node.graph)) {
      const outer = node.outerOutput(inner);
      if (outer !== undefined) accepted.add(outer);
    }
  }
  const refused = answers.filter((k) => !accepted.has(k));
  return refused.length === 0 ? undefined : { answers: refused, pending };
}

/** What the input errors describe (built only when there is an error). */
function inputView(host: EngineHost, workflow: WorkflowRecord | undefined): InputView {
  const { graph, config } = host;
  return {
    graph,
    workflowId: config.workflowId,
    values: config.values,
    pausedAt: workflow?.pause?.nodeName,
    hasStore: config.shared.store !== undefined,
    isChild: config.isChild,
  };
}

/**
 * The first values a loop lacks: only when no node of the loop can start with the run's values (caller values, bind,
 * defaults, restored state) — a loop that can start gets its values as it runs — and then only the seeds its entry
 * reads, never values that nodes after the entry read.
 */
function missingSeeds(state: RunState, graph: Graph): readonly string[] {
  const a = graph.analysis;
  const out: string[] = [];
  for (const c of a.cyclic) {
    const seeds = a.loops.seeds.get(c);
    if (seeds === undefined || seeds.size === 0) continue;
    const lacking = [...seeds].filter((k) => graph.inputs.seeds.has(k) && isMissing(state, graph, k));
    if (lacking.length === 0 || a.components[c]!.some((n) => canStart(state, n))) continue;
    for (const k of lacking) if (!out.includes(k)) out.push(k);
  }
  return out;
}

/** An input only needed by nodes the caller skipped (by supplying their outputs) is not missing. */
function isMissing(state: RunState, graph: Graph, name: string): boolean {
  if (state.values.has(name)) return false;
  return !(graph.analysis.consumers.get(name) ?? []).every((c) => skippedBySuppliedOutputs(state, c));
}

const knownByGraph = new WeakMap<Graph, ReadonlySet<string>>();

/** The names a caller may pass: inputs, outputs and interrupt answers (per graph, computed once). */
function knownNames(graph: Graph): ReadonlySet<string> {
  let known = knownByGraph.get(graph);
  if (known === undefined) {
    known = new Set<string>([...graph.inputs.all, ...graph.outputs, ...responseKeys(graph)]);
    knownByGraph.set(graph, known);
  }
  return known;
}

/**
 * The first answer the caller supplied that its interrupt's `schema` refuses: an answer to a pending pause, or one
 * that skips an interrupt on a fresh run. Checked before anything is written, whichever way the answer came.
 */
function invalidAnswer(
  graph: Graph,
  values: Readonly<Record<string, unknown>>,
  workflowId: string,
): InvalidAnswerError | undefined {
  for (const node of graph.nodes.values()) {
    if (node.kind !== "interrupt" || node.answerSchema === undefined || !Object.hasOwn(values, node.responseKey))
      continue;
    const parsed = node.answerSchema.safeParse(values[node.responseKey]);
    if (parsed.success) continue;
    const issues = parsed.error.issues.map((i) =>
      i.path.length > 0 ? `${i.path.map(String).join(".")}: ${i.message}` : i.message,
    );
    return new InvalidAnswerError({ workflowId, nodeName: node.name, responseKey: node.responseKey, issues });
  }
  return undefined;
}
