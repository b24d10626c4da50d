/**
 * The attempt of a node with `retry` that a step records (`attempt`): the check every backend applies before it
 * writes one, the canonical form it stores, and the check on what it reads back. One rule set, so memory, SQL and
 * Redis accept, refuse and return the same records.
 */
import type { StepAttempt, StepRecord } from "../Checkpointer.js";

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * What is wrong with a step's `attempt` and `status` together, or `undefined` when they fit: `path` is the offending
 * part and `problem` says what it must be. A `running` step is an attempt under way, so it must say which one; an
 * input record has no attempts.
 *
 * @example
 * ```ts
 * attemptProblem({ ...step, attempt: { number: 0, repeats: 0 } }); // { path: "attempt.number", problem: "must be …" }
 * ```
 */
export function attemptProblem(
  step: Pick<StepRecord, "attempt" | "status" | "kind" | "nodeName">,
): { readonly path: string; readonly problem: string } | undefined {
  const value: unknown = step.attempt;
  if (value === undefined) {
    return step.status === "running"
      ? { path: "attempt", problem: "is required on a running step (the attempt under way, { number, repeats })" }
      : undefined;
  }
  if (!isPlainObject(value)) return { path: "attempt", problem: "must be a plain object { number, repeats }" };
  for (const key of Object.keys(value)) {
    if (key !== "number" && key !== "repeats")
      return { path: `attempt.${key}`, problem: "is not an attempt field (the fields are number and repeats)" };
  }
  const { number, repeats } = value;
  if (typeof number !== "number" || !Number.isSafeInteger(number) || number < 1)
    return { path: "attempt.number", problem: `must be an integer ≥ 1, got ${String(number)}` };
  if (typeof repeats !== "number" || !Number.isSafeInteger(repeats) || repeats < 0)
    return { path: "attempt.repeats", problem: `must be an integer ≥ 0, got ${String(repeats)}` };
  if (step.kind === "input") return { path: "attempt", problem: "is only stored on node steps, not on input records" };
  return undefined;
}

/** Whether a value read back from storage is a {@link StepAttempt}. */
export function isStepAttempt(value: unknown): value is StepAttempt {
  return attemptProblem({ attempt: value as StepAttempt, status: "running", nodeName: "" }) === undefined;
}

/** The canonical stored form of a step's attempt (only its two fields), or `undefined` when it has none. */
export function storedAttempt(step: Pick<StepRecord, "attempt">): StepAttempt | undefined {
  const a = step.attempt;
  return a === undefined ? undefined : { number: a.number, repeats: a.repeats };
}
