/**
 * Lease and fencing helpers shared by the adapters (memory and SQL), so every backend validates claim options
 * and words conflicts the same way.
 */
import { CheckpointError, WorkflowConflictError } from "../errors.js";

/** Validates `claimWorkflow` options. */
export function validateClaimOptions(id: string, options: { readonly owner: string; readonly ttlMs: number }): void {
  if (typeof options !== "object" || options === null) {
    throw new CheckpointError({
      message: `claimWorkflow('${id}') needs options { owner, ttlMs }.`,
      workflowId: id,
      operation: "claimWorkflow",
    });
  }
  if (typeof options.owner !== "string" || options.owner === "") {
    throw new CheckpointError({
      message:
        `claimWorkflow('${id}'): owner must be a non-empty string identifying this run ` +
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the placeholders are meant literally.
        "(for example `${hostname}:${pid}:${runId}`).",
      workflowId: id,
      operation: "claimWorkflow",
      path: "owner",
    });
  }
  if (typeof options.ttlMs !== "number" || !Number.isFinite(options.ttlMs) || options.ttlMs <= 0) {
    throw new CheckpointError({
      message: `claimWorkflow('${id}'): ttlMs must be a positive number of milliseconds, got ${String(options.ttlMs)}.`,
      workflowId: id,
      operation: "claimWorkflow",
      path: "ttlMs",
    });
  }
}

/** Validates a fence passed to a write. */
export function validateFence(id: string, fence: { readonly epoch: number } | undefined, operation: string): void {
  if (fence === undefined) return;
  if (typeof fence !== "object" || fence === null || !Number.isSafeInteger(fence.epoch)) {
    throw new CheckpointError({
      message: `${operation}('${id}'): the fence must be { epoch } with the integer epoch of a lease from claimWorkflow.`,
      workflowId: id,
      operation,
      path: "fence",
    });
  }
}

/** The error for a claim that met another owner's live lease. */
export function leaseHeldError(id: string, owner: string, expiresAt: Date): WorkflowConflictError {
  return new WorkflowConflictError({ workflowId: id, heldBy: owner, expiresAt });
}

/** The error for a write whose fencing epoch is stale. */
export function staleFenceError(
  id: string,
  operation: string,
  fenceEpoch: number,
  current: { readonly epoch: number; readonly owner?: string; readonly expiresAt?: Date },
): WorkflowConflictError {
  const by = current.owner === undefined ? "" : ` by owner '${current.owner}'`;
  return new WorkflowConflictError({
    workflowId: id,
    ...(current.owner === undefined ? {} : { heldBy: current.owner }),
    ...(current.expiresAt === undefined ? {} : { expiresAt: current.expiresAt }),
    message:
      `Workflow '${id}' was claimed${by} (lease epoch ${current.epoch}) after this run claimed it ` +
      `(epoch ${fenceEpoch}), so this run's ${operation} was rejected and nothing was written. ` +
      "Stop this run: the workflow continues under its current owner.",
  });
}

/** The error for a write to a workflow that does not exist. */
export function unknownWorkflowError(id: string, operation: string): CheckpointError {
  return new CheckpointError({
    message:
      `${operation}: workflow '${id}' does not exist. Create it with createWorkflow first ` +
      "(it may also have been deleted or expired by the ttlMs policy).",
    workflowId: id,
    operation,
  });
}
