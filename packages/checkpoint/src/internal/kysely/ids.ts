/**
 * What the SQL store accepts as ids and bounds: text a SQL database stores as UTF-8 (no NUL, no lone surrogate),
 * checked before any statement runs.
 */
import type { NewWorkflow } from "../../Checkpointer.js";
import { CheckpointError } from "../../errors.js";
import { hasLoneSurrogate, validateWorkflowId } from "../../state.js";

export function requireStorableId(id: unknown, operation: string, what = "workflow id"): asserts id is string {
  // Node names are validated by the step checks; only the UTF-8 rule is the store's.
  if (what === "workflow id" || what === "parent id") validateWorkflowId(id, operation);
  if (typeof id === "string" && hasLoneSurrogate(id)) {
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
