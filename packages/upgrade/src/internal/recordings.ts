import { isDeepStrictEqual } from "node:util";
import { type Checkpointer, INPUT_STEP, type StepRecord } from "@graph/checkpoint";
import { readHistory } from "./history.js";

/** One stored run tree (a workflow and its nested child workflows), read for a replay or a comparison. */
export interface RecordedRun {
  /** Completed steps of function nodes by path (`planner`, `executor/agent`), in execution order. */
  readonly outputs: ReadonlyMap<string, readonly Readonly<Record<string, unknown>>[]>;
  /** The root's input records in order: one per call that brought values (the first run, each answer). */
  readonly inputs: readonly Readonly<Record<string, unknown>>[];
  /** Final values by path (nested workflows' values under their node's name). */
  readonly values: ReadonlyMap<string, unknown>;
  /** Every gate's decisions by path, in order. */
  readonly decisions: ReadonlyMap<string, readonly string[]>;
}

const decisionText = (d: StepRecord["decision"]): string =>
  d === undefined || d === null ? "(none)" : typeof d === "string" ? d : d.length === 1 ? d[0]! : d.join(" + ");

/** Reads the run tree of `workflowId` (children through the `childWorkflowId` of GraphNode steps). */
export async function readRecordedRun(
  checkpointer: Checkpointer,
  workflowId: string,
  isGate: (path: string) => boolean,
): Promise<RecordedRun> {
  const outputs = new Map<string, Readonly<Record<string, unknown>>[]>();
  const values = new Map<string, unknown>();
  const decisions = new Map<string, string[]>();
  let inputs: Readonly<Record<string, unknown>>[] = [];
  const visit = async (id: string, prefix: string): Promise<void> => {
    const steps = [...(await checkpointer.getSteps(id, { includeInputs: true }))].sort((a, b) => a.index - b.index);
    if (prefix === "") inputs = steps.filter((s) => s.nodeName === INPUT_STEP).map((s) => s.values);
    const children = new Map<string, string>();
    for (const s of steps) {
      if (s.nodeName === INPUT_STEP || s.status !== "completed") continue;
      const path = `${prefix}${s.nodeName}`;
      if (s.childWorkflowId !== undefined) {
        children.set(s.nodeName, s.childWorkflowId);
        continue;
      }
      if (isGate(path)) decisions.set(path, [...(decisions.get(path) ?? []), decisionText(s.decision)]);
      else outputs.set(path, [...(outputs.get(path) ?? []), s.values]);
    }
    for (const [k, v] of readHistory(steps).state) values.set(`${prefix}${k}`, v.value);
    for (const [name, child] of children) await visit(child, `${prefix}${name}/`);
  };
  await visit(workflowId, "");
  return { outputs, inputs, values, decisions };
}

/** A difference between the stored run and the replay. */
export type ValueDiff =
  | { readonly path: string; readonly kind: "changed"; readonly before: unknown; readonly after: unknown }
  | { readonly path: string; readonly kind: "removed"; readonly before: unknown }
  | { readonly path: string; readonly kind: "added"; readonly after: unknown };

/** A gate whose sequence of decisions differs between the stored run and the replay. */
export interface DecisionDiff {
  readonly gate: string;
  readonly before: readonly string[];
  readonly after: readonly string[];
}

export function diffValues(before: ReadonlyMap<string, unknown>, after: ReadonlyMap<string, unknown>): ValueDiff[] {
  const diffs: ValueDiff[] = [];
  for (const [path, value] of before) {
    if (!after.has(path)) diffs.push({ path, kind: "removed", before: value });
    else if (!isDeepStrictEqual(value, after.get(path)))
      diffs.push({ path, kind: "changed", before: value, after: after.get(path) });
  }
  for (const [path, value] of after) if (!before.has(path)) diffs.push({ path, kind: "added", after: value });
  return diffs.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

export function diffDecisions(
  before: ReadonlyMap<string, readonly string[]>,
  after: ReadonlyMap<string, readonly string[]>,
): DecisionDiff[] {
  const gates = [...new Set([...before.keys(), ...after.keys()])].sort();
  return gates
    .map((gate) => ({ gate, before: before.get(gate) ?? [], after: after.get(gate) ?? [] }))
    .filter((d) => !isDeepStrictEqual(d.before, d.after));
}
