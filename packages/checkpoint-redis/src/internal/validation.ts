/**
 * Redis-specific input checks: text Redis cannot store verbatim (NUL, lone surrogates) in ids and owners. The lease
 * and fencing errors come from `@graph/checkpoint`, shared with the other adapters.
 */
import { CheckpointError, hasLoneSurrogate, isStorableText, validateWorkflowId } from "@graph/checkpoint";

/** Checks an id (or node name / owner) that becomes part of a key or a field. */
export function requireStorableId(id: unknown, operation: string, what = "workflow id"): asserts id is string {
  validateWorkflowId(id, operation);
  if (hasLoneSurrogate(id)) {
    throw new CheckpointError({
      message:
        `Invalid ${what} ${JSON.stringify(id)} passed to ${operation}: it contains a lone UTF-16 surrogate, which ` +
        "cannot be stored as UTF-8 text. Use a well-formed string.",
      workflowId: id,
      operation,
    });
  }
}

/** Validates `claimWorkflow` options. */
export function validateClaimOptions(id: string, options: { readonly owner: string; readonly ttlMs: number }): void {
  if (typeof options !== "object" || options === null) {
    throw new CheckpointError({
      message: `claimWorkflow('${id}') needs options { owner, ttlMs }.`,
      workflowId: id,
      operation: "claimWorkflow",
    });
  }
  if (typeof options.owner !== "string" || options.owner === "" || !isStorableText(options.owner)) {
    throw new CheckpointError({
      message:
        `claimWorkflow('${id}'): owner must be a non-empty string identifying this run ` +
        "(for example `<hostname>:<pid>:<runId>`), without NUL characters or lone surrogates.",
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
