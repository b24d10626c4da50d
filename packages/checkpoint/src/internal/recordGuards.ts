/**
 * What a record read back from storage must look like: the statuses, the shapes of decisions and stored errors, and
 * the error for a record that does not fit. Every backend checks what it reads with these, so a corrupt row, key or
 * text is the same `CheckpointError` everywhere instead of a `TypeError` somewhere later.
 */
import type { StepRecord, StepStatus, StoredError, WorkflowStatus } from "../Checkpointer.js";
import { CheckpointError } from "../errors.js";

/** Every workflow status, in the order messages list them. */
export const WORKFLOW_STATUSES: readonly WorkflowStatus[] = ["running", "completed", "paused", "stopped", "failed"];

/** Every step status, in the order messages list them. */
export const STEP_STATUSES: readonly StepStatus[] = ["completed", "failed", "paused", "stopped", "running"];

/** Whether `value` is a workflow status. */
export function isWorkflowStatus(value: unknown): value is WorkflowStatus {
  return WORKFLOW_STATUSES.includes(value as WorkflowStatus);
}

/** Whether `value` is a step status. */
export function isStepStatus(value: unknown): value is StepStatus {
  return STEP_STATUSES.includes(value as StepStatus);
}

/** Whether `value` is a plain record (an object, not an array, not null): step values, input versions, pauses. */
export function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whether `value` is a stored gate decision: a target name, a list of them, or `null`. */
export function isStepDecision(value: unknown): value is NonNullable<StepRecord["decision"]> | null {
  return (
    value === null || typeof value === "string" || (Array.isArray(value) && value.every((v) => typeof v === "string"))
  );
}

/** Whether `value` has the shape of a {@link StoredError}. */
export function isStoredError(value: unknown): value is StoredError {
  return isPlainRecord(value) && typeof value["name"] === "string" && typeof value["message"] === "string";
}

/** Keeps only the fields of a `StoredError`, as strings: what every backend stores for an error. */
export function normalizeStoredError(error: StoredError): StoredError {
  return {
    name: String(error.name),
    message: String(error.message),
    ...(error.tag === undefined ? {} : { tag: String(error.tag) }),
    ...(error.stack === undefined ? {} : { stack: String(error.stack) }),
  };
}

/**
 * The error for a stored record that does not read back as the contract says: `field` names the part (as the
 * backend calls it, e.g. `step column idx`), `backup` what can be restored from a backup (e.g. `the database`).
 */
export function corruptRecordError(where: {
  readonly workflowId: string;
  readonly field: string;
  readonly operation: string;
  readonly nodeName?: string | undefined;
  readonly backup?: string;
}): CheckpointError {
  const { workflowId, field, operation, nodeName } = where;
  return new CheckpointError({
    message:
      `Stored ${field} of workflow '${workflowId}'${nodeName === undefined ? "" : ` (node '${nodeName}')`} is corrupt: ` +
      "it was changed outside the checkpointer or written by an incompatible version. Delete the workflow" +
      (where.backup === undefined ? "." : `, or restore ${where.backup} from a backup.`),
    workflowId,
    operation,
    ...(nodeName === undefined ? {} : { nodeName }),
    path: field,
  });
}
