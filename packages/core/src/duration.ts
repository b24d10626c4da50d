import { GraphConfigError } from "./errors.js";
import { describeValue } from "./internal/describe.js";

/**
 * A length of time: a number of milliseconds, or a string of one or more `<number><unit>` parts with the units
 * `ms`, `s`, `m`, `h`, `d` and `w` (`"90s"`, `"4h"`, `"7d"`, `"1h30m"`, `"1.5h"`).
 *
 * @example
 * ```ts
 * const pickup: Duration = "1m";
 * const reply: Duration = 4 * 3_600_000;
 * ```
 */
export type Duration = number | `${number}${"ms" | "s" | "m" | "h" | "d" | "w"}${string}`;

const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/**
 * The longest duration accepted: 10 years. Anything longer is almost certainly a unit mistake (seconds given as
 * milliseconds times a thousand); a wait that long is better modelled as a schedule.
 */
const MAX_DURATION_MS = 10 * 365 * 86_400_000;

const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/gy;

/**
 * Reads a {@link Duration} as milliseconds, or throws a {@link GraphConfigError} that names `where` (for example
 * `"sleep 'cool-off' duration"`) and says how to write one. Zero is allowed; negative, NaN, infinite, unparseable
 * and longer-than-10-years durations are not.
 *
 * @example
 * ```ts
 * import { parseDuration } from "@graph/core";
 * parseDuration("1h30m", "my timeout"); // 5_400_000
 * parseDuration(250, "my timeout"); // 250
 * ```
 */
export function parseDuration(value: unknown, where: string): number {
  const howTo = `How to fix: use a number of milliseconds (90000) or a string like "90s", "15m", "4h", "7d" or "1h30m" (units ms, s, m, h, d, w).`;
  let ms: number;
  if (typeof value === "number") ms = value;
  else if (typeof value === "string") {
    const text = value.trim();
    let total = 0;
    let parts = 0;
    PART.lastIndex = 0;
    let match: RegExpExecArray | null;
    while (PART.lastIndex < text.length && (match = PART.exec(text)) !== null) {
      total += Number(match[1]) * UNIT_MS[match[2]!]!;
      parts++;
    }
    if (parts === 0 || PART.lastIndex !== text.length) {
      throw new GraphConfigError(`The ${where} is ${JSON.stringify(value)}, which is not a duration.\n  ${howTo}`, {
        where,
      });
    }
    ms = total;
  } else {
    throw new GraphConfigError(`The ${where} must be a duration, got ${describeValue(value)}.\n  ${howTo}`, { where });
  }
  if (!Number.isFinite(ms) || ms < 0) {
    throw new GraphConfigError(
      `The ${where} is ${describeValue(value)}: a duration must be a finite number of milliseconds ≥ 0.\n  ${howTo}`,
      { where },
    );
  }
  if (ms > MAX_DURATION_MS) {
    throw new GraphConfigError(
      `The ${where} is ${describeValue(value)} (${Math.round(ms / 86_400_000)} days), more than the 10-year limit: probably a unit mistake.\n  How to fix: check the unit ("4h", not 4 * 3600 * 1000 * 1000); for something that repeats or is that far away, use a schedule.`,
      { where },
    );
  }
  return Math.round(ms);
}

/**
 * Reads a point in time (a `Date`, an ISO 8601 string or epoch milliseconds) as epoch milliseconds; undefined when
 * it is none of them (an invalid Date, a string `Date.parse` refuses, NaN).
 *
 * @example
 * ```ts
 * import { toEpochMs } from "@graph/core";
 * toEpochMs("2026-01-01T00:00:00Z"); // 1767225600000
 * ```
 */
export function toEpochMs(value: unknown): number | undefined {
  let ms: number;
  if (value instanceof Date) ms = value.getTime();
  else if (typeof value === "number") ms = value;
  else if (typeof value === "string" && value.trim() !== "") ms = Date.parse(value);
  else return undefined;
  return Number.isFinite(ms) ? ms : undefined;
}
