/**
 * How records are stored: steps as one string each, workflows as a hash.
 *
 * An encoded step is `<written keys>\n<header JSON>\n<values><pause><error>`:
 * - written keys: one token per key of `values` (`k` + base64 of the key's UTF-16 code units), comma-separated —
 *   the only part the retention script reads, in a form Lua can split without a JSON parser;
 * - header: `[index, status, inputVersions, decision (0 = absent), childWorkflowId, truncated, startedAt, completedAt,
 *   valuesLength, pauseLength, errorLength]` (`-1` length = absent);
 * - then the serializer's texts, back to back (lengths in UTF-16 code units).
 */
import type {
  Serializer,
  StepRecord,
  StepStatus,
  StoredError,
  WorkflowRecord,
  WorkflowStatus,
} from "@graph/checkpoint";
import {
  CheckpointError,
  decodeStopRequest,
  deserializeStored,
  isInputRecord,
  serializeStored,
} from "@graph/checkpoint";
import { parseStepField } from "./keys.js";

const WORKFLOW_STATUSES: readonly string[] = ["running", "completed", "paused", "stopped", "failed"];
const STEP_STATUSES: readonly string[] = ["completed", "failed", "paused", "stopped"];

function corrupt(workflowId: string, what: string, operation: string, nodeName?: string): CheckpointError {
  return new CheckpointError({
    message:
      `Stored ${what} of workflow '${workflowId}'${nodeName === undefined ? "" : ` (node '${nodeName}')`} in Redis ` +
      "is corrupt. The key was modified outside the checkpointer or written by an incompatible version; delete " +
      "the workflow or restore the data from a backup.",
    workflowId,
    operation,
    ...(nodeName === undefined ? {} : { nodeName }),
    path: what,
  });
}

/**
 * Input records keep their turn boundary where node steps keep a gate's decision (input records have no other use
 * for it), as the other adapters do: stored as the decision `["turn"]`, read back as `turnStart: true`.
 */
const TURN_MARK = "turn";

function isTurnMark(decision: StepRecord["decision"]): boolean {
  return Array.isArray(decision) && decision.length === 1 && decision[0] === TURN_MARK;
}

/** The decision stored for a step: an input record's turn boundary, else the gate's decision. */
function storedDecision(step: StepRecord): StepRecord["decision"] {
  if (!isInputRecord(step)) return step.decision;
  return step.turnStart === true || isTurnMark(step.decision) ? [TURN_MARK] : undefined;
}

/** A decoded step as the contract describes it: input records get `kind: "input"` and `turnStart`, no decision. */
function asContractRecord(step: StepRecord): StepRecord {
  if (!isInputRecord(step)) return step;
  const { decision, turnStart, kind: _kind, ...rest } = step;
  const turn = turnStart === true || isTurnMark(decision);
  return { ...rest, kind: "input", ...(turn ? { turnStart: true } : {}) };
}

