// What the page shows of stored workflows: the list, one workflow's history with a value diff per step, the map
// items of a mapped GraphNode, and the full state at a superstep for "edit values and fork from here".
import { type Checkpointer, INPUT_STEP, type StepRecord, type WorkflowRecord } from "@graph/checkpoint";
import { preview, previewRecord } from "../preview.js";

/**
 * A workflow's status as the page shows it: the stored one, except `dead` for a `running` workflow nobody holds
 * (its lease expired or was never taken: the process running it died). A dead workflow can be resumed or cancelled.
 */
export type ShownStatus = WorkflowRecord["status"] | "dead";

export function shownStatus(record: WorkflowRecord, runningHere: boolean, now = Date.now()): ShownStatus {
  if (record.status !== "running" || runningHere) return record.status;
  const lease = record.lease;
  return lease === undefined || new Date(lease.expiresAt).getTime() <= now ? "dead" : "running";
}

const errorText = (e: { name: string; message: string } | undefined) =>
  e === undefined ? undefined : `${e.name}: ${e.message}`;

export function summary(record: WorkflowRecord, status: ShownStatus) {
  return {
    id: record.id,
    status,
    graphName: record.graphName,
    stepCount: record.stepCount,
    updatedAt: new Date(record.updatedAt).toISOString(),
    pause:
      record.pause === undefined
        ? undefined
        : // The visit names this pause: an answer sent with it is refused once the pause was settled.
          { nodeName: record.pause.nodeName, responseKey: record.pause.responseKey, visit: record.lastSuperstep },
  };
}

const ms = (d: Date) => new Date(d).getTime();

/** One workflow: its record, every step (input records too) with what it changed, and the final values. */
export async function workflowDetail(
  checkpointer: Checkpointer,
  record: WorkflowRecord,
  status: ShownStatus,
  max: number,
) {
  const steps = await checkpointer.getSteps(record.id, { includeInputs: true });
  const children = new Map<string, "graph" | "map">();
  for (const s of steps) {
    if (s.childWorkflowId === undefined || children.has(s.childWorkflowId)) continue;
    // A nested graph has its own record; a map has one per item (`<child>/<i>`) and none of its own.
    const child = await checkpointer.getWorkflow(s.childWorkflowId);
    children.set(s.childWorkflowId, child === undefined ? "map" : "graph");
  }
  const state: Record<string, unknown> = {};
  const rows = steps.map((s) => {
    const changes: Record<string, { before?: string; after: string }> = {};
    for (const [key, value] of Object.entries(s.values)) {
      changes[key] = Object.hasOwn(state, key)
        ? { before: preview(state[key], max), after: preview(value, max) }
        : { after: preview(value, max) };
      state[key] = value;
    }
    return stepRow(s, changes, children, max);
  });
  return {
    ...summary(record, status),
    storedStatus: record.status,
    createdAt: new Date(record.createdAt).toISOString(),
    pause:
      record.pause === undefined
        ? undefined
        : {
            nodeName: record.pause.nodeName,
            responseKey: record.pause.responseKey,
            visit: record.lastSuperstep,
            value: preview(record.pause.value, max),
          },
    error: errorText(record.error),
    values: previewRecord(await checkpointer.getState(record.id), max),
    steps: rows,
  };
}

function stepRow(
  s: StepRecord,
  changes: Record<string, { before?: string; after: string }>,
  children: ReadonlyMap<string, "graph" | "map">,
  max: number,
) {
  const input = s.kind === "input" || s.nodeName === INPUT_STEP;
  return {
    superstep: s.superstep,
    index: s.index,
    kind: input ? "input" : "node",
    nodeName: s.nodeName,
    status: s.status,
    values: previewRecord(s.values, max),
    changes,
    decision: s.decision,
    error: errorText(s.error),
    child:
      s.childWorkflowId === undefined ? undefined : { id: s.childWorkflowId, kind: children.get(s.childWorkflowId) },
    truncated: s.truncated,
    durationMs: ms(s.completedAt) - ms(s.startedAt),
    startedAt: new Date(s.startedAt).toISOString(),
  };
}

/** Map items are read one record at a time; the page shows at most this many. */
const MAX_ITEMS = 1000;

/** The items of a mapped GraphNode (`<mapId>/<i>`), with counts by status: `225 stopped / 75 done`. */
export async function mapItems(checkpointer: Checkpointer, mapId: string) {
  const items: { index: number; id: string; status: string; durationMs: number; error?: string }[] = [];
  const counts: Record<string, number> = {};
  for (let i = 0; i < MAX_ITEMS; i++) {
    const record = await checkpointer.getWorkflow(`${mapId}/${i}`);
    if (record === undefined) break;
    counts[record.status] = (counts[record.status] ?? 0) + 1;
    const error = errorText(record.error);
    items.push({
      index: i,
      id: record.id,
      status: record.status,
      durationMs: ms(record.updatedAt) - ms(record.createdAt),
      ...(error === undefined ? {} : { error }),
    });
  }
  return { id: mapId, items, counts, truncated: items.length === MAX_ITEMS };
}

/** True for values JSON carries unchanged: the page may offer them for editing. */
function isPlainJson(value: unknown, depth = 0): boolean {
  if (depth > 64) return false;
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((v) => isPlainJson(v, depth + 1));
  if (typeof value !== "object") return false;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  return Object.values(value).every((v) => isPlainJson(v, depth + 1));
}

/** Largest value sent whole for editing; bigger ones are shown cut and can't be edited. */
const MAX_EDITABLE = 256 * 1024;

/** The state after `superstep`, each value as full JSON when the page can edit it (else a preview). */
export function editableState(values: Readonly<Record<string, unknown>>, max: number) {
  return Object.entries(values).map(([name, value]) => {
    const json = isPlainJson(value) ? JSON.stringify(value, null, 2) : undefined;
    return json !== undefined && json.length <= MAX_EDITABLE
      ? { name, json, editable: true }
      : { name, json: preview(value, max), editable: false };
  });
}

/** The values the workflow's first run was given (its first input record), for a rerun. */
export async function firstInputs(
  checkpointer: Checkpointer,
  id: string,
): Promise<Readonly<Record<string, unknown>> | undefined> {
  const steps = await checkpointer.getSteps(id, { includeInputs: true });
  return steps.find((s) => s.kind === "input" || s.nodeName === INPUT_STEP)?.values;
}
