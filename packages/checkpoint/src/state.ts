/**
 * Pure helpers every adapter shares: folding steps into state, retention compaction, step keys, input
 * validation and list cursors. Keeping them here means every backend computes state, versions and retention
 * identically.
 *
 * @module
 */
import type { StepRecord, StepStatus } from "./Checkpointer.js";
import type { CheckpointPolicy } from "./CheckpointPolicy.js";
import { CheckpointError } from "./errors.js";
import { attemptProblem } from "./internal/attempts.js";
import { isInputRecord } from "./internal/records.js";
import { usageProblem } from "./internal/usage.js";

/**
 * Workflow state with the version (index of the last writing step) of each value.
 *
 * @example
 * ```ts
 * const { values, versions }: FoldedState = foldSteps(steps);
 * ```
 */
export interface FoldedState {
  readonly values: Readonly<Record<string, unknown>>;
  readonly versions: Readonly<Record<string, number>>;
}

/**
 * The part of a step that folding and compaction look at.
 *
 * @example
 * ```ts
 * const summary: StepSummary = { superstep: 0, nodeName: ".input", index: 0, values: { q: "hi" } };
 * ```
 */
export type StepSummary = Pick<StepRecord, "superstep" | "nodeName" | "index" | "values">;

function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

function inIndexOrder<S extends Pick<StepRecord, "index">>(steps: readonly S[]): readonly S[] {
  for (let i = 1; i < steps.length; i++) {
    if (steps[i - 1]!.index > steps[i]!.index) return [...steps].sort((a, b) => a.index - b.index);
  }
  return steps;
}

/**
 * Folds steps into state: in `index` order, each step's `values` overwrite earlier ones; a value's version is the
 * `index` of the step that wrote it last. Input order does not matter.
 *
 * @example
 * ```ts
 * const { values, versions } = foldSteps([
 *   { index: 0, values: { q: "hi" } },
 *   { index: 1, values: { answer: "hello" } },
 * ]);
 * // values: { q: "hi", answer: "hello" }, versions: { q: 0, answer: 1 }
 * ```
 */
export function foldSteps(steps: readonly Pick<StepRecord, "index" | "values">[]): FoldedState {
  const values: Record<string, unknown> = {};
  const versions: Record<string, number> = {};
  for (const step of inIndexOrder(steps)) {
    for (const key of Object.keys(step.values)) {
      setOwn(values, key, step.values[key]);
      setOwn(versions, key, step.index);
    }
  }
  return { values, versions };
}

/**
 * The identity of a step within its workflow: `"<superstep>:<nodeName>"` (the upsert key).
 *
 * @example
 * ```ts
 * stepKey({ superstep: 3, nodeName: "embed" }); // "3:embed"
 * ```
 */
export function stepKey(step: Pick<StepRecord, "superstep" | "nodeName">): string {
  return `${step.superstep}:${step.nodeName}`;
}

/**
 * Which steps retention removes. Pass all steps of one workflow (any order); returns the ones to delete.
 *
 * - `full`: none.
 * - `latest`: a step is removed unless it is the newest step of its node (by `index`) or it is still the last
 *   writer of some value. State and versions are therefore unchanged.
 * - `windowed`: steps of the last `window` supersteps (relative to the highest superstep present) are all kept;
 *   older steps are compacted like `latest`.
 *
 * @example
 * ```ts
 * import type { Checkpointer } from "@graph/checkpoint";
 * declare const checkpointer: Checkpointer; // your adapter, reading its own rows
 * declare function deleteStepRow(workflowId: string, superstep: number, nodeName: string): Promise<void>;
 *
 * const steps = await checkpointer.getSteps("chat-1");
 * const doomed = compactSteps(steps, resolvePolicy({ retention: "latest" }));
 * for (const step of doomed) await deleteStepRow(step.workflowId, step.superstep, step.nodeName);
 * ```
 */
