/**
 * Redis-specific input checks: text Redis cannot store verbatim (NUL, lone surrogates) in ids and owners. The lease
 * and fencing errors come from `@graph/checkpoint`, shared with the other adapters.
 */
import { CheckpointError, validateWorkflowId } from "@graph/checkpoint";

/** A lone UTF-16 surrogate has no UTF-8 encoding: Redis would store U+FFFD instead, and ids would not round-trip. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True for text Redis stores verbatim (non-empty, no NUL, no lone surrogate). */
export function isStorableText(value: unknown): value is string {
  return typeof value === "string" && value !== "" && !value.includes("\u0000") && !LONE_SURROGATE.test(value);
}

/** Checks an id (or node name / owner) that becomes part of a key or a field. */
export function requireStorableId(id: unknown, operation: string, what = "workflow id"): asserts id is string {
  validateWorkflowId(id, operation);
  if (LONE_SURROGATE.test(id)) {
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

/** Validates and normalises a superstep bound (`Infinity` = no bound). */
export function superstepBound(value: number | undefined, operation: string, workflowId: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || Number.isNaN(value)) {
    throw new CheckpointError({
      message: `${operation}('${workflowId}'): the superstep bound must be a number, got ${String(value)}.`,
      workflowId,
      operation,
    });
  }
  if (value === Number.POSITIVE_INFINITY) return undefined;
  return Math.floor(Math.max(value, -1e15));
}
