/**
 * A `WorkflowUpdate` checked and serialised before anything is written, the same way on every backend: each one
 * then maps the encoded fields onto its own layout (columns, hash fields, an object).
 */
import type { EventWait, WorkflowStatus, WorkflowUpdate } from "../Checkpointer.js";
import { CheckpointError } from "../errors.js";
import type { Serializer } from "../Serializer.js";
import { serializeStored } from "../Serializer.js";
import { isWorkflowStatus, normalizeStoredError, WORKFLOW_STATUSES } from "./recordGuards.js";
import { keepsTimes, validateEventWait, validateWakeAt } from "./time.js";

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
  /** The due time in ms, or `null` to clear it. Always `null` when the update sets a terminal status. */
  readonly wakeAt?: number | null;
  /** The event wait (its two texts only), or `null` to clear it. Always `null` for a terminal status. */
  readonly waitingFor?: EventWait | null;
}

/**
 * Validates `update` (an object; a known status; a graph hash that is a string without NUL; a valid `wakeAt` Date; a
 * `waitingFor` of storable texts) and serialises its pause and error. Throws `CheckpointError` naming the field as
 * `path`; call it before touching storage.
 *
 * An update to `completed`, `failed` or `stopped` clears the due time and the event wait (`wakeAt: null`,
 * `waitingFor: null`) whatever it says about them. An update that sets either without a status must be applied by
 * the backend against the stored status: on a workflow that already has a terminal status it stores nothing
 * ({@link keepsTimes}).
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
  const times = encodeTimes(id, update, operation);
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
    ...times,
  };
}

/** The checked `wakeAt` / `waitingFor` of an update; both cleared for a terminal status. */
function encodeTimes(
  id: string,
  update: WorkflowUpdate,
  operation: string,
): Pick<EncodedWorkflowUpdate, "wakeAt" | "waitingFor"> {
  const { wakeAt, waitingFor } = update;
  const where = { operation, workflowId: id };
  const checked = {
    ...(wakeAt === undefined
      ? {}
      : { wakeAt: wakeAt === null ? null : validateWakeAt(wakeAt, { ...where, path: "wakeAt" }) }),
    ...(waitingFor === undefined
      ? {}
      : { waitingFor: waitingFor === null ? null : validateEventWait(waitingFor, { ...where, path: "waitingFor" }) }),
  };
  return update.status !== undefined && !keepsTimes(update.status) ? { wakeAt: null, waitingFor: null } : checked;
}
