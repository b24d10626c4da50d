import { INPUT_STEP, type StepReadOptions, type StepRecord } from "../Checkpointer.js";

/**
 * Input records (the values a caller passed to a run) share the steps table with node steps. Their turn boundary is
 * kept in the `decision` column, which input records have no other use for; older records wrote the same marker
 * as their `decision`, so both read back as `turnStart: true`.
 */
const TURN_MARK = "turn";

/** Is this an input record rather than a node step? */
export const isInputRecord = (step: Pick<StepRecord, "nodeName" | "kind">): boolean =>
  step.kind === "input" || step.nodeName === INPUT_STEP;

/** The `decision` to store for a step: an input record's turn boundary, else the gate's decision. */
export function storedDecision(step: StepRecord): StepRecord["decision"] {
  if (!isInputRecord(step)) return step.decision;
  return step.turnStart === true || isTurnMark(step.decision) ? [TURN_MARK] : undefined;
}

const isTurnMark = (decision: StepRecord["decision"]): boolean =>
  Array.isArray(decision) && decision.length === 1 && decision[0] === TURN_MARK;

/** A stored step as the contract describes it: input records get `kind: "input"` and `turnStart`, no decision. */
export function readStoredStep(step: StepRecord): StepRecord {
  if (!isInputRecord(step)) return step;
  const { decision, turnStart, kind: _kind, ...rest } = step;
  const turn = turnStart === true || isTurnMark(decision);
  return { ...rest, kind: "input", ...(turn ? { turnStart: true } : {}) };
}

/** `getSteps`: node steps only, unless the caller asks for the input records too. */
export function selectSteps(steps: readonly StepRecord[], options: StepReadOptions | undefined): StepRecord[] {
  return options?.includeInputs === true ? [...steps] : steps.filter((s) => !isInputRecord(s));
}
