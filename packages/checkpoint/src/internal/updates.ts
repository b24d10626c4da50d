/**
 * A `WorkflowUpdate` checked and serialised before anything is written, the same way on every backend: each one
 * then maps the encoded fields onto its own layout (columns, hash fields, an object).
 */
import type { WorkflowStatus, WorkflowUpdate } from "../Checkpointer.js";
import { CheckpointError } from "../errors.js";
import type { Serializer } from "../Serializer.js";
import { serializeStored } from "../Serializer.js";
import { isWorkflowStatus, normalizeStoredError, WORKFLOW_STATUSES } from "./recordGuards.js";

/**
 * The changes of an update, ready to store: pause and error as serializer texts. A field is present only when the
 * update changes it; `null` clears it.
 */
export interface EncodedWorkflowUpdate {
  readonly status?: WorkflowStatus;
  readonly graphHash?: string;
  readonly pause?: string | null;
  readonly error?: string | null;
  /** `null`: clear the pending stop request. */
  readonly stopRequested?: null;
}

/**
 * Validates `update` (an object; a known status; a graph hash that is a string without NUL) and serialises its pause
 * and error. Throws `CheckpointError` naming the field as `path`; call it before touching storage.
 */
export function encodeWorkflowUpdate(
  id: string,
  update: WorkflowUpdate,
  serializer: Serializer,
  operation: string,
): EncodedWorkflowUpdate {
  if (typeof update !== "object" || update === null) {
    throw new CheckpointError({
      message: `${operation}('${id}') expects an update object.`,
      workflowId: id,
      operation,
    });
  }
  if (update.status !== undefined && !isWorkflowStatus(update.status)) {
    throw new CheckpointError({
      message: `${operation}('${id}'): status must be one of ${WORKFLOW_STATUSES.join(", ")}, got ${JSON.stringify(update.status)}.`,
      workflowId: id,
      operation,
      path: "status",
    });
  }
  if (update.graphHash !== undefined && (typeof update.graphHash !== "string" || update.graphHash.includes("\u0000"))) {
    throw new CheckpointError({
      message: `${operation}('${id}'): graphHash must be a string without NUL characters.`,
      workflowId: id,
      operation,
      path: "graphHash",
    });
  }
  const { pause, error } = update;
  return {
    ...(update.status === undefined ? {} : { status: update.status }),
    ...(update.graphHash === undefined ? {} : { graphHash: update.graphHash }),
    ...(pause === undefined
      ? {}
      : {
          pause:
            pause === null
              ? null
              : serializeStored(serializer, pause, {
                  workflowId: id,
                  ...(typeof pause.nodeName === "string" ? { nodeName: pause.nodeName } : {}),
                  operation,
                  path: "pause",
                }),
        }),
    ...(error === undefined
      ? {}
      : {
          error:
            error === null
              ? null
              : serializeStored(serializer, normalizeStoredError(error), { workflowId: id, operation, path: "error" }),
        }),
    ...(update.stopRequested === null ? { stopRequested: null } : {}),
  };
}
