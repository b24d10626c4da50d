import { closestName, type Graph } from "@graph/core";
import { MissingInputError, UnexpectedAnswerError, UnknownValueError } from "../errors.js";
import { responseKeys } from "./responseKeys.js";

/**
 * The errors a run fails with before its first node when the caller's values don't fit the graph: required inputs
 * missing, values no node knows, a resume that does not answer the pending pause. Each names the likely mistake.
 */
export interface InputView {
  readonly graph: Graph;
  readonly workflowId: string;
  readonly values: Readonly<Record<string, unknown>>;
  /** The node the stored workflow is paused at (when it is paused). */
  readonly pausedAt: string | undefined;
  readonly hasStore: boolean;
  readonly isChild: boolean;
}

/** `graph 'name'` or `the graph`, for messages. */
export const graphLabel = (graph: Graph): string => (graph.name ? `graph '${graph.name}'` : "the graph");

/** A resume whose values do not answer the pending pause (usually a misspelled response key). */
export function unansweredPauseError(view: InputView, pending: string, unknown: readonly string[]): UnknownValueError {
  const close = closestName(pending, unknown);
  const node = view.pausedAt ?? "?";
  return new UnknownValueError(
    `Workflow '${view.workflowId}' is paused at '${node}', waiting for '${pending}', but the run got ${unknown.map((k) => `'${k}'`).join(", ")}, which ${graphLabel(view.graph)} does not know.\n` +
      (close === undefined ? "" : `  → Did you mean '${pending}' instead of '${close}'?\n`) +
      `  How to fix: answer with the pending response key: runner.run(graph, { workflowId: '${view.workflowId}', values: { ${pending}: … } }).`,
    unknown,
  );
}

/** A resume answering pauses that are not pending (`pending`: response key → paused node; empty: none). */
export function unexpectedAnswerError(
  view: InputView,
  answers: readonly string[],
  pending: ReadonlyMap<string, string>,
): UnexpectedAnswerError {
  const keys = [...pending.keys()];
  const list = (ks: readonly string[]) => ks.map((k) => `'${k}'`).join(", ");
  const waiting =
    keys.length === 0
      ? "nothing is pending (it is not paused)"
      : `it is paused waiting for ${keys.map((k) => `'${k}' (at '${pending.get(k)}')`).join(", ")}`;
  const fix =
    keys.length === 0
      ? `run it without ${list(answers)}, and answer once a run returns status "paused" (result.pause.responseKey names the key).`
      : `answer the pending pause: runner.run(graph, { workflowId: '${view.workflowId}', values: { ${keys[0]}: … } }); answer the others when the workflow pauses at them.`;
  return new UnexpectedAnswerError(
    `Workflow '${view.workflowId}' got an answer for ${list(answers)}, but ${waiting}. The answer was refused and nothing was saved.\n` +
      `  How to fix: ${fix}`,
    view.workflowId,
    answers,
    keys,
  );
}

export function unknownValueError(
  view: InputView,
  unknown: readonly string[],
  known: ReadonlySet<string>,
): UnknownValueError {
  const hints = unknown.map((k) => {
    const close = closestName(k, known);
    return close === undefined ? undefined : `  → Did you mean '${close}' instead of '${k}'?`;
  });
  const inputs = [...view.graph.inputs.all];
  return new UnknownValueError(
    `Unknown value(s) for ${graphLabel(view.graph)}: ${unknown.map((k) => `'${k}'`).join(", ")} — no node reads or produces ${unknown.length === 1 ? "it" : "them"}.\n` +
      `${hints.filter((h): h is string => h !== undefined).join("\n")}${hints.some((h) => h !== undefined) ? "\n" : ""}` +
      `  → Inputs: ${inputs.length === 0 ? "(none)" : inputs.map((k) => `'${k}'`).join(", ")}\n` +
      `  How to fix: correct the name, or pass unknownValues: "ignore" to the run to drop values the graph does not use.`,
    unknown,
  );
}

export function missingInputError(
  view: InputView,
  missing: readonly string[],
  unknown: readonly string[],
): MissingInputError {
  const provided = Object.keys(view.values);
  const a = view.graph.analysis;
  const hints: string[] = [];
  for (const m of missing) {
    const close = closestName(m, unknown);
    if (close !== undefined) {
      hints.push(`  → Did you mean '${m}' instead of '${close}'?`);
      continue;
    }
    const readers = (a.consumers.get(m) ?? []).map((c) => `'${c}'`).join(", ");
    const producers = a.producers.get(m);
    if (producers !== undefined) {
      // Produced, yet required from the caller: the seed of a loop, read by the loop's entry on its first run.
      const entries = loopEntriesReading(view.graph, m);
      hints.push(
        `  → '${m}' is produced by ${producers.map((p) => `'${p}'`).join(", ")} inside a loop that starts at ${entries}, which reads it on its first run, before any node of the loop has produced it. ` +
          `Give the first run a value: a default in the parameter list (({ ${m} = … }) => …), graph.bind({ ${m}: … }), or values: { ${m}: … }.`,
      );
      continue;
    }
    // A misspelled parameter name looks like a missing input: point at the output it was probably meant to read.
    const output = closestName(m, a.producers.keys());
    if (output !== undefined) {
      hints.push(
        `  → '${m}' (read by ${readers}) is not produced by any node: did you mean '${output}', produced by '${a.producers.get(output)![0]}'? If so, fix the parameter name.`,
      );
    }
  }
  const answers = provided.filter((p) => responseKeys(view.graph).has(p));
  if (!view.hasStore && answers.length > 0 && !view.isChild) {
    hints.push(
      `  → This looks like answering a pause (${answers.map((k) => `'${k}'`).join(", ")}), but this runner has no checkpointer, so the paused run kept nothing. ` +
        `Resuming needs the original values again together with the answer, or a Runner with a checkpointer (new Runner({ checkpointer })).`,
    );
  }
  const message =
    `Missing required input(s) for ${graphLabel(view.graph)}: ${missing.map((m) => `'${m}'`).join(", ")}.\n` +
    `  → Provided: ${provided.length === 0 ? "(nothing)" : provided.map((p) => `'${p}'`).join(", ")}\n` +
    (hints.length > 0 ? `${hints.join("\n")}\n` : "") +
    `  How to fix: pass them in values: runner.run(graph, { values: { ${missing.map((m) => `${m}: …`).join(", ")} } }), ` +
    `or give defaults with graph.bind({ ${missing.map((m) => `${m}: …`).join(", ")} }).`;
  return new MissingInputError(message, missing, provided);
}

/** The entries (quoted) of the loops whose seed `value` is. */
function loopEntriesReading(graph: Graph, value: string): string {
  const a = graph.analysis;
  const names: string[] = [];
  for (const c of a.cyclic)
    if (a.loops.seeds.get(c)?.has(value)) for (const e of a.entries.get(c) ?? []) if (!names.includes(e)) names.push(e);
  return names.map((n) => `'${n}'`).join(", ");
}
