/**
 * Rows of the SQL store and their conversion to and from the records of the contract.
 *
 * Values (step values, pauses, errors) go through the configured `Serializer` as text; small structural
 * columns (input versions, written keys, decisions) are plain JSON. Integers come back as numbers from SQLite
 * and as strings from Postgres `bigint` columns, hence `Number(…)` everywhere.
 */
import type { Lease, StepRecord, StepStatus, StoredError, WorkflowRecord, WorkflowStatus } from "../../Checkpointer.js";
import { CheckpointError } from "../../errors.js";
import type { Serializer } from "../../Serializer.js";
import { deserializeStored, serializeStored } from "../../Serializer.js";
import { readRecord, storedDecision } from "../records.js";
import { snapshotText } from "../snapshot.js";
import { decodeStopRequest } from "../stopRequests.js";

type Int = number | string | bigint;

/** A row of the workflows table. */
export interface WorkflowRow {
  id: string;
  status: string;
  graph_name: string;
  graph_hash: string;
  parent_id: string | null;
  pause: string | null;
  error: string | null;
  last_superstep: Int;
  step_count: Int;
  lease_owner: string | null;
  lease_epoch: Int;
  lease_expires_at: Int | null;
  /** The stop request (schema version 2; `undefined` in rows read before the migration ran). */
  stop_requested?: string | null;
  created_at: Int;
  updated_at: Int;
}

/** A row of the steps table. */
export interface StepRow {
  workflow_id: string;
  superstep: Int;
  node_name: string;
  idx: Int;
  status: string;
  input_versions: string;
  value_keys: string;
  values: string;
  decision: string | null;
  child_workflow_id: string | null;
  pause: string | null;
  truncated: Int;
  error: string | null;
  started_at: Int;
  completed_at: Int;
}

/** The columns retention looks at. */
export interface StepSummaryRow {
  superstep: Int;
  node_name: string;
  idx: Int;
  value_keys: string;
}

const WORKFLOW_STATUSES: readonly string[] = ["running", "completed", "paused", "stopped", "failed"];
const STEP_STATUSES: readonly string[] = ["completed", "failed", "paused", "stopped"];

function corrupt(workflowId: string, what: string, operation: string, nodeName?: string): CheckpointError {
  return new CheckpointError({
    message:
      `Stored ${what} of workflow '${workflowId}'${nodeName === undefined ? "" : ` (node '${nodeName}')`} is corrupt. ` +
      "The row was modified outside the checkpointer or written by an incompatible version; delete the workflow " +
      "or restore the database from a backup.",
    workflowId,
    operation,
    ...(nodeName === undefined ? {} : { nodeName }),
    path: what,
  });
}

function parseJson(text: string, onError: () => CheckpointError): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw onError();
  }
}

function toNumber(value: Int, onError: () => CheckpointError): number {
  const number = Number(value);
  if (!Number.isSafeInteger(number)) throw onError();
  return number;
}

/** Serialises a step into a row. Throws `CheckpointError` (with the value path) before anything is written. */
export function encodeStep(step: StepRecord, serializer: Serializer): StepRow {
  const where = { workflowId: step.workflowId, nodeName: step.nodeName, operation: "saveStep" };
  return {
    workflow_id: step.workflowId,
    superstep: step.superstep,
    node_name: step.nodeName,
    idx: step.index,
    status: step.status,
    input_versions: JSON.stringify(step.inputVersions),
    value_keys: JSON.stringify(Object.keys(step.values)),
    values:
      snapshotText(step.values, serializer) ?? serializeStored(serializer, step.values, { ...where, path: "values" }),
    decision: storedDecision(step) === undefined ? null : JSON.stringify(storedDecision(step)),
    child_workflow_id: step.childWorkflowId ?? null,
    pause: step.pause === undefined ? null : serializeStored(serializer, step.pause, { ...where, path: "pause" }),
    truncated: step.truncated ? 1 : 0,
    error:
      step.error === undefined
        ? null
        : serializeStored(serializer, normalizeError(step.error), { ...where, path: "error" }),
    started_at: step.startedAt.getTime(),
    completed_at: step.completedAt.getTime(),
  };
}

