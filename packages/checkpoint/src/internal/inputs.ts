/**
 * The input rules every backend applies before it touches storage: text it must keep verbatim (ids, node names,
 * owners), the shape of a new workflow, a group of steps, the steps of a start and the parts of a finish, and the
 * status filter of a listing. One implementation, so memory, SQL and Redis accept and refuse exactly the same calls.
 */
import type {
  Fence,
  Lease,
  NewWorkflow,
  StepGroup,
  StepRecord,
  WorkflowFinish,
  WorkflowStatus,
} from "../Checkpointer.js";
import { CheckpointError } from "../errors.js";
import { hasLoneSurrogate, isStorableText, validateStepRecord, validateWorkflowId } from "../state.js";
import { validateFence } from "./leases.js";
import { isWorkflowStatus, WORKFLOW_STATUSES } from "./recordGuards.js";
import { validateWakeAt } from "./time.js";

/** What a stored text is, for messages and for the error's `path`. */
export type StoredTextKind = "workflow id" | "parent id" | "node name";

const PATHS: Readonly<Record<StoredTextKind, string>> = {
  "workflow id": "workflowId",
  "parent id": "parentId",
  "node name": "nodeName",
};

/**
 * Checks text that becomes part of a key or a column: ids (every rule of `validateWorkflowId`) and node names (whose
 * shape `validateStepRecord` checks). A lone UTF-16 surrogate has no UTF-8 form, so a store would keep U+FFFD instead
 * and the text would not read back as written: refused on every backend, the in-memory one included.
 */
export function requireStorableText(
  value: unknown,
  operation: string,
  kind: StoredTextKind = "workflow id",
): asserts value is string {
  if (kind !== "node name") validateWorkflowId(value, operation);
  if (typeof value !== "string" || !hasLoneSurrogate(value)) return;
  throw new CheckpointError({
    message:
      `Invalid ${kind} ${JSON.stringify(value)} passed to ${operation}: it contains a lone UTF-16 surrogate, which ` +
      "no store can keep as UTF-8 text. Use a well-formed string.",
    ...(kind === "workflow id" ? { workflowId: value } : {}),
    operation,
    path: PATHS[kind],
  });
}

/**
 * Validates the input of `createWorkflow` / `startWorkflow`: storable id and parent id, names without NUL, a valid
 * `wakeAt` Date (a delayed start: the store creates the workflow `paused` with that due time).
 */
export function validateNewWorkflow(workflow: NewWorkflow, operation: string): void {
  if (typeof workflow !== "object" || workflow === null) {
    throw new CheckpointError({ message: `${operation} expects { id, graphName, graphHash }.`, operation });
  }
  requireStorableText(workflow.id, operation);
  for (const field of ["graphName", "graphHash"] as const) {
    if (typeof workflow[field] !== "string" || workflow[field].includes("\u0000")) {
      throw new CheckpointError({
        message: `${operation}('${workflow.id}'): ${field} must be a string without NUL characters.`,
        workflowId: workflow.id,
        operation,
        path: field,
      });
    }
  }
  if (workflow.parentId !== undefined) requireStorableText(workflow.parentId, operation, "parent id");
  if (workflow.wakeAt !== undefined)
    validateWakeAt(workflow.wakeAt, { operation, workflowId: workflow.id, path: "wakeAt" });
}

/**
 * Validates the steps of one workflow written together under one fence (`saveStep`, `saveSteps`, a group of
 * `saveStepBatch` / `finishWorkflow`): every step well-formed and storable, all of one workflow, the fence valid for
 * it. Returns that workflow's id and the id of the workflow whose lease guards the write (`undefined`: unfenced).
 */
export function validateStepGroup(
  steps: readonly StepRecord[],
  fence: Fence | undefined,
  operation: string,
): { readonly workflowId: string; readonly guardId: string | undefined } {
  if (!Array.isArray(steps) || steps.length === 0) {
    throw new CheckpointError({ message: `${operation} expects a non-empty array of steps.`, operation });
  }
  const workflowId = (steps[0] as StepRecord | undefined)?.workflowId;
  for (const step of steps) {
    validateStepRecord(step, operation);
    requireStorableText(step.workflowId, operation);
    requireStorableText(step.nodeName, operation, "node name");
    if (step.workflowId !== workflowId) {
      throw new CheckpointError({
        message: `${operation}: every step of one group must belong to one workflow ('${workflowId}' and '${step.workflowId}').`,
        operation,
        workflowId: String(workflowId),
        path: "steps",
      });
    }
  }
  const id = workflowId as string;
  return { workflowId: id, guardId: validateFence(id, fence, operation) };
}

