import { InvalidOptionError } from "@graph/runtime";
import { type RunConcurrency, type RunLimitsWire, type RunRateLimit, submitLimits } from "./runLimits.js";

/**
 * When and in which order `RemoteRunner.submit` lets workers take the run, and which run-level limits hold it:
 * - `delay` ms or `startAt` (one of them, or neither);
 * - `priority`: an integer from 1 (the most urgent) to 2,097,152, BullMQ's job priority — a worker takes the waiting
 *   run with the lowest number first;
 * - `concurrency: { key, limit }`: at most `limit` runs with this key at once across the pool; `rateLimit: { key,
 *   limit, per }`: at most `limit` started per `per`. A run over its limit waits in BullMQ's delayed set, not in a
 *   worker slot;
 * - `fairness`: the group whose runs take turns with other groups' (round-robin by start-time fair queuing on job
 *   priorities). Default: the `concurrency` key, else the `rateLimit` key; `false`: none. An explicit `priority`
 *   replaces the default fairness; `priority` with an explicit `fairness` group is refused.
 */
export type SubmitOptions = (
  | { readonly delay: number; readonly startAt?: never }
  | { readonly startAt: Date | number; readonly delay?: never }
  | { readonly delay?: never; readonly startAt?: never }
) & {
  readonly priority?: number;
  readonly concurrency?: RunConcurrency;
  readonly rateLimit?: RunRateLimit;
  readonly fairness?: string | false;
};

/** @deprecated The former name of {@link SubmitOptions}. */
export type SubmitTiming = SubmitOptions;

/** BullMQ's largest job priority. */
const MAX_PRIORITY = 2_097_152;

const OPTIONS = ["delay", "startAt", "priority", "concurrency", "rateLimit", "fairness"];

/** Where and when the job goes, checked (`InvalidOptionError`) before anything is written. */
export interface SubmitPlan {
  readonly delayMs: number;
  readonly priority: number | undefined;
  readonly limits: RunLimitsWire | undefined;
  /** The fairness group: the job's priority comes from its virtual slot. */
  readonly fairness: string | undefined;
}

export function submitPlan(when: SubmitOptions): SubmitPlan {
  const delayMs = delayOf(when);
  const priority = priorityOf(when);
  const limits = submitLimits(when as Record<string, unknown>);
  const explicit = when.fairness;
  if (explicit !== undefined && explicit !== false && (typeof explicit !== "string" || explicit === ""))
    throw new InvalidOptionError(
      `RemoteRunner.submit(): option 'fairness' must be a group name (a non-empty string) or false, got ${String(explicit)}.\n  How to fix: e.g. { fairness: "tenant-7" }, or leave it out to take turns by the concurrency key.`,
      "fairness",
    );
  if (typeof explicit === "string" && priority !== undefined)
    throw new InvalidOptionError(
      `RemoteRunner.submit(): options 'priority' and 'fairness' both set the job's BullMQ priority (got priority ${priority}, fairness ${JSON.stringify(explicit)}).\n  How to fix: leave 'fairness' out (an explicit priority goes before the fair order's turns), or leave 'priority' out.`,
      "priority",
    );
  const fairness =
    explicit === false || priority !== undefined
      ? undefined
      : (explicit ?? limits?.concurrency?.key ?? limits?.rate?.key);
  return { delayMs, priority, limits, fairness };
}

/** The job's priority (undefined: none), checked (`InvalidOptionError`). */
function priorityOf(when: SubmitOptions): number | undefined {
  const priority = when.priority;
  if (priority === undefined) return undefined;
  if (!Number.isInteger(priority) || priority < 1 || priority > MAX_PRIORITY)
    throw new InvalidOptionError(
      `RemoteRunner.submit(): option 'priority' must be an integer from 1 (most urgent) to ${MAX_PRIORITY}, got ${String(priority)}.\n  How to fix: e.g. { priority: 1 } for a run that should go before others waiting.`,
      "priority",
    );
  return priority;
}

/** The job's delay in ms, checked (`InvalidOptionError`). */
function delayOf(when: SubmitOptions): number {
  const where = "RemoteRunner.submit()";
  if (typeof when !== "object" || when === null)
    throw new InvalidOptionError(
      `${where}: the second argument must be an object of ${OPTIONS.join(", ")} (each optional).`,
      "when",
    );
  const unknown = Object.keys(when).find((k) => !OPTIONS.includes(k));
  if (unknown !== undefined)
    throw new InvalidOptionError(
      `${where}: the second argument has no option '${unknown}' (its options are ${OPTIONS.join(", ")}).`,
      unknown,
    );
  if (when.delay === undefined && when.startAt === undefined) return 0;
  if (when.delay !== undefined) {
    if (typeof when.delay !== "number" || !Number.isFinite(when.delay) || when.delay < 0)
      throw new InvalidOptionError(
        `${where}: option 'delay' must be a finite number of milliseconds ≥ 0, got ${String(when.delay)}.\n  How to fix: e.g. { delay: 60_000 } for one minute.`,
        "delay",
      );
    return when.delay;
  }
  const at = when.startAt instanceof Date ? when.startAt.getTime() : when.startAt;
  if (typeof at !== "number" || !Number.isFinite(at))
    throw new InvalidOptionError(
      `${where}: option 'startAt' must be a Date or a time in ms since the epoch, got ${String(when.startAt)}.\n  How to fix: e.g. { startAt: new Date("2026-12-24T18:00:00Z") }.`,
      "startAt",
    );
  return Math.max(0, at - Date.now());
}
