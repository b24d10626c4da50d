/**
 * How every adapter stores a stop request: one text, the serializer's form of `{ info?, requestedAt }` (the time in
 * ms), so `info` may be any value the serializer supports.
 */
import type { StopRequest } from "../Checkpointer.js";
import { CheckpointError } from "../errors.js";
import type { Serializer } from "../Serializer.js";
import { deserializeStored, serializeStored } from "../Serializer.js";

/** Encodes a stop request made at `requestedAt` (ms). Throws `CheckpointError` when `info` cannot be stored. */
export function encodeStopRequest(
  serializer: Serializer,
  workflowId: string,
  info: unknown,
  requestedAt: number,
  operation: string,
): string {
  return serializeStored(serializer, info === undefined ? { at: requestedAt } : { at: requestedAt, info }, {
    workflowId,
    operation,
    path: "stopRequested",
  });
}

/** Decodes a stored stop request. Throws `CheckpointError` for corrupt data. */
export function decodeStopRequest(
  serializer: Serializer,
  workflowId: string,
  text: string,
  operation: string,
): StopRequest {
  const value = deserializeStored(serializer, text, { workflowId, operation, path: "stopRequested" }) as {
    at?: unknown;
    info?: unknown;
  };
  if (typeof value !== "object" || value === null || !Number.isSafeInteger(value.at)) {
    throw new CheckpointError({
      message:
        `Stored stop request of workflow '${workflowId}' is corrupt. It was modified outside the checkpointer or ` +
        "written by an incompatible version; clear it with updateWorkflow(id, { stopRequested: null }).",
      workflowId,
      operation,
      path: "stopRequested",
    });
  }
  return { ...("info" in value ? { info: value.info } : {}), requestedAt: new Date(value.at as number) };
}