/** Validates the steps `startWorkflow` writes with the start: an array of well-formed steps of the started workflow. */
export function validateStartSteps(id: string, steps: readonly StepRecord[] | undefined): readonly StepRecord[] {
  if (steps === undefined) return [];
  if (!Array.isArray(steps)) {
    throw new CheckpointError({
      message: `startWorkflow('${id}'): steps must be an array of step records of this workflow.`,
      workflowId: id,
      operation: "startWorkflow",
      path: "steps",
    });
  }
  if (steps.length === 0) return steps;
  const group = validateStepGroup(steps, undefined, "startWorkflow");
  if (group.workflowId !== id) {
    throw new CheckpointError({
      message: `startWorkflow('${id}'): its steps must belong to the started workflow, got one of '${group.workflowId}'.`,
      workflowId: id,
      operation: "startWorkflow",
      path: "steps",
    });
  }
  return steps;
}

/**
 * Validates the frame of `finishWorkflow` — the object, the workflow id, the update's fence and the release — and
 * returns the workflow id, the guard of the update and the non-empty step groups (each still to be validated with
 * {@link validateStepGroup} as it is encoded).
 */
export function validateFinish(finish: WorkflowFinish): {
  readonly workflowId: string;
  readonly guardId: string | undefined;
  readonly groups: readonly StepGroup[];
} {
  const operation = "finishWorkflow";
  if (typeof finish !== "object" || finish === null) {
    throw new CheckpointError({ message: `${operation} expects { workflowId, update, … }.`, operation });
  }
  const id = finish.workflowId;
  requireStorableText(id, operation);
  const guardId = validateFence(id, finish.fence, operation);
  const release = finish.release;
  if (release !== undefined && !isLeaseRef(release)) {
    throw new CheckpointError({
      message: `${operation}('${id}'): release must be { owner: string, epoch: integer } (the lease to give back).`,
      workflowId: id,
      operation,
      path: "release",
    });
  }
  if (finish.steps !== undefined && !Array.isArray(finish.steps)) {
    throw new CheckpointError({
      message: `${operation}('${id}'): steps must be an array of { steps, fence? } groups.`,
      workflowId: id,
      operation,
      path: "steps",
    });
  }
  const groups = (finish.steps ?? []).filter((group) => group?.steps?.length > 0);
  return { workflowId: id, guardId, groups };
}

/** Whether `lease` names a lease (`{ owner, epoch }`) a release can match; anything else releases nothing. */
export function isLeaseRef(lease: unknown): lease is Pick<Lease, "owner" | "epoch"> {
  if (typeof lease !== "object" || lease === null) return false;
  const { owner, epoch } = lease as { owner?: unknown; epoch?: unknown };
  return typeof owner === "string" && Number.isSafeInteger(epoch);
}

/** Whether `releaseWorkflow(id, lease)` can match anything: a storable id and a lease reference. */
export function isReleasable(id: unknown, lease: unknown): lease is Pick<Lease, "owner" | "epoch"> {
  return isStorableText(id) && isLeaseRef(lease);
}

/** Validates the `status` filter of `listWorkflows`. */
/** Checks the `graph` and `idPrefix` filters of `listWorkflows`: absent, or non-empty storable text. */
export function validateListFilters(options: { readonly graph?: unknown; readonly idPrefix?: unknown }): void {
  for (const key of ["graph", "idPrefix"] as const) {
    const value = options[key];
    if (value === undefined || (typeof value === "string" && value !== "" && isStorableText(value))) continue;
    throw new CheckpointError({
      message: `listWorkflows: ${key} must be a non-empty string without lone surrogates, got ${JSON.stringify(value)}.`,
      operation: "listWorkflows",
      path: key,
    });
  }
}

/** The `limit` of `sweepExpired`: absent (200), or an integer from 1 to 10,000. */
export function resolveSweepLimit(options: { readonly limit?: unknown } | undefined): number {
  const limit = options?.limit;
  if (limit === undefined) return 200;
  if (Number.isInteger(limit) && (limit as number) >= 1 && (limit as number) <= 10_000) return limit as number;
  throw new CheckpointError({
    message: `sweepExpired: limit must be an integer from 1 to 10000, got ${JSON.stringify(limit)}.`,
    operation: "sweepExpired",
    path: "limit",
  });
}

export function validateStatusFilter(status: unknown): asserts status is WorkflowStatus | undefined {
  if (status === undefined || isWorkflowStatus(status)) return;
  throw new CheckpointError({
    message: `listWorkflows: status must be one of ${WORKFLOW_STATUSES.join(", ")}, got ${JSON.stringify(status)}.`,
    operation: "listWorkflows",
    path: "status",
  });
}
