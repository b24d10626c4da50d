/**
 * Records to stored parts and back. A backend keeps a step or a workflow in its own layout (columns, a hash, one
 * text), but the parts that go through the serializer, and the checks on what comes back, are the same everywhere:
 * a backend parses its own numbers and layout, then hands the parts to {@link decodeStepRecord} /
 * {@link decodeWorkflowRecord}.
 */
import type { StepAttempt, StepRecord, StoredError, UsageRecord, WorkflowRecord } from "../Checkpointer.js";
import type { CheckpointError } from "../errors.js";
import type { Serializer, StoredValueContext } from "../Serializer.js";
import { deserializeStored, serializeStored } from "../Serializer.js";
import { isStepAttempt, storedAttempt } from "./attempts.js";
import {
  isPlainRecord,
  isStepDecision,
  isStepStatus,
  isStoredError,
  isWorkflowStatus,
  normalizeStoredError,
} from "./recordGuards.js";
import { readStoredStep, storedDecision } from "./records.js";
import { snapshotText } from "./snapshot.js";
import { decodeStopRequest } from "./stopRequests.js";
import { isUsageRecord, normalizeUsage, storedUsage } from "./usage.js";

/**
 * The serialised parts of a step: its values, pause and error as serializer texts (`undefined`: absent), and the
 * decision to store (an input record's turn mark, else the gate's decision), and the step's `usage` and `budget` in
 * their canonical form (`undefined`: absent; a backend stores them as JSON, they hold only numbers). Throws
 * `CheckpointError` with the value's path before anything is written.
 */
export interface EncodedStepTexts {
  readonly values: string;
  readonly pause: string | undefined;
  readonly error: string | undefined;
  readonly decision: StepRecord["decision"];
  readonly usage: UsageRecord | undefined;
  readonly budget: UsageRecord | undefined;
  /** A node with `retry`: the attempt the step records (a backend stores it as JSON, it holds only numbers). */
  readonly attempt: StepAttempt | undefined;
}

/** Serialises the parts of `step` (values snapshotted by the runtime with this serializer are not serialised again). */
export function encodeStepTexts(step: StepRecord, serializer: Serializer, operation: string): EncodedStepTexts {
  const where = { workflowId: step.workflowId, nodeName: step.nodeName, operation };
  return {
    values:
      snapshotText(step.values, serializer) ?? serializeStored(serializer, step.values, { ...where, path: "values" }),
    pause: step.pause === undefined ? undefined : serializeStored(serializer, step.pause, { ...where, path: "pause" }),
    error:
      step.error === undefined
        ? undefined
        : serializeStored(serializer, normalizeStoredError(step.error), { ...where, path: "error" }),
    decision: storedDecision(step),
    ...storedUsage(step),
    attempt: storedAttempt(step),
  };
}

/** Reads a record's pause and error texts (either may be absent) and checks their shapes. */
function readPauseAndError(
  texts: { readonly pause: string | undefined; readonly error: string | undefined },
  serializer: Serializer,
  where: Omit<StoredValueContext, "path">,
  corrupt: (part: "pause" | "error") => CheckpointError,
): { readonly pause: Record<string, unknown> | undefined; readonly error: StoredError | undefined } {
  const read = <T>(text: string | undefined, path: "pause" | "error", fits: (value: unknown) => value is T) => {
    if (text === undefined) return undefined;
    const value = deserializeStored(serializer, text, { ...where, path });
    if (!fits(value)) throw corrupt(path);
    return value;
  };
  return { pause: read(texts.pause, "pause", isPlainRecord), error: read(texts.error, "error", isStoredError) };
}

/** A stored step as a backend read it: its numbers parsed, its serializer texts not yet read. */
export interface StoredStepParts {
  readonly workflowId: string;
  readonly superstep: number;
  readonly nodeName: string;
  readonly index: number;
  readonly status: unknown;
  readonly inputVersions: unknown;
  /** The stored decision (`undefined`: none stored). */
  readonly decision: unknown;
  readonly childWorkflowId: string | undefined;
  readonly truncated: boolean;
  readonly startedAt: number;
  readonly completedAt: number;
  readonly values: string;
  readonly pause: string | undefined;
  readonly error: string | undefined;
  /** What the step spent, as the backend parsed it (`undefined`: none stored; a store written before had none). */
  readonly usage?: unknown;
  /** An input record's run budget, as the backend parsed it (`undefined`: none stored). */
  readonly budget?: unknown;
  /** The attempt of a node with `retry`, as the backend parsed it (`undefined`: none stored). */
  readonly attempt?: unknown;
}

/** The part of a stored step that did not read back (for the backend's own name of it). */
export type StepPart =
  | "status"
  | "inputVersions"
  | "decision"
  | "values"
  | "pause"
  | "error"
  | "usage"
  | "budget"
  | "attempt";

/**
 * Reads a stored step back into the record of the contract (input records get `kind: "input"` and `turnStart`).
 * `corrupt(part)` makes the error for a part that does not fit.
 */
