/**
 * Lease and fencing rules shared by every adapter (memory, SQL, Redis): the checks of claim, fence and renewal
 * arguments, the decision of a stop request, and the conflict errors, worded the same on every backend.
 */

import type { ClaimOptions } from "../Checkpointer.js";
import { CheckpointError, WorkflowConflictError } from "../errors.js";
import { isStorableText } from "../state.js";

/**
 * Validates `claimWorkflow` options (also the claim of `startWorkflow`). The owner is stored and compared verbatim,
 * so it must be text every store keeps as given: non-empty, no NUL, no lone surrogate (a UTF-8 store would keep
 * U+FFFD instead, and the owner's own renewals and claims would then no longer match it).
 */
export function validateClaimOptions(id: string, options: { readonly owner: string; readonly ttlMs: number }): void {
  if (typeof options !== "object" || options === null) {
    throw new CheckpointError({
      message: `claimWorkflow('${id}') needs options { owner, ttlMs }.`,
      workflowId: id,
      operation: "claimWorkflow",
    });
  }
  if (!isStorableText(options.owner)) {
    throw new CheckpointError({
      message:
        `claimWorkflow('${id}'): owner must be a non-empty string identifying this run ` +
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the placeholders are meant literally.
        "(for example `${hostname}:${pid}:${runId}`), without NUL characters or lone surrogates.",
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
  const at = (options as ClaimOptions).ifPausedAt;
  if (at !== undefined && !(Number.isSafeInteger(at) && at >= -1)) {
    throw new CheckpointError({
      message: `claimWorkflow('${id}'): ifPausedAt must be the workflow's lastSuperstep when it paused (an integer ≥ -1), got ${String(at)}.`,
      workflowId: id,
      operation: "claimWorkflow",
      path: "ifPausedAt",
    });
  }
}

/**
 * The error for a claim that answers a pause (`ifPausedAt`) when the workflow is no longer paused there: another
 * answer, an event, a timeout or a stop settled the pause first.
 */
export function pauseSettledError(
  id: string,
  pausedAt: number,
  current: { readonly status: string; readonly lastSuperstep: number },
): WorkflowConflictError {
  const now =
    current.status === "paused"
      ? `paused at another visit (lastSuperstep ${current.lastSuperstep})`
      : `${current.status} (lastSuperstep ${current.lastSuperstep})`;
  return new WorkflowConflictError({
    workflowId: id,
    reason: "pause-settled",
    message:
      `Workflow '${id}' is no longer paused at the pause this claim answers (lastSuperstep ${pausedAt}): it is ${now}. ` +
      "Another answer, an event, a timeout or a stop settled it first; nothing was written.",
  });
}

/**
 * Validates a fence passed to a write of workflow `id`, and returns the id of the workflow whose lease guards it
 * (`fence.workflowId`, default `id`), or `undefined` without a fence. The guard must be `id` or an ancestor of it.
 */
export function validateFence(
  id: string,
  fence: { readonly epoch: number; readonly workflowId?: string } | undefined,
  operation: string,
): string | undefined {
  if (fence === undefined) return undefined;
  if (typeof fence !== "object" || fence === null || !Number.isSafeInteger(fence.epoch)) {
    throw new CheckpointError({
      message: `${operation}('${id}'): the fence must be { epoch, workflowId? } with the integer epoch of a lease from claimWorkflow.`,
      workflowId: id,
      operation,
      path: "fence",
    });
  }
  const guard = fence.workflowId;
  if (guard === undefined || guard === id) return id;
  if (typeof guard !== "string" || guard === "" || !id.startsWith(`${guard}/`)) {
    throw new CheckpointError({
      message:
        `${operation}('${id}'): fence.workflowId ${JSON.stringify(guard)} is neither this workflow nor one of its ` +
        `ancestors. A child workflow's writes are guarded by its root's lease: pass { epoch, workflowId: rootId } ` +
        `where '${id}' starts with rootId + "/".`,
      workflowId: id,
      operation,
      path: "fence.workflowId",
    });
  }
  return guard;
}

/** Validates `renewWorkflow` arguments. */
export function validateRenewal(
  id: string,
  lease: { readonly owner: string; readonly epoch: number },
  options: { readonly ttlMs: number },
): void {
  if (typeof lease !== "object" || lease === null || typeof lease.owner !== "string" || lease.owner === "") {
    throw new CheckpointError({
      message: `renewWorkflow('${id}') needs the lease { owner, epoch } that claimWorkflow returned.`,
      workflowId: id,
      operation: "renewWorkflow",
      path: "lease",
    });
  }
  if (!Number.isSafeInteger(lease.epoch)) {
    throw new CheckpointError({
      message: `renewWorkflow('${id}'): lease.epoch must be the integer epoch claimWorkflow returned, got ${String(lease.epoch)}.`,
      workflowId: id,
      operation: "renewWorkflow",
      path: "lease.epoch",
    });
  }
  if (
    typeof options !== "object" ||
    options === null ||
    typeof options.ttlMs !== "number" ||
    !Number.isFinite(options.ttlMs) ||
    options.ttlMs <= 0
  ) {
    throw new CheckpointError({
      message: `renewWorkflow('${id}'): options.ttlMs must be a positive number of milliseconds, got ${String(options?.ttlMs)}.`,
      workflowId: id,
      operation: "renewWorkflow",
      path: "ttlMs",
    });
  }
}

/**
 * The error of a renewal whose lease is gone: `current` is the stored lease (owner `undefined` when it was
 * released or ended by a stop request).
 */
export function leaseLostError(
  id: string,
  lease: { readonly owner: string; readonly epoch: number },
  current: { readonly epoch: number; readonly owner?: string; readonly expiresAt?: Date },
): WorkflowConflictError {
  const what =
    current.owner === undefined
      ? current.epoch === lease.epoch
        ? "was released"
        : `was released and claimed again since (epoch ${current.epoch})`
      : `was claimed by owner '${current.owner}' (epoch ${current.epoch})`;
  return new WorkflowConflictError({
    workflowId: id,
    reason: "lease-lost",
    ...(current.owner === undefined ? {} : { heldBy: current.owner }),
    ...(current.expiresAt === undefined ? {} : { expiresAt: current.expiresAt }),
    message:
      `The lease of owner '${lease.owner}' (epoch ${lease.epoch}) on workflow '${id}' is lost: the workflow ${what}, ` +
      "so renewWorkflow did not extend it. Stop this run at once: anything it writes now is rejected.",
  });
}

/**
 * What `requestStop` does to a workflow, decided from its status and whether a lease is live: `"flag"` records
 * the request for the holder, `"stop"` ends the workflow (status `stopped`, lease dropped, epoch + 1), `"none"`
 * leaves a finished workflow alone.
 */
export function stopAction(status: string, leaseLive: boolean): "flag" | "stop" | "none" {
  if (leaseLive) return "flag";
  return status === "running" || status === "paused" ? "stop" : "none";
}

/** The error for a claim that met another owner's live lease. */
export function leaseHeldError(id: string, owner: string, expiresAt: Date): WorkflowConflictError {
  return new WorkflowConflictError({ workflowId: id, reason: "lease-held", heldBy: owner, expiresAt });
}

/** The error for a write whose fencing epoch is stale. */
export function staleFenceError(
  id: string,
  operation: string,
  fenceEpoch: number,
  current: { readonly epoch: number; readonly owner?: string; readonly expiresAt?: Date },
  writtenId: string = id,
): WorkflowConflictError {
  const by = current.owner === undefined ? "" : ` by owner '${current.owner}'`;
  const of = writtenId === id ? "" : ` of child workflow '${writtenId}'`;
  return new WorkflowConflictError({
    workflowId: id,
    reason: "stale-fence",
    ...(current.owner === undefined ? {} : { heldBy: current.owner }),
    ...(current.expiresAt === undefined ? {} : { expiresAt: current.expiresAt }),
    message:
      `Workflow '${id}' was claimed${by} (lease epoch ${current.epoch}) after this run claimed it ` +
      `(epoch ${fenceEpoch}), so this run's ${operation}${of} was rejected and nothing was written. ` +
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
