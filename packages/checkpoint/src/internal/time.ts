/**
 * Due times and event waits, the same on every backend: the checks of a `wakeAt` and of an `EventWait`, the options
 * of `listDue` / `listWaiting`, which statuses keep them, and the order of a due list. A backend stores `wakeAt` as
 * ms and the wait as two texts, and answers the three queries from an index (a column index, a sorted set).
 */
import type { EventWait, WorkflowStatus } from "../Checkpointer.js";
import { CheckpointError } from "../errors.js";
import { DEFAULT_LIST_LIMIT, isStorableText } from "../state.js";

/**
 * The longest event name a wait may have, in UTF-8 bytes. Event names are short identifiers (`ticket.replied`);
 * the bound keeps every index entry (event, key, time, id) under PostgreSQL's B-tree row limit.
 */
export const MAX_EVENT_NAME_BYTES = 256;

/**
 * The longest match key a wait may have, in UTF-8 bytes. The key is the canonical form of the values a `waitFor`
 * matches on (ids, not documents); see {@link MAX_EVENT_NAME_BYTES} for why it is bounded.
 */
export const MAX_EVENT_KEY_BYTES = 1024;

/**
 * Whether a workflow in `status` keeps its due time and event wait. A `completed`, `failed` or `stopped` workflow
 * is never due nor waiting: every store clears both when a workflow reaches one of these statuses (an update, a
 * finish, a stop request), whatever the update says about them.
 */
export function keepsTimes(status: WorkflowStatus): boolean {
  return status === "paused" || status === "running";
}

/** Where a checked value came from, for the error. */
interface TimeWhere {
  readonly operation: string;
  readonly workflowId?: string;
  readonly path: string;
}

function timeError(where: TimeWhere, message: string): CheckpointError {
  return new CheckpointError({
    message,
    operation: where.operation,
    ...(where.workflowId === undefined ? {} : { workflowId: where.workflowId }),
    path: where.path,
  });
}

function subject(where: TimeWhere): string {
  return where.workflowId === undefined ? where.operation : `${where.operation}('${where.workflowId}')`;
}

/**
 * Checks a due time (`NewWorkflow.wakeAt`, `WorkflowUpdate.wakeAt`, `listDue`'s `before`) and returns it in ms.
 * Throws `CheckpointError` naming the field unless it is a valid `Date`.
 */
export function validateWakeAt(value: unknown, where: TimeWhere): number {
  const ms = value instanceof Date ? value.getTime() : Number.NaN;
  if (Number.isFinite(ms)) return ms;
  throw timeError(
    where,
    `${subject(where)}: ${where.path} must be a valid Date, got ${value instanceof Date ? "an invalid Date" : describe(value)}.`,
  );
}

/**
 * Checks an event wait (`WorkflowUpdate.waitingFor`, the argument of `listWaiting`) and returns its two texts only.
 * Both must be non-empty text a store keeps verbatim (no NUL, no lone surrogate), at most
 * {@link MAX_EVENT_NAME_BYTES} / {@link MAX_EVENT_KEY_BYTES} bytes.
 */
export function validateEventWait(value: unknown, where: TimeWhere): EventWait {
  if (typeof value !== "object" || value === null) {
    throw timeError(where, `${subject(where)}: ${where.path} must be { event, key }, got ${describe(value)}.`);
  }
  const { event, key } = value as { event?: unknown; key?: unknown };
  const check = (text: unknown, field: "event" | "key", max: number): string => {
    if (isStorableText(text) && Buffer.byteLength(text, "utf8") <= max) return text;
    throw timeError(
      { ...where, path: `${where.path}.${field}` },
      `${subject(where)}: ${where.path}.${field} must be a non-empty string of at most ${max} UTF-8 bytes, without ` +
        `NUL characters or lone surrogates, got ${describe(text)}.`,
    );
  };
  return { event: check(event, "event", MAX_EVENT_NAME_BYTES), key: check(key, "key", MAX_EVENT_KEY_BYTES) };
}

/** Checks a `limit` of `listDue` / `listWaiting` and applies the default (100). */
function resolveTimeLimit(limit: unknown, operation: string): number {
  if (limit === undefined) return DEFAULT_LIST_LIMIT;
  if (typeof limit === "number" && Number.isSafeInteger(limit) && limit > 0) return limit;
  throw new CheckpointError({
    message: `Invalid ${operation} limit ${describe(limit)}: it must be a positive integer (default ${DEFAULT_LIST_LIMIT}).`,
    operation,
    path: "limit",
  });
}

/**
 * Checks the options of `listDue` and returns `before` in ms and the limit (default 100).
 *
 * @example
 * ```ts
 * const { before, limit } = resolveDueOptions({ before: new Date() }); // limit 100
 * ```
 */
export function resolveDueOptions(options: unknown): { readonly before: number; readonly limit: number } {
  if (typeof options !== "object" || options === null) {
    throw new CheckpointError({ message: "listDue expects { before: Date, limit? }.", operation: "listDue" });
  }
  const { before, limit } = options as { before?: unknown; limit?: unknown };
  return {
    before: validateWakeAt(before, { operation: "listDue", path: "before" }),
    limit: resolveTimeLimit(limit, "listDue"),
  };
}

/**
 * Checks the arguments of `listWaiting` and returns the wait (its two texts) and the limit (default 100).
 *
 * @example
 * ```ts
 * const { wait, limit } = resolveWaitingOptions({ event: "ticket.replied", key: '{"ticketId":"T-1"}' }, undefined);
 * ```
 */
export function resolveWaitingOptions(
  wait: unknown,
  options: unknown,
): { readonly wait: EventWait; readonly limit: number } {
  if (options !== undefined && (typeof options !== "object" || options === null)) {
    throw new CheckpointError({ message: "listWaiting expects options { limit? }.", operation: "listWaiting" });
  }
  return {
    wait: validateEventWait(wait, { operation: "listWaiting", path: "wait" }),
    limit: resolveTimeLimit((options as { limit?: unknown } | undefined)?.limit, "listWaiting"),
  };
}

/**
 * The order of `listDue`: earliest `wakeAt` first, ties by id (UTF-16 order, which is bytewise order for the ids
 * of the conformance kit).
 */
export function compareDue(
  a: { readonly id: string; readonly wakeAt: number },
  b: { readonly id: string; readonly wakeAt: number },
): number {
  if (a.wakeAt !== b.wakeAt) return a.wakeAt - b.wakeAt;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function describe(value: unknown): string {
  if (value === undefined) return "undefined";
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === "number" || typeof value === "boolean" || value === null) return String(value);
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
