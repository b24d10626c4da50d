/**
 * What the SQL store accepts as ids and bounds: text a SQL database stores as UTF-8 (no NUL, no lone surrogate),
 * checked before any statement runs.
 */
import type { NewWorkflow } from "../../Checkpointer.js";
import { CheckpointError } from "../../errors.js";
import { validateWorkflowId } from "../../state.js";

/** A lone UTF-16 surrogate cannot be encoded as UTF-8, so a SQL database would silently store U+FFFD instead. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function isStorableText(value: unknown): value is string {
  return typeof value === "string" && value !== "" && !value.includes("\u0000") && !LONE_SURROGATE.test(value);
}

export function requireStorableId(id: unknown, operation: string, what = "workflow id"): asserts id is string {
  // Node names are validated by the step checks; only the UTF-8 rule is the store's.
  if (what === "workflow id" || what === "parent id") validateWorkflowId(id, operation);
  if (typeof id === "string" && LONE_SURROGATE.test(id)) {
    throw new CheckpointError({
      message:
        `Invalid ${what} ${JSON.stringify(id)} passed to ${operation}: it contains a lone UTF-16 surrogate, which ` +
        "a SQL database cannot store as UTF-8 text. Use a well-formed string.",
      ...(what === "workflow id" ? { workflowId: id } : {}),
      operation,
    });
  }
}

/** Validates the input of `createWorkflow` / `startWorkflow`. */
export function checkNewWorkflow(workflow: NewWorkflow, operation: string): void {
  if (typeof workflow !== "object" || workflow === null) {
    throw new CheckpointError({ message: `${operation} expects { id, graphName, graphHash }.`, operation });
  }
  requireStorableId(workflow.id, operation);
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
  if (workflow.parentId !== undefined) requireStorableId(workflow.parentId, operation, "parent id");
}

/** A superstep bound of a read: `undefined` for none (or +∞), else an integer. */
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
