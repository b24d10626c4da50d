/**
 * The in-memory checkpointer's storage: workflows as mutable objects holding serialised texts, so a stored value is
 * a copy, and the steps of a write are serialised (and so checked) before any of them is stored. Every write is
 * synchronous, which makes each operation atomic: checks first, then changes that cannot fail.
 */
import type { EventWait, Fence, Lease, StepRecord, WorkflowRecord, WorkflowStatus } from "../Checkpointer.js";
import type { CheckpointPolicy } from "../CheckpointPolicy.js";
import type { Serializer } from "../Serializer.js";
import { deserializeStored, serializeStored } from "../Serializer.js";
import { compactSteps, stepKey } from "../state.js";
import { storedAttempt } from "./attempts.js";
import { staleFenceError, unknownWorkflowError } from "./leases.js";
import { decodeWorkflowRecord } from "./recordCodec.js";
import { corruptRecordError, normalizeStoredError } from "./recordGuards.js";
import { readStoredStep, storedDecision } from "./records.js";
import { keepsTimes } from "./time.js";
import type { EncodedWorkflowUpdate } from "./updates.js";
import { storedUsage } from "./usage.js";

/** One stored step: its key, its index, the keys it wrote (what retention looks at) and the record as text. */
export interface StoredStep {
  readonly superstep: number;
  readonly nodeName: string;
  readonly index: number;
  readonly values: Readonly<Record<string, null>>;
  readonly text: string;
}

export interface StoredLease {
  readonly owner: string;
  readonly epoch: number;
  readonly expiresAt: number;
}

export interface StoredWorkflow {
  readonly id: string;
  readonly graphName: string;
  graphHash: string;
  readonly parentId: string | undefined;
  status: WorkflowStatus;
  pauseText: string | undefined;
  errorText: string | undefined;
  stopText: string | undefined;
  lastSuperstep: number;
  /** Epoch of the latest successful claim (0 = never claimed); survives release so old fences stay stale. */
  epoch: number;
  lease: StoredLease | undefined;
  /** Due time in ms; only ever set while the status is `paused` or `running`. */
  wakeAt: number | undefined;
  waitingFor: EventWait | undefined;
  readonly createdAt: number;
  updatedAt: number;
  readonly steps: Map<string, StoredStep>;
}

/** Keeps only the fields of the contract, so stray properties never reach storage. */
function contractFields(step: StepRecord): StepRecord {
  const decision = storedDecision(step);
  const { usage, budget } = storedUsage(step);
  const attempt = storedAttempt(step);
  return {
    workflowId: step.workflowId,
    superstep: step.superstep,
    nodeName: step.nodeName,
    index: step.index,
    status: step.status,
    inputVersions: step.inputVersions,
    values: step.values,
    ...(decision === undefined ? {} : { decision }),
    ...(step.childWorkflowId === undefined ? {} : { childWorkflowId: step.childWorkflowId }),
    ...(step.pause === undefined ? {} : { pause: step.pause }),
    ...(usage === undefined ? {} : { usage }),
    ...(budget === undefined ? {} : { budget }),
    truncated: step.truncated,
    ...(step.error === undefined ? {} : { error: normalizeStoredError(step.error) }),
    ...(attempt === undefined ? {} : { attempt }),
    startedAt: step.startedAt,
    completedAt: step.completedAt,
  };
}

/** Serialises a (validated) step. Throws `CheckpointError` with the value's path; nothing is stored yet. */
export function encodeStep(step: StepRecord, serializer: Serializer, operation: string): StoredStep {
  const text = serializeStored(serializer, contractFields(step), {
    workflowId: step.workflowId,
    nodeName: step.nodeName,
    operation,
  });
  const keys: Record<string, null> = {};
  for (const key of Object.keys(step.values)) {
    Object.defineProperty(keys, key, { value: null, enumerable: true, writable: true, configurable: true });
  }
  return { superstep: step.superstep, nodeName: step.nodeName, index: step.index, values: keys, text };
}