export function compactSteps<S extends StepSummary>(
  steps: readonly S[],
  policy: Pick<CheckpointPolicy, "retention" | "window">,
): S[] {
  if (policy.retention === "full" || steps.length === 0) return [];
  const lastWriter = new Map<string, number>();
  const newestOfNode = new Map<string, number>();
  let maxSuperstep = Number.NEGATIVE_INFINITY;
  for (const step of inIndexOrder(steps)) {
    for (const key of Object.keys(step.values)) lastWriter.set(key, step.index);
    newestOfNode.set(step.nodeName, step.index);
    if (step.superstep > maxSuperstep) maxSuperstep = step.superstep;
  }
  const firstKeptSuperstep =
    policy.retention === "windowed" ? maxSuperstep - (policy.window ?? 1) + 1 : Number.POSITIVE_INFINITY;
  return steps.filter(
    (step) =>
      step.superstep < firstKeptSuperstep &&
      newestOfNode.get(step.nodeName) !== step.index &&
      !Object.keys(step.values).some((key) => lastWriter.get(key) === step.index),
  );
}

const STEP_STATUSES: readonly StepStatus[] = ["completed", "failed", "paused", "stopped", "running"];

/** What a value is, for messages: its kind and a short preview (never throws). */
function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return `an array of ${value.length} item(s)`;
  if (typeof value === "object") {
    let keys: string[] = [];
    try {
      keys = Object.keys(value).slice(0, 5);
    } catch {
      // a hostile proxy: no preview
    }
    return `an object${keys.length === 0 ? "" : ` with keys ${keys.map((k) => `'${k}'`).join(", ")}`}`;
  }
  if (typeof value === "symbol" || typeof value === "function") return `a ${typeof value}`;
  return `${typeof value === "undefined" ? "undefined" : `a ${typeof value} (${String(value).slice(0, 40)})`}`;
}

function invalidInput(operation: string, message: string, workflowId?: string, path?: string): CheckpointError {
  return new CheckpointError({
    message,
    operation,
    ...(workflowId === undefined ? {} : { workflowId }),
    ...(path === undefined ? {} : { path }),
  });
}

/**
 * The longest workflow id every checkpointer accepts, in UTF-8 bytes. One limit for all backends, so an id that
 * works in tests on memory also works on PostgreSQL (whose index entries cannot hold ids much over 2.7 KB).
 *
 * @example
 * ```ts
 * import { MAX_WORKFLOW_ID_BYTES } from "@graph/checkpoint";
 * const fits = (id: string) => Buffer.byteLength(id, "utf8") <= MAX_WORKFLOW_ID_BYTES;
 * ```
 */
export const MAX_WORKFLOW_ID_BYTES = 1024;

/**
 * `undefined` when `id` fits {@link MAX_WORKFLOW_ID_BYTES}; otherwise the message saying it does not (the limit,
 * the actual length and the id's start).
 *
 * @example
 * ```ts
 * workflowIdTooLong("a".repeat(2000)); // "Workflow id 'aaaa…' is 2000 UTF-8 bytes long; …"
 * ```
 */
export function workflowIdTooLong(id: string): string | undefined {
  if (id.length * 3 <= MAX_WORKFLOW_ID_BYTES) return undefined;
  const bytes = Buffer.byteLength(id, "utf8");
  if (bytes <= MAX_WORKFLOW_ID_BYTES) return undefined;
  return (
    `Workflow id ${JSON.stringify(`${id.slice(0, 32)}…`)} is ${bytes} UTF-8 bytes long; the limit is ` +
    `${MAX_WORKFLOW_ID_BYTES} bytes on every checkpointer. Use a shorter id (for example a hash of the long key).`
  );
}

/**
 * Checks that an id is usable as a workflow id: a non-empty string without NUL characters (which some backends
 * cannot store), at most {@link MAX_WORKFLOW_ID_BYTES} UTF-8 bytes long.
 *
 * @throws CheckpointError naming the operation.
 * @example
 * ```ts
 * validateWorkflowId(workflow.id, "createWorkflow");
 * ```
 */
