import { InvalidOptionError } from "@graph/runtime";

/**
 * When and in which order `RemoteRunner.submit` lets workers take the run: after `delay` ms or at `startAt` (one of
 * them, or neither), and with a `priority` (an integer from 1, the most urgent, to 2,097,152; BullMQ's job
 * priority: a worker takes the waiting run with the lowest number first).
 */
export type SubmitTiming = (
  | { readonly delay: number; readonly startAt?: never }
  | { readonly startAt: Date | number; readonly delay?: never }
  | { readonly delay?: never; readonly startAt?: never }
) & { readonly priority?: number };

/** BullMQ's largest job priority. */
const MAX_PRIORITY = 2_097_152;

/** The job's priority (undefined: none), checked (`InvalidOptionError`). */
export function priorityOf(when: SubmitTiming): number | undefined {
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
export function delayOf(when: SubmitTiming): number {
  const where = "RemoteRunner.submit()";
  if (typeof when !== "object" || when === null)
    throw new InvalidOptionError(
      `${where}: the second argument must be { delay }, { startAt } and/or { priority }.`,
      "when",
    );
  const unknown = Object.keys(when).find((k) => k !== "delay" && k !== "startAt" && k !== "priority");
  if (unknown !== undefined)
    throw new InvalidOptionError(
      `${where}: the second argument has no option '${unknown}' (its options are delay, startAt and priority).`,
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
