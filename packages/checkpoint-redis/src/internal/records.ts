/**
 * How records are stored: steps as one string each, workflows as a hash.
 *
 * An encoded step is `<written keys>\n<header JSON>\n<values><pause><error>`:
 * - written keys: one token per key of `values` (`k` + base64 of the key's UTF-16 code units), comma-separated —
 *   the only part the retention script reads, in a form Lua can split without a JSON parser;
 * - header: `[index, status, inputVersions, decision (0 = absent), childWorkflowId, truncated, startedAt, completedAt,
 *   valuesLength, pauseLength, errorLength]` (`-1` length = absent), followed by `usage, budget` (`0` = absent) when
 *   the step has either — a step without them keeps the 11-part header earlier versions wrote and read — and then
 *   `attempt` (`{ number, repeats }`, the steps of nodes with `retry`; the usage and budget parts are `0` before it
 *   when absent): 11, 13 or 14 parts;
 * - then the serializer's texts, back to back (lengths in UTF-16 code units).
 */
import type { Serializer, StepRecord, WorkflowRecord } from "@graph/checkpoint";
import type { StepPart } from "@graph/checkpoint/adapter";
import { corruptRecordError, decodeStepRecord, decodeWorkflowRecord, encodeStepTexts } from "@graph/checkpoint/adapter";
import { parseStepField } from "./keys.js";

/** What to restore a corrupt key from. */
const BACKUP = "the Redis data";

/** The retention token of one value key. */
function keyToken(key: string): string {
  return `k${Buffer.from(key, "utf16le").toString("base64")}`;
}

/** Encodes a step. Throws `CheckpointError` (with the value's path) before anything is written. */
export function encodeStep(step: StepRecord, serializer: Serializer, operation: string): string {
  const { values, pause, error, decision, usage, budget, attempt } = encodeStepTexts(step, serializer, operation);
  const header: unknown[] = [
    step.index,
    step.status,
    step.inputVersions,
    decision === undefined ? 0 : decision,
    step.childWorkflowId ?? null,
    step.truncated ? 1 : 0,
    step.startedAt.getTime(),
    step.completedAt.getTime(),
    values.length,
    pause === undefined ? -1 : pause.length,
    error === undefined ? -1 : error.length,
  ];
  if (usage !== undefined || budget !== undefined || attempt !== undefined) header.push(usage ?? 0, budget ?? 0);
  if (attempt !== undefined) header.push(attempt);
  const tokens = Object.keys(step.values).map(keyToken).join(",");
  return `${tokens}\n${JSON.stringify(header)}\n${values}${pause ?? ""}${error ?? ""}`;
}

/** The header holds the structural parts; the serializer's texts follow it. */
const HEADER_PARTS: ReadonlySet<StepPart> = new Set([
  "status",
  "inputVersions",
  "decision",
  "usage",
  "budget",
  "attempt",
]);

/** Decodes a step stored under `field`. Throws `CheckpointError` for corrupt data. */
export function decodeStep(
  workflowId: string,
  field: string,
  text: string,
  serializer: Serializer,
  operation: string,
): StepRecord {
  const { superstep, nodeName } = parseStepField(field);
  const bad = (what: string) =>
    corruptRecordError({ workflowId, field: `step ${what}`, operation, nodeName, backup: BACKUP });
  const first = text.indexOf("\n");
  const second = first < 0 ? -1 : text.indexOf("\n", first + 1);
  if (second < 0 || !Number.isSafeInteger(superstep)) throw bad("encoding");
  let header: unknown;
  try {
    header = JSON.parse(text.slice(first + 1, second));
  } catch {
    throw bad("header");
  }
  if (!Array.isArray(header) || ![11, 13, 14].includes(header.length)) throw bad("header");
  const [index, status, inputVersions, decision, child, truncated, startedAt, completedAt, vLen, pLen, eLen, ...meter] =
    header as unknown[];
  const [usage = 0, budget = 0, attempt] = meter;
  if (![index, vLen, pLen, eLen, startedAt, completedAt].every(Number.isSafeInteger)) throw bad("header");
  let at = second + 1;
  const take = (length: number): string | undefined => {
    if (length < 0) return undefined;
    const part = text.slice(at, at + length);
    at += length;
    return part;
  };
  const values = take(vLen as number) ?? "";
  const pause = take(pLen as number);
  const error = take(eLen as number);
  return decodeStepRecord(
    {
      workflowId,
      superstep,
      nodeName,
      index: index as number,
      status,
      inputVersions,
      decision: decision === 0 ? undefined : decision,
      childWorkflowId: typeof child === "string" ? child : undefined,
      truncated: truncated === 1,
      startedAt: startedAt as number,
      completedAt: completedAt as number,
      values,
      pause,
      error,
      usage: usage === 0 ? undefined : usage,
      budget: budget === 0 ? undefined : budget,
      attempt,
    },
    serializer,
    operation,
    (part) => bad(HEADER_PARTS.has(part) ? "header" : part),
  );
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

/** The hash field of each part of a workflow record. */
const FIELDS = { status: "st", pause: "pa", error: "er", wakeAt: "wa", waitingFor: "we" } as const;

/** Reads a workflow hash back into a record. Throws `CheckpointError` for corrupt data. */
export function decodeWorkflow(
  id: string,
  hash: WorkflowHash,
  serializer: Serializer,
  operation: string,
): WorkflowRecord {
  const bad = (field: string) =>
    corruptRecordError({ workflowId: id, field: `workflow field ${field}`, operation, backup: BACKUP });
  const int = (field: string): number => {
    const value = Number(hash[field]);
    if (hash[field] === undefined || !Number.isSafeInteger(value)) throw bad(field);
    return value;
  };
  const graphName = hash["gn"];
  const graphHash = hash["gh"];
  if (graphName === undefined || graphHash === undefined) throw bad("gn");
  const owner = hash["lo"];
  return decodeWorkflowRecord(
    {
      id,
      status: hash["st"],
      graphName,
      graphHash,
      parentId: hash["pid"],
      pause: hash["pa"],
      error: hash["er"],
      lastSuperstep: int("ls"),
      stepCount: int("sc"),
      lease: owner === undefined ? undefined : { owner, epoch: int("ep"), expiresAt: int("le") },
      stopRequested: hash["sr"],
      wakeAt: hash["wa"] === undefined ? undefined : Number(hash["wa"]),
      waitingEvent: hash["we"],
      waitingKey: hash["wk"],
      createdAt: int("ca"),
      updatedAt: int("ua"),
    },
    serializer,
    operation,
    (part) => bad(FIELDS[part]),
  );
}
