import { type Duration, isGraph, parseDuration, toEpochMs } from "@graph/core";
import type { Clock } from "../Clock.js";
import { InvalidOptionError } from "../errors.js";

/** The furthest a delayed start may be: 10 years (further is almost surely a unit mistake). */
const MAX_AHEAD_MS = 10 * 365 * 86_400_000;

/**
 * The start time of a delayed start (`startAt` or `delay` of a run), in epoch ms, or undefined for a run that starts
 * now. Throws an {@link InvalidOptionError} naming the option for anything else: both given, an invalid date, a bad
 * duration, no checkpointer to keep it in, or a time more than 10 years ahead.
 */
export function delayedStart(
  options: { readonly startAt?: unknown; readonly delay?: unknown } | undefined,
  method: string,
  clock: Clock,
  hasCheckpointer: boolean,
): number | undefined {
  const startAt = options?.startAt;
  const delay = options?.delay;
  if (startAt === undefined && delay === undefined) return undefined;
  const where = `runner.${method}()`;
  if (startAt !== undefined && delay !== undefined)
    throw new InvalidOptionError(
      `${where}: give either 'startAt' (a time) or 'delay' (a duration), not both.\n  How to fix: keep one of them.`,
      "startAt",
    );
  const option = startAt !== undefined ? "startAt" : "delay";
  if (!hasCheckpointer)
    throw new InvalidOptionError(
      `${where}: '${option}' needs a checkpointer: a delayed start is stored (created paused with its start time) and started by a runner's scheduler.\n  How to fix: new Runner({ checkpointer: new MemoryCheckpointer() }) (or SQLite, PostgreSQL, Redis).`,
      option,
    );
  const now = clock.now();
  let at: number | undefined;
  if (startAt !== undefined) {
    at = toEpochMs(startAt);
    if (at === undefined)
      throw new InvalidOptionError(
        `${where}: option 'startAt' must be a valid time, got ${startAt instanceof Date ? "an invalid Date" : (JSON.stringify(startAt) ?? String(startAt))}.\n  How to fix: pass a Date, an ISO 8601 string ("2026-01-01T09:00:00Z") or epoch milliseconds.`,
        "startAt",
      );
  } else {
    try {
      at = now + parseDuration(delay as Duration, "'delay' option");
    } catch (error) {
      throw new InvalidOptionError(`${where}: ${(error as Error).message}`, "delay");
    }
  }
  if (at - now > MAX_AHEAD_MS)
    throw new InvalidOptionError(
      `${where}: option '${option}' is ${new Date(at).toISOString()}, more than 10 years ahead: probably a unit mistake (seconds where milliseconds were meant?).\n  How to fix: check the value; for something that repeats, use a schedule.`,
      option,
    );
  return at;
}

/** The runner's time options: `clock`, `graphs`, `scheduler` and `duePollIntervalMs`. */
export function checkTimeOptions(options: {
  readonly clock?: unknown;
  readonly graphs?: unknown;
  readonly scheduler?: unknown;
  readonly duePollIntervalMs?: unknown;
}): void {
  const where = "new Runner()";
  const clock = options.clock as { now?: unknown; setTimer?: unknown } | undefined;
  if (clock !== undefined && (typeof clock?.now !== "function" || typeof clock.setTimer !== "function"))
    throw new InvalidOptionError(
      `${where}: option 'clock' must be a Clock ({ now(), setTimer(at, fire) }).\n  How to fix: pass systemClock or testClock() from @graph/runtime, or leave it out.`,
      "clock",
    );
  const graphs = options.graphs;
  if (graphs !== undefined && (!Array.isArray(graphs) || graphs.some((g) => !isGraph(g))))
    throw new InvalidOptionError(
      `${where}: option 'graphs' must be an array of graphs (new Graph([...])).\n  How to fix: graphs: [orderGraph, supportGraph].`,
      "graphs",
    );
  if (options.scheduler !== undefined && typeof options.scheduler !== "boolean")
    throw new InvalidOptionError(`${where}: option 'scheduler' must be true or false.`, "scheduler");
  const poll = options.duePollIntervalMs;
  if (poll !== undefined && !(typeof poll === "number" && Number.isInteger(poll) && poll >= 10 && poll <= 3_600_000))
    throw new InvalidOptionError(
      `${where}: option 'duePollIntervalMs' must be an integer of milliseconds from 10 to 3600000, got ${typeof poll === "number" ? poll : JSON.stringify(poll)}.\n  How to fix: leave it out (1000 ms, or 5000 ms with a store that pushes due times), or pass e.g. duePollIntervalMs: 2000.`,
      "duePollIntervalMs",
    );
}

/** `runner.map` runs its items now: a delayed start of a batch is not a thing (start each item with `start`). */
export function refuseDelayedMap(options: { readonly startAt?: unknown; readonly delay?: unknown }): void {
  const option = options.startAt !== undefined ? "startAt" : options.delay !== undefined ? "delay" : undefined;
  if (option === undefined) return;
  throw new InvalidOptionError(
    `runner.map(): option '${option}' is not supported: map runs its items now.\n  How to fix: start each item later with runner.start(graph, { values, workflowId, ${option} }).`,
    option,
  );
}
