import { Cron } from "croner";
import { InvalidOptionError } from "../errors.js";

/**
 * A checked schedule pattern: the occurrences of `cron` read in `timezone` (by croner), and the workflow id of each
 * firing. Shared by the in-process schedules and the queue packages' job schedulers, so both name a firing alike.
 */
export interface CronSpec {
  readonly id: string;
  readonly cron: string;
  readonly timezone: string;
  /** The first occurrence at or after `ms` (undefined: the pattern has no more). */
  nextAtOrAfter(ms: number): number | undefined;
  /** Up to `count` occurrences strictly before `ms`, the most recent first. */
  previousBefore(ms: number, count: number): number[];
  /** `<id>/<ISO time of the occurrence>`. */
  firingId(dueMs: number): string;
}

const MAX_ID = 100;
// Only characters that are safe in a workflow id, a child id (`/` separates levels), a Redis key and a BullMQ job id
// (`:` is BullMQ's key separator).
const ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

const describe = (value: unknown): string =>
  typeof value === "string" ? JSON.stringify(value) : value === null ? "null" : typeof value;

/**
 * Checks a schedule's `id`, `cron` and `timezone` at call time (`InvalidOptionError` naming the option and how to
 * fix it). `where` names the call in messages (`runner.schedule()`).
 *
 * @example
 * ```ts
 * import { scheduleSpec } from "@graph/runtime/worker";
 *
 * const spec = scheduleSpec("queue.schedule()", { id: "nightly", cron: "0 3 * * *", timezone: "Europe/Paris" });
 * spec.firingId(Date.parse("2026-03-29T01:00:00Z")); // "nightly/2026-03-29T01:00:00.000Z"
 * ```
 */
export function checkCronSpec(where: string, options: unknown): CronSpec {
  if (typeof options !== "object" || options === null)
    throw new InvalidOptionError(
      `${where}: options must be an object ({ id, cron, timezone?, values?, overlap? }), got ${describe(options)}.\n  How to fix: pass { id: "nightly", cron: "0 3 * * *" }.`,
      "options",
    );
  const { id, cron, timezone } = options as { id?: unknown; cron?: unknown; timezone?: unknown };
  if (typeof id !== "string" || id.length === 0)
    throw new InvalidOptionError(
      `${where}: option 'id' must be a non-empty string, got ${describe(id)}.\n  How to fix: name the schedule, e.g. id: "nightly-report".`,
      "id",
    );
  if (id.length > MAX_ID || !ID.test(id))
    throw new InvalidOptionError(
      `${where}: option 'id' ${JSON.stringify(id)} can't name a schedule: each firing is the workflow '<id>/<ISO time>', so the id may only have letters, digits, '.', '_' and '-' (no '/', ':' or spaces), must start with a letter or digit and have at most ${MAX_ID} characters.\n  How to fix: e.g. id: ${JSON.stringify(suggest(id))}.`,
      "id",
    );
  const tz = timezone === undefined ? "UTC" : timezone;
  if (typeof tz !== "string" || !isTimeZone(tz))
    throw new InvalidOptionError(
      `${where}: option 'timezone' ${describe(timezone)} is not a known IANA time zone.\n  How to fix: pass a name like "Europe/Paris", "America/New_York" or "UTC" (see Intl.supportedValuesOf("timeZone")).`,
      "timezone",
    );
  if (typeof cron !== "string" || cron.trim().length === 0)
    throw new InvalidOptionError(
      `${where}: option 'cron' must be a cron pattern string, got ${describe(cron)}.\n  How to fix: e.g. cron: "*/15 * * * *" (every 15 minutes) or "0 3 * * *" (03:00 every day).`,
      "cron",
    );
  let pattern: Cron;
  try {
    pattern = new Cron(cron, { timezone: tz, paused: true });
  } catch (error) {
    throw new InvalidOptionError(
      `${where}: option 'cron' ${JSON.stringify(cron)} is not a valid cron pattern (${(error as Error).message}).\n  How to fix: use five fields "minute hour day-of-month month day-of-week" (or six, seconds first), e.g. "*/15 * * * *".`,
      "cron",
    );
  }
  return {
    id,
    cron,
    timezone: tz,
    // croner works in whole seconds and returns occurrences strictly after its reference.
    nextAtOrAfter: (ms) => pattern.nextRun(new Date(Math.ceil(ms / 1000) * 1000 - 1))?.getTime(),
    // croner may include an occurrence in the reference's own second: over-ask by one and drop it.
    previousBefore: (ms, count) =>
      pattern
        .previousRuns(count + 1, new Date(ms))
        .map((d) => d.getTime())
        .filter((at) => at < ms)
        .slice(0, count),
    firingId: (dueMs) => `${id}/${new Date(dueMs).toISOString()}`,
  };
}

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

function suggest(id: string): string {
  const cleaned = id
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/^[^A-Za-z0-9]+/, "")
    .slice(0, MAX_ID);
  return cleaned.length > 0 ? cleaned : "my-schedule";
}