export function validateWorkflowId(id: unknown, operation: string): asserts id is string {
  if (typeof id !== "string") {
    throw invalidInput(
      operation,
      `Invalid workflow id passed to ${operation}: expected a string, got ${describeValue(id)}. ` +
        "Pass the id string the workflow was created with (for example `lease.workflowId` or `record.id`, not the " +
        "lease or record object).",
      undefined,
      "workflowId",
    );
  }
  if (id === "" || id.includes("\u0000")) {
    throw invalidInput(
      operation,
      `Invalid workflow id ${JSON.stringify(id)} passed to ${operation}: ` +
        "a workflow id must be a non-empty string without NUL characters.",
    );
  }
  const tooLong = workflowIdTooLong(id);
  if (tooLong !== undefined) throw invalidInput(operation, `${tooLong} (in ${operation})`, undefined, "workflowId");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isValidDate(value: unknown): value is Date {
  return value instanceof Date && !Number.isNaN(value.getTime());
}

/**
 * Checks the shape of a step before it is written (malformed input must produce a clear error, never a
 * half-written row).
 *
 * @throws CheckpointError naming the workflow, node and the offending field as `path`.
 * @example
 * ```ts
 * validateStepRecord(step); // throws CheckpointError { path: "superstep" } for superstep: 1.5
 * ```
 */
export function validateStepRecord(step: StepRecord, operation = "saveStep"): void {
  if (!isRecord(step)) throw invalidInput(operation, `${operation} expects a StepRecord object, got ${String(step)}.`);
  validateWorkflowId(step.workflowId, operation);
  const workflowId = step.workflowId;
  const bad = (path: string, expected: string): CheckpointError =>
    invalidInput(
      operation,
      `Invalid step for workflow '${workflowId}'${typeof step.nodeName === "string" ? ` (node '${step.nodeName}')` : ""}: ` +
        `${path} must be ${expected}. This is a bug in the code that built the step record.`,
      workflowId,
      path,
    );
  if (typeof step.nodeName !== "string" || step.nodeName === "" || step.nodeName.includes("\u0000")) {
    throw bad("nodeName", "a non-empty string without NUL characters");
  }
  if (!Number.isSafeInteger(step.superstep)) throw bad("superstep", "an integer");
  if (!Number.isSafeInteger(step.index) || step.index < 0) throw bad("index", "a non-negative integer");
  if (!STEP_STATUSES.includes(step.status)) throw bad("status", `one of ${STEP_STATUSES.join(", ")}`);
  if (!isRecord(step.values)) throw bad("values", "a plain object of output values");
  if (!isRecord(step.inputVersions)) throw bad("inputVersions", "an object of input versions");
  for (const [key, version] of Object.entries(step.inputVersions)) {
    if (typeof version !== "number" || !Number.isFinite(version)) throw bad(`inputVersions.${key}`, "a number");
  }
  if (typeof step.truncated !== "boolean") throw bad("truncated", "a boolean");
  if (!isValidDate(step.startedAt)) throw bad("startedAt", "a valid Date");
  if (!isValidDate(step.completedAt)) throw bad("completedAt", "a valid Date");
  if (step.childWorkflowId !== undefined && typeof step.childWorkflowId !== "string") {
    throw bad("childWorkflowId", "a string");
  }
  validateUsageFields(step, operation);
  const wrongAttempt = attemptProblem(step);
  if (wrongAttempt !== undefined) throw bad(wrongAttempt.path, `valid: it ${wrongAttempt.problem}`);
}

/** `usage` and `budget`: amounts a run spends, each a finite number ≥ 0; a budget only on an input record. */
function validateUsageFields(step: StepRecord, operation: string): void {
  const where = `Invalid step for workflow '${step.workflowId}' (node '${step.nodeName}')`;
  for (const field of ["usage", "budget"] as const) {
    const value = step[field];
    if (value === undefined) continue;
    const wrong = usageProblem(value, field);
    if (wrong !== undefined) {
      throw invalidInput(
        operation,
        `${where}: ${wrong.path} ${wrong.problem}. ${field} holds only tokens, costUsd, calls and wallMs, each a ` +
          `finite number ≥ 0 (leave a field out when it was not measured${field === "budget" ? " or is not limited" : ""}); ` +
          `fix the code that built the step record (${field === "usage" ? "the amounts passed to ctx.usage" : "the run's budget option"}).`,
        step.workflowId,
        wrong.path,
      );
    }
  }
  if (step.budget !== undefined && !isInputRecord(step)) {
    throw invalidInput(
      operation,
      `${where}: budget is only stored on input records (kind "input", node '.input'), not on a node step. ` +
        "Put the run's budget on the run's input record, and what the node spent in usage.",
      step.workflowId,
      "budget",
    );
  }
}

/**
 * A position in the `(createdAt, id)` order of workflows.
 *
 * @example
 * ```ts
 * const position: WorkflowPosition = { createdAt: wf.createdAt, id: wf.id };
 * ```
 */
export interface WorkflowPosition {
  readonly createdAt: Date;
  readonly id: string;
}

/**
 * Encodes a list cursor (opaque to callers): the position of the last workflow of a page.
 *
 * @example
 * ```ts
 * const nextCursor = encodeWorkflowCursor(page[page.length - 1]!);
 * ```
 */
export function encodeWorkflowCursor(position: WorkflowPosition): string {
  return Buffer.from(JSON.stringify([position.createdAt.getTime(), position.id]), "utf8").toString("base64url");
}

/**
 * Decodes a cursor made by {@link encodeWorkflowCursor}.
 *
 * @throws CheckpointError for a malformed cursor.
 * @example
 * ```ts
 * const after = options.cursor === undefined ? undefined : decodeWorkflowCursor(options.cursor);
 * ```
 */
export function decodeWorkflowCursor(cursor: string): WorkflowPosition {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (Array.isArray(parsed) && parsed.length === 2 && Number.isFinite(parsed[0]) && typeof parsed[1] === "string") {
      return { createdAt: new Date(parsed[0] as number), id: parsed[1] };
    }
  } catch {
    // fall through to the error below
  }
  throw new CheckpointError({
    message:
      `Invalid listWorkflows cursor ${JSON.stringify(cursor)}: pass the nextCursor of a previous page unchanged, ` +
      "or omit cursor to start from the first page.",
    operation: "listWorkflows",
    path: "cursor",
  });
}