export function decodeStepRecord(
  parts: StoredStepParts,
  serializer: Serializer,
  operation: string,
  corrupt: (part: StepPart) => CheckpointError,
): StepRecord {
  const { workflowId, nodeName } = parts;
  if (!isStepStatus(parts.status)) throw corrupt("status");
  if (!isPlainRecord(parts.inputVersions)) throw corrupt("inputVersions");
  if (parts.decision !== undefined && !isStepDecision(parts.decision)) throw corrupt("decision");
  if (parts.usage !== undefined && !isUsageRecord(parts.usage)) throw corrupt("usage");
  if (parts.budget !== undefined && !isUsageRecord(parts.budget)) throw corrupt("budget");
  if (parts.attempt !== undefined && !isStepAttempt(parts.attempt)) throw corrupt("attempt");
  if (parts.status === "running" && parts.attempt === undefined) throw corrupt("attempt");
  const where = { workflowId, nodeName, operation };
  const values = deserializeStored(serializer, parts.values, { ...where, path: "values" });
  if (!isPlainRecord(values)) throw corrupt("values");
  const { pause, error } = readPauseAndError(parts, serializer, where, corrupt);
  return readStoredStep({
    workflowId,
    superstep: parts.superstep,
    nodeName,
    index: parts.index,
    status: parts.status,
    inputVersions: parts.inputVersions as Record<string, number>,
    values,
    ...(parts.decision === undefined ? {} : { decision: parts.decision }),
    ...(parts.childWorkflowId === undefined ? {} : { childWorkflowId: parts.childWorkflowId }),
    ...(pause === undefined ? {} : { pause: pause as NonNullable<StepRecord["pause"]> }),
    ...(parts.usage === undefined ? {} : { usage: normalizeUsage(parts.usage as UsageRecord) }),
    ...(parts.budget === undefined ? {} : { budget: normalizeUsage(parts.budget as UsageRecord) }),
    truncated: parts.truncated,
    ...(error === undefined ? {} : { error }),
    ...(parts.attempt === undefined ? {} : { attempt: storedAttempt({ attempt: parts.attempt as StepAttempt })! }),
    startedAt: new Date(parts.startedAt),
    completedAt: new Date(parts.completedAt),
  });
}

/** A stored workflow as a backend read it: its numbers parsed, its serializer texts not yet read. */
export interface StoredWorkflowParts {
  readonly id: string;
  readonly status: unknown;
  readonly graphName: string;
  readonly graphHash: string;
  readonly parentId: string | undefined;
  readonly pause: string | undefined;
  readonly error: string | undefined;
  readonly lastSuperstep: number;
  readonly stepCount: number;
  /** The lease, when an owner holds it (`expiresAt` in ms). */
  readonly lease: { readonly owner: string; readonly epoch: number; readonly expiresAt: number } | undefined;
  readonly stopRequested: string | undefined;
  /** The due time in ms (absent: none). */
  readonly wakeAt?: number | undefined;
  /** The event of a wait; stored together with `waitingKey` (one without the other is corrupt). */
  readonly waitingEvent?: string | undefined;
  readonly waitingKey?: string | undefined;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** The part of a stored workflow that did not read back. */
export type WorkflowPart = "status" | "pause" | "error" | "wakeAt" | "waitingFor";

/** Reads a stored workflow back into the record of the contract. `corrupt(part)` makes the error for a bad part. */
export function decodeWorkflowRecord(
  parts: StoredWorkflowParts,
  serializer: Serializer,
  operation: string,
  corrupt: (part: WorkflowPart) => CheckpointError,
): WorkflowRecord {
  const workflowId = parts.id;
  if (!isWorkflowStatus(parts.status)) throw corrupt("status");
  const { pause, error } = readPauseAndError(parts, serializer, { workflowId, operation }, corrupt);
  const stop =
    parts.stopRequested === undefined
      ? undefined
      : decodeStopRequest(serializer, workflowId, parts.stopRequested, operation);
  const lease = parts.lease;
  const { wakeAt, waitingEvent, waitingKey } = parts;
  if (wakeAt !== undefined && !Number.isSafeInteger(wakeAt)) throw corrupt("wakeAt");
  if ((waitingEvent === undefined) !== (waitingKey === undefined)) throw corrupt("waitingFor");
  return {
    id: workflowId,
    status: parts.status,
    graphName: parts.graphName,
    graphHash: parts.graphHash,
    ...(parts.parentId === undefined ? {} : { parentId: parts.parentId }),
    ...(pause === undefined ? {} : { pause: pause as NonNullable<WorkflowRecord["pause"]> }),
    ...(error === undefined ? {} : { error }),
    lastSuperstep: parts.lastSuperstep,
    stepCount: parts.stepCount,
    ...(lease === undefined
      ? {}
      : { lease: { workflowId, owner: lease.owner, epoch: lease.epoch, expiresAt: new Date(lease.expiresAt) } }),
    ...(stop === undefined ? {} : { stopRequested: stop }),
    ...(wakeAt === undefined ? {} : { wakeAt: new Date(wakeAt) }),
    ...(waitingEvent === undefined || waitingKey === undefined
      ? {}
      : { waitingFor: { event: waitingEvent, key: waitingKey } }),
    createdAt: new Date(parts.createdAt),
    updatedAt: new Date(parts.updatedAt),
  };
}