/** Reads a step row back into a record. Throws `CheckpointError` for corrupt rows. */
export function decodeStep(row: StepRow, serializer: Serializer, operation: string): StepRecord {
  const workflowId = row.workflow_id;
  const nodeName = row.node_name;
  const bad = (what: string) => () => corrupt(workflowId, `step column ${what}`, operation, nodeName);
  const where = { workflowId, nodeName, operation };
  if (!STEP_STATUSES.includes(row.status)) throw bad("status")();
  const values = deserializeStored(serializer, row.values, { ...where, path: "values" });
  if (!isRecord(values)) throw bad("values")();
  const inputVersions = parseJson(row.input_versions, bad("input_versions"));
  if (!isRecord(inputVersions)) throw bad("input_versions")();
  const decision = row.decision === null ? undefined : parseJson(row.decision, bad("decision"));
  if (decision !== undefined && !isDecision(decision)) throw bad("decision")();
  const pause = row.pause === null ? undefined : deserializeStored(serializer, row.pause, { ...where, path: "pause" });
  if (pause !== undefined && !isRecord(pause)) throw bad("pause")();
  const error = row.error === null ? undefined : deserializeStored(serializer, row.error, { ...where, path: "error" });
  if (error !== undefined && !isStoredError(error)) throw bad("error")();
  return readRecord({
    workflowId,
    superstep: toNumber(row.superstep, bad("superstep")),
    nodeName,
    index: toNumber(row.idx, bad("idx")),
    status: row.status as StepStatus,
    inputVersions: inputVersions as Record<string, number>,
    values,
    ...(decision === undefined ? {} : { decision: decision as string | readonly string[] | null }),
    ...(row.child_workflow_id === null ? {} : { childWorkflowId: row.child_workflow_id }),
    ...(pause === undefined ? {} : { pause: pause as NonNullable<StepRecord["pause"]> }),
    truncated: Number(row.truncated) !== 0,
    ...(error === undefined ? {} : { error }),
    startedAt: new Date(toNumber(row.started_at, bad("started_at"))),
    completedAt: new Date(toNumber(row.completed_at, bad("completed_at"))),
  });
}

/** The keys a step wrote, as the `values`-shaped object retention (`compactSteps`) looks at. */
export function decodeSummary(
  row: StepSummaryRow,
  workflowId: string,
): {
  superstep: number;
  nodeName: string;
  index: number;
  values: Record<string, null>;
} {
  const bad = (what: string) => () => corrupt(workflowId, `step column ${what}`, "saveStep", row.node_name);
  const keys = parseJson(row.value_keys, bad("value_keys"));
  if (!Array.isArray(keys) || !keys.every((key) => typeof key === "string")) throw bad("value_keys")();
  const values: Record<string, null> = {};
  for (const key of keys as string[]) {
    Object.defineProperty(values, key, { value: null, enumerable: true, writable: true, configurable: true });
  }
  return {
    superstep: toNumber(row.superstep, bad("superstep")),
    nodeName: row.node_name,
    index: toNumber(row.idx, bad("idx")),
    values,
  };
}

/** Reads a workflow row back into a record. Throws `CheckpointError` for corrupt rows. */
export function decodeWorkflow(row: WorkflowRow, serializer: Serializer, operation: string): WorkflowRecord {
  const workflowId = row.id;
  const bad = (what: string) => () => corrupt(workflowId, `workflow column ${what}`, operation);
  if (!WORKFLOW_STATUSES.includes(row.status)) throw bad("status")();
  const where = { workflowId, operation };
  const pause = row.pause === null ? undefined : deserializeStored(serializer, row.pause, { ...where, path: "pause" });
  if (pause !== undefined && !isRecord(pause)) throw bad("pause")();
  const error = row.error === null ? undefined : deserializeStored(serializer, row.error, { ...where, path: "error" });
  if (error !== undefined && !isStoredError(error)) throw bad("error")();
  const lease: Lease | undefined =
    row.lease_owner === null
      ? undefined
      : {
          workflowId,
          owner: row.lease_owner,
          epoch: toNumber(row.lease_epoch, bad("lease_epoch")),
          expiresAt: new Date(toNumber(row.lease_expires_at ?? Number.NaN, bad("lease_expires_at"))),
        };
  const stop =
    row.stop_requested === null || row.stop_requested === undefined
      ? undefined
      : decodeStopRequest(serializer, workflowId, row.stop_requested, operation);
  return {
    id: workflowId,
    status: row.status as WorkflowStatus,
    graphName: row.graph_name,
    graphHash: row.graph_hash,
    ...(row.parent_id === null ? {} : { parentId: row.parent_id }),
    ...(pause === undefined ? {} : { pause: pause as NonNullable<WorkflowRecord["pause"]> }),
    ...(error === undefined ? {} : { error }),
    lastSuperstep: toNumber(row.last_superstep, bad("last_superstep")),
    stepCount: toNumber(row.step_count, bad("step_count")),
    ...(lease === undefined ? {} : { lease }),
    ...(stop === undefined ? {} : { stopRequested: stop }),
    createdAt: new Date(toNumber(row.created_at, bad("created_at"))),
    updatedAt: new Date(toNumber(row.updated_at, bad("updated_at"))),
  };
}

/** Keeps only the fields of a `StoredError`, as strings. */
export function normalizeError(error: StoredError): StoredError {
  return {
    name: String(error.name),
    message: String(error.message),
    ...(error.tag === undefined ? {} : { tag: String(error.tag) }),
    ...(error.stack === undefined ? {} : { stack: String(error.stack) }),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isDecision(value: unknown): boolean {
  return (
    value === null || typeof value === "string" || (Array.isArray(value) && value.every((v) => typeof v === "string"))
  );
}

function isStoredError(value: unknown): value is StoredError {
  return isRecord(value) && typeof value["name"] === "string" && typeof value["message"] === "string";
}