/** The retention token of one value key. */
function keyToken(key: string): string {
  return `k${Buffer.from(key, "utf16le").toString("base64")}`;
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

/** Encodes a step. Throws `CheckpointError` (with the value's path) before anything is written. */
export function encodeStep(step: StepRecord, serializer: Serializer, operation: string): string {
  const where = { workflowId: step.workflowId, nodeName: step.nodeName, operation };
  const values = serializeStored(serializer, step.values, { ...where, path: "values" });
  const pause = step.pause === undefined ? "" : serializeStored(serializer, step.pause, { ...where, path: "pause" });
  const error =
    step.error === undefined
      ? ""
      : serializeStored(serializer, normalizeError(step.error), { ...where, path: "error" });
  const decision = storedDecision(step);
  const header = [
    step.index,
    step.status,
    step.inputVersions,
    decision === undefined ? 0 : decision,
    step.childWorkflowId ?? null,
    step.truncated ? 1 : 0,
    step.startedAt.getTime(),
    step.completedAt.getTime(),
    values.length,
    step.pause === undefined ? -1 : pause.length,
    step.error === undefined ? -1 : error.length,
  ];
  const tokens = Object.keys(step.values).map(keyToken).join(",");
  return `${tokens}\n${JSON.stringify(header)}\n${values}${pause}${error}`;
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

/** Decodes a step stored under `field`. Throws `CheckpointError` for corrupt data. */
export function decodeStep(
  workflowId: string,
  field: string,
  text: string,
  serializer: Serializer,
  operation: string,
): StepRecord {
  const { superstep, nodeName } = parseStepField(field);
  const bad = (what: string) => corrupt(workflowId, `step ${what}`, operation, nodeName);
  const first = text.indexOf("\n");
  const second = first < 0 ? -1 : text.indexOf("\n", first + 1);
  if (second < 0 || !Number.isSafeInteger(superstep)) throw bad("encoding");
  let header: unknown;
  try {
    header = JSON.parse(text.slice(first + 1, second));
  } catch {
    throw bad("header");
  }
  if (!Array.isArray(header) || header.length !== 11) throw bad("header");
  const [index, status, inputVersions, decision, child, truncated, startedAt, completedAt, vLen, pLen, eLen] =
    header as unknown[];
  if (!Number.isSafeInteger(index) || !STEP_STATUSES.includes(status as string)) throw bad("header");
  if (!isRecord(inputVersions) || (decision !== 0 && !isDecision(decision))) throw bad("header");
  if (![vLen, pLen, eLen, startedAt, completedAt].every(Number.isSafeInteger)) throw bad("header");
  const where = { workflowId, nodeName, operation };
  let at = second + 1;
  const take = (length: number): string | undefined => {
    if (length < 0) return undefined;
    const part = text.slice(at, at + length);
    at += length;
    return part;
  };
  const valuesText = take(vLen as number) ?? "";
  const pauseText = take(pLen as number);
  const errorText = take(eLen as number);
  const values = deserializeStored(serializer, valuesText, { ...where, path: "values" });
  if (!isRecord(values)) throw bad("values");
  const pause =
    pauseText === undefined ? undefined : deserializeStored(serializer, pauseText, { ...where, path: "pause" });
  if (pause !== undefined && !isRecord(pause)) throw bad("pause");
  const error =
    errorText === undefined ? undefined : deserializeStored(serializer, errorText, { ...where, path: "error" });
  if (error !== undefined && !isStoredError(error)) throw bad("error");
  return asContractRecord({
    workflowId,
    superstep,
    nodeName,
    index: index as number,
    status: status as StepStatus,
    inputVersions: inputVersions as Record<string, number>,
    values,
    ...(decision === 0 ? {} : { decision: decision as string | readonly string[] | null }),
    ...(typeof child === "string" ? { childWorkflowId: child } : {}),
    ...(pause === undefined ? {} : { pause: pause as NonNullable<StepRecord["pause"]> }),
    truncated: truncated === 1,
    ...(error === undefined ? {} : { error }),
    startedAt: new Date(startedAt as number),
    completedAt: new Date(completedAt as number),
  });
}

/** A workflow hash as a flat `[field, value, …]` list (script replies) or an object (HGETALL). */
export type WorkflowHash = Readonly<Record<string, string>>;

/** Turns a flat `[field, value, …]` reply into an object. */
export function hashFromPairs(pairs: unknown): WorkflowHash {
  const hash: Record<string, string> = {};
  if (Array.isArray(pairs)) {
    for (let i = 0; i + 1 < pairs.length; i += 2) hash[String(pairs[i])] = String(pairs[i + 1]);
  }
  return hash;
}

/** Reads a workflow hash back into a record. Throws `CheckpointError` for corrupt data. */
export function decodeWorkflow(
  id: string,
  hash: WorkflowHash,
  serializer: Serializer,
  operation: string,
): WorkflowRecord {
  const bad = (what: string) => () => corrupt(id, `workflow field ${what}`, operation);
  const int = (field: string): number => {
    const value = Number(hash[field]);
    if (hash[field] === undefined || !Number.isSafeInteger(value)) throw bad(field)();
    return value;
  };
  const status = hash["st"];
  if (status === undefined || !WORKFLOW_STATUSES.includes(status)) throw bad("st")();
  if (hash["gn"] === undefined || hash["gh"] === undefined) throw bad("gn")();
  const where = { workflowId: id, operation };
  const pause =
    hash["pa"] === undefined ? undefined : deserializeStored(serializer, hash["pa"], { ...where, path: "pause" });
  if (pause !== undefined && !isRecord(pause)) throw bad("pa")();
  const error =
    hash["er"] === undefined ? undefined : deserializeStored(serializer, hash["er"], { ...where, path: "error" });
  if (error !== undefined && !isStoredError(error)) throw bad("er")();
  const owner = hash["lo"];
  const stop = hash["sr"] === undefined ? undefined : decodeStopRequest(serializer, id, hash["sr"], operation);
  return {
    id,
    status: status as WorkflowStatus,
    graphName: hash["gn"],
    graphHash: hash["gh"],
    ...(hash["pid"] === undefined ? {} : { parentId: hash["pid"] }),
    ...(pause === undefined ? {} : { pause: pause as NonNullable<WorkflowRecord["pause"]> }),
    ...(error === undefined ? {} : { error }),
    lastSuperstep: int("ls"),
    stepCount: int("sc"),
    ...(owner === undefined
      ? {}
      : { lease: { workflowId: id, owner, epoch: int("ep"), expiresAt: new Date(int("le")) } }),
    ...(stop === undefined ? {} : { stopRequested: stop }),
    createdAt: new Date(int("ca")),
    updatedAt: new Date(int("ua")),
  };
}
