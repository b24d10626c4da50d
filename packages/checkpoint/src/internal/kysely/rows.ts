/**
 * Rows of the SQL store and their conversion to and from the records of the contract.
 *
 * Values (step values, pauses, errors) go through the configured `Serializer` as text; small structural
 * columns (input versions, written keys, decisions) are plain JSON. Integers come back as numbers from SQLite
 * and as strings from Postgres `bigint` columns, hence `Number(…)` everywhere.
 */
import type { StepRecord, WorkflowRecord } from "../../Checkpointer.js";
import type { CheckpointError } from "../../errors.js";
import type { Serializer } from "../../Serializer.js";
import type { StepPart, WorkflowPart } from "../recordCodec.js";
import { decodeStepRecord, decodeWorkflowRecord, encodeStepTexts } from "../recordCodec.js";
import { corruptRecordError } from "../recordGuards.js";

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
  /** The due time in ms and the event wait (schema version 3; `undefined` before the migration ran). */
  wake_at?: Int | null;
  waiting_event?: string | null;
  waiting_key?: string | null;
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
  /** What the step spent and an input record's budget, as JSON (schema version 6); `null`: none. */
  usage: string | null;
  budget: string | null;
  /** The attempt of a node with `retry`, as JSON `{ number, repeats }` (schema version 7); `null`: none. */
  attempt: string | null;
}

/** The columns retention looks at. */
export interface StepSummaryRow {
  superstep: Int;
  node_name: string;
  idx: Int;
  value_keys: string;
}

/** Where a corrupt row can be restored from. */
const BACKUP = "the database";

const STEP_COLUMNS: Readonly<Record<StepPart, string>> = {
  status: "status",
  inputVersions: "input_versions",
  decision: "decision",
  values: "values",
  pause: "pause",
  error: "error",
  usage: "usage",
  budget: "budget",
  attempt: "attempt",
};

const WORKFLOW_COLUMNS: Readonly<Record<WorkflowPart, string>> = {
  status: "status",
  pause: "pause",
  error: "error",
  wakeAt: "wake_at",
  waitingFor: "waiting_event / waiting_key",
};

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
export function encodeStep(step: StepRecord, serializer: Serializer, operation: string): StepRow {
  const texts = encodeStepTexts(step, serializer, operation);
  return {
    workflow_id: step.workflowId,
    superstep: step.superstep,
    node_name: step.nodeName,
    idx: step.index,
    status: step.status,
    input_versions: JSON.stringify(step.inputVersions),
    value_keys: JSON.stringify(Object.keys(step.values)),
    values: texts.values,
    decision: texts.decision === undefined ? null : JSON.stringify(texts.decision),
    child_workflow_id: step.childWorkflowId ?? null,
    pause: texts.pause ?? null,
    truncated: step.truncated ? 1 : 0,
    error: texts.error ?? null,
    started_at: step.startedAt.getTime(),
    completed_at: step.completedAt.getTime(),
    usage: texts.usage === undefined ? null : JSON.stringify(texts.usage),
    budget: texts.budget === undefined ? null : JSON.stringify(texts.budget),
    attempt: texts.attempt === undefined ? null : JSON.stringify(texts.attempt),
  };
}

/** Reads a step row back into a record. Throws `CheckpointError` for corrupt rows. */
export function decodeStep(row: StepRow, serializer: Serializer, operation: string): StepRecord {
  const workflowId = row.workflow_id;
  const nodeName = row.node_name;
  const bad = (column: string) => () =>
    corruptRecordError({ workflowId, field: `step column ${column}`, operation, nodeName, backup: BACKUP });
  return decodeStepRecord(
    {
      workflowId,
      superstep: toNumber(row.superstep, bad("superstep")),
      nodeName,
      index: toNumber(row.idx, bad("idx")),
      status: row.status,
      inputVersions: parseJson(row.input_versions, bad("input_versions")),
      decision: row.decision === null ? undefined : parseJson(row.decision, bad("decision")),
      childWorkflowId: row.child_workflow_id ?? undefined,
      truncated: Number(row.truncated) !== 0,
      startedAt: toNumber(row.started_at, bad("started_at")),
      completedAt: toNumber(row.completed_at, bad("completed_at")),
      values: row.values,
      pause: row.pause ?? undefined,
      error: row.error ?? undefined,
      usage: row.usage == null ? undefined : parseJson(row.usage, bad("usage")),
      budget: row.budget == null ? undefined : parseJson(row.budget, bad("budget")),
      attempt: row.attempt == null ? undefined : parseJson(row.attempt, bad("attempt")),
    },
    serializer,
    operation,
    (part) => bad(STEP_COLUMNS[part])(),
  );
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
  const bad = (column: string) => () =>
    corruptRecordError({
      workflowId,
      field: `step column ${column}`,
      operation: "saveStep",
      nodeName: row.node_name,
      backup: BACKUP,
    });
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
  const bad = (column: string) => () =>
    corruptRecordError({ workflowId, field: `workflow column ${column}`, operation, backup: BACKUP });
  return decodeWorkflowRecord(
    {
      id: workflowId,
      status: row.status,
      graphName: row.graph_name,
      graphHash: row.graph_hash,
      parentId: row.parent_id ?? undefined,
      pause: row.pause ?? undefined,
      error: row.error ?? undefined,
      lastSuperstep: toNumber(row.last_superstep, bad("last_superstep")),
      stepCount: toNumber(row.step_count, bad("step_count")),
      lease:
        row.lease_owner === null
          ? undefined
          : {
              owner: row.lease_owner,
              epoch: toNumber(row.lease_epoch, bad("lease_epoch")),
              expiresAt: toNumber(row.lease_expires_at ?? Number.NaN, bad("lease_expires_at")),
            },
      stopRequested: row.stop_requested ?? undefined,
      wakeAt: row.wake_at == null ? undefined : toNumber(row.wake_at, bad("wake_at")),
      waitingEvent: row.waiting_event ?? undefined,
      waitingKey: row.waiting_key ?? undefined,
      createdAt: toNumber(row.created_at, bad("created_at")),
      updatedAt: toNumber(row.updated_at, bad("updated_at")),
    },
    serializer,
    operation,
    (part) => bad(WORKFLOW_COLUMNS[part])(),
  );
}