/**
 * Compares two workflows in list order: `createdAt`, then `id` (by UTF-16 code units, like `<`).
 *
 * @example
 * ```ts
 * workflows.sort(compareWorkflowPosition);
 * ```
 */
export function compareWorkflowPosition(a: WorkflowPosition, b: WorkflowPosition): number {
  const byTime = a.createdAt.getTime() - b.createdAt.getTime();
  if (byTime !== 0) return byTime;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * Validates a `listWorkflows` limit and applies the default (100).
 *
 * @throws CheckpointError unless the limit is a positive integer.
 * @example
 * ```ts
 * const limit = resolveListLimit(options.limit); // 100 when omitted
 * ```
 */
export function resolveListLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_LIST_LIMIT;
  if (!Number.isSafeInteger(limit) || limit <= 0) {
    throw new CheckpointError({
      message: `Invalid listWorkflows limit ${String(limit)}: it must be a positive integer (default ${DEFAULT_LIST_LIMIT}).`,
      operation: "listWorkflows",
      path: "limit",
    });
  }
  return limit;
}

/**
 * The page size of `listWorkflows` when no `limit` is given.
 *
 * @example
 * ```ts
 * const page = await cp.listWorkflows(); // at most DEFAULT_LIST_LIMIT workflows
 * ```
 */
export const DEFAULT_LIST_LIMIT = 100;

/** A lone UTF-16 surrogate has no UTF-8 encoding: a store would keep U+FFFD instead, and ids would not round-trip. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True for text a UTF-8 store keeps verbatim: non-empty, no NUL, no lone surrogate. */
export function isStorableText(value: unknown): value is string {
  return typeof value === "string" && value !== "" && !value.includes("\u0000") && !LONE_SURROGATE.test(value);
}

/** True when `value` holds a lone UTF-16 surrogate (text no UTF-8 store can keep as given). */
export function hasLoneSurrogate(value: string): boolean {
  return LONE_SURROGATE.test(value);
}

/**
 * Validates and normalises a superstep bound of a read (`getSteps`' `throughSuperstep`, `getCheckpoint`'s
 * `superstep`): `undefined` or `Infinity` for no bound, else an integer.
 */
export function superstepBound(value: number | undefined, operation: string, workflowId: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || Number.isNaN(value)) {
    throw new CheckpointError({
      message: `${operation}('${workflowId}'): the superstep bound must be a number, got ${String(value)}.`,
      workflowId,
      operation,
    });
  }
  if (value === Number.POSITIVE_INFINITY) return undefined;
  return Math.floor(Math.max(value, -1e15));
}