/** Upserts encoded steps in order, applying retention after each, and updates the counters. */
export function writeSteps(workflow: StoredWorkflow, steps: readonly StoredStep[], policy: CheckpointPolicy): void {
  for (const step of steps) {
    workflow.steps.set(stepKey(step), step);
    if (policy.retention !== "full") {
      for (const doomed of compactSteps([...workflow.steps.values()], policy)) workflow.steps.delete(stepKey(doomed));
    }
    workflow.lastSuperstep = Math.max(workflow.lastSuperstep, step.superstep);
  }
  workflow.updatedAt = Date.now();
}

/** Applies an encoded update; a workflow left in a terminal status keeps no due time and no wait. */
export function applyUpdate(workflow: StoredWorkflow, update: EncodedWorkflowUpdate): void {
  if (update.status !== undefined) workflow.status = update.status;
  if (update.graphHash !== undefined) workflow.graphHash = update.graphHash;
  if (update.pause !== undefined) workflow.pauseText = update.pause ?? undefined;
  if (update.error !== undefined) workflow.errorText = update.error ?? undefined;
  if (update.stopRequested === null) workflow.stopText = undefined;
  if (update.wakeAt !== undefined) workflow.wakeAt = update.wakeAt ?? undefined;
  if (update.waitingFor !== undefined) workflow.waitingFor = update.waitingFor ?? undefined;
  clearTimesIfTerminal(workflow);
  workflow.updatedAt = Date.now();
}

/** Drops the due time and the wait of a workflow whose status no longer keeps them. */
export function clearTimesIfTerminal(workflow: StoredWorkflow): void {
  if (keepsTimes(workflow.status)) return;
  workflow.wakeAt = undefined;
  workflow.waitingFor = undefined;
}

/**
 * Checks a fence against the lease epoch of the guarding workflow (`workflow` itself, or the ancestor the fence
 * names, looked up with `find`), throwing the conflict error for a stale one.
 */
export function checkFence(
  workflow: StoredWorkflow,
  fence: Fence | undefined,
  operation: string,
  find: (id: string) => StoredWorkflow | undefined,
  written = workflow.id,
): void {
  if (fence === undefined) return;
  const guardId = fence.workflowId ?? workflow.id;
  const guard = guardId === workflow.id ? workflow : find(guardId);
  if (guard === undefined) throw unknownWorkflowError(guardId, operation);
  if (fence.epoch === guard.epoch) return;
  const lease = guard.lease;
  throw staleFenceError(
    guard.id,
    operation,
    fence.epoch,
    {
      epoch: guard.epoch,
      ...(lease === undefined ? {} : { owner: lease.owner, expiresAt: new Date(lease.expiresAt) }),
    },
    written,
  );
}

export function toLease(workflowId: string, lease: StoredLease): Lease {
  return { workflowId, owner: lease.owner, epoch: lease.epoch, expiresAt: new Date(lease.expiresAt) };
}

/** The record of a stored workflow. */
export function toRecord(workflow: StoredWorkflow, serializer: Serializer, operation: string): WorkflowRecord {
  return decodeWorkflowRecord(
    {
      id: workflow.id,
      status: workflow.status,
      graphName: workflow.graphName,
      graphHash: workflow.graphHash,
      parentId: workflow.parentId,
      pause: workflow.pauseText,
      error: workflow.errorText,
      lastSuperstep: workflow.lastSuperstep,
      stepCount: workflow.steps.size,
      lease: workflow.lease,
      stopRequested: workflow.stopText,
      wakeAt: workflow.wakeAt,
      waitingEvent: workflow.waitingFor?.event,
      waitingKey: workflow.waitingFor?.key,
      createdAt: workflow.createdAt,
      updatedAt: workflow.updatedAt,
    },
    serializer,
    operation,
    (part) => corruptRecordError({ workflowId: workflow.id, field: `workflow ${part}`, operation }),
  );
}

/** The stored steps through `throughSuperstep`, in index order, read back as records. */
export function readSteps(
  workflow: StoredWorkflow,
  throughSuperstep: number | undefined,
  serializer: Serializer,
  operation: string,
): StepRecord[] {
  return [...workflow.steps.values()]
    .filter((step) => throughSuperstep === undefined || step.superstep <= throughSuperstep)
    .sort((a, b) => a.index - b.index)
    .map((step) =>
      readStoredStep(
        deserializeStored(serializer, step.text, {
          workflowId: workflow.id,
          nodeName: step.nodeName,
          operation,
        }) as StepRecord,
      ),
    );
}
