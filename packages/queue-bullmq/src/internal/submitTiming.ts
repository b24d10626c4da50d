import { InvalidOptionError } from "@graph/runtime";

/** When `RemoteRunner.submit` lets a worker take the run: after `delay` ms, or at `startAt` (one of them). */
export type SubmitTiming =
  | { readonly delay: number; readonly startAt?: never }
  | { readonly startAt: Date | number; readonly delay?: never };

/** The job's delay in ms, checked (`InvalidOptionError`). */
export function delayOf(when: SubmitTiming): number {
  const where = "RemoteRunner.submit()";
  if (typeof when !== "object" || when === null)
    throw new InvalidOptionError(`${where}: the second argument must be { delay } or { startAt }.`, "when");
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
