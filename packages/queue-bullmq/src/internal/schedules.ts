/**
 * Schedules on the queue: one BullMQ job scheduler per schedule (`queue.upsertJobScheduler`). BullMQ adds one
 * delayed job per occurrence, with the id `repeat:<schedule id>:<due ms>`, so an occurrence is one job whoever
 * upserts the scheduler and however many workers there are; the worker names its workflow `<id>/<ISO due time>`
 * (as `runner.schedule` does), so a redelivered job resumes the same firing.
 */
import type { Serializer } from "@graph/checkpoint";
import type { Graph } from "@graph/core";
import { InvalidOptionError } from "@graph/runtime";
import { scheduleSpec } from "@graph/runtime/worker";
import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { QueueKeys } from "./keys.js";
import type { RunJobData, WireRunOptions } from "./wire.js";

/** Options of `RemoteRunner.schedule`. */
export interface RemoteScheduleOptions {
  /** As `runner.schedule`'s `id`: letters, digits, `.`, `_`, `-`; each firing is the workflow `<id>/<ISO time>`. */
  readonly id: string;
  /** A cron pattern (five fields, or six with seconds first). */
  readonly cron: string;
  /** The IANA time zone the pattern is read in. Default `"UTC"`. */
  readonly timezone?: string;
  /** The values every firing runs with (stored in Redis beside the scheduler, not in its jobs). */
  readonly values?: Readonly<Record<string, unknown>>;
  /**
   * `"skip"` (default): an occurrence whose previous firing has not finished (running or paused) does not run;
   * `"allow"`: it runs concurrently. (`"queue"` is in-process only.)
   */
  readonly overlap?: "skip" | "allow";
}

/** A schedule of the queue, as `RemoteRunner.schedules()` lists it. */
export interface RemoteScheduleInfo {
  readonly id: string;
  readonly cron: string;
  readonly timezone: string;
  readonly graphName: string;
  readonly overlap: "skip" | "allow";
  /** The next occurrence's due time, when BullMQ has one. */
  readonly next?: Date;
}

/** A firing's job (BullMQ copies the scheduler's template into each). */
export interface ScheduleJobData {
  readonly kind: "schedule";
  readonly graphName: string;
  readonly definitionHash: string;
  readonly scheduleId: string;
  readonly cron: string;
  readonly timezone: string;
  readonly overlap: "skip" | "allow";
  readonly hasValues: boolean;
  readonly options: WireRunOptions;
}

interface Deps {
  readonly queue: Queue<RunJobData>;
  readonly redis: Redis;
  readonly keys: QueueKeys;
  readonly serializer: Serializer;
}

const WHERE = "RemoteRunner.schedule()";
const KNOWN = new Set(["id", "cron", "timezone", "values", "overlap"]);

function check(options: RemoteScheduleOptions): void {
  for (const key of Object.keys(options))
    if (!KNOWN.has(key))
      throw new InvalidOptionError(
        `${WHERE}: unknown option '${key}'.\n  How to fix: use only ${[...KNOWN].join(", ")}${key === "catchUp" || key === "paused" ? " (catch-up and pause are in-process features: BullMQ keeps its scheduler's next job)" : ""}.`,
        key,
      );
  const { overlap, values } = options;
  if (overlap !== undefined && overlap !== "skip" && overlap !== "allow")
    throw new InvalidOptionError(
      `${WHERE}: option 'overlap' must be "skip" or "allow" on the queue, got ${JSON.stringify(overlap)}.\n  How to fix: pick one, or leave it out ("skip"); "queue" needs runner.schedule() in one process.`,
      "overlap",
    );
  if (values !== undefined && (typeof values !== "object" || values === null || Array.isArray(values)))
    throw new InvalidOptionError(`${WHERE}: option 'values' must be an object of the graph's input values.`, "values");
}

/** Creates or replaces the schedule's job scheduler; its values are stored first, so its first job finds them. */
export async function upsertSchedule(
  deps: Deps,
  graph: Graph,
  options: RemoteScheduleOptions,
): Promise<RemoteScheduleInfo> {
  const spec = scheduleSpec(WHERE, options);
  check(options);
  const overlap = options.overlap ?? "skip";
  const graphName = graph.name ?? "graph";
  const data: ScheduleJobData = {
    kind: "schedule",
    graphName,
    definitionHash: graph.definitionHash,
    scheduleId: spec.id,
    cron: spec.cron,
    timezone: spec.timezone,
    overlap,
    hasValues: options.values !== undefined,
    options: {},
  };
  const valuesKey = deps.keys.scheduleValues(spec.id);
  if (options.values === undefined) await deps.redis.del(valuesKey);
  else await deps.redis.set(valuesKey, deps.serializer.serialize(options.values));
  let job: Awaited<ReturnType<Queue["upsertJobScheduler"]>>;
  try {
    job = await (deps.queue as unknown as Queue<ScheduleJobData>).upsertJobScheduler(
      spec.id,
      { pattern: spec.cron, tz: spec.timezone },
      {
        name: graphName,
        data,
        // A firing whose worker died is delivered again and resumes its workflow, as a run job does.
        opts: { removeOnComplete: true, removeOnFail: 1000, attempts: 10_000, backoff: { type: "fixed", delay: 500 } },
      },
    );
  } catch (error) {
    throw new InvalidOptionError(
      `${WHERE}: BullMQ refused the schedule '${spec.id}' (${(error as Error).message}).\n  How to fix: use a standard five- or six-field cron pattern, e.g. "*/15 * * * *".`,
      "cron",
    );
  }
  const next = job.opts.prevMillis;
  return {
    id: spec.id,
    cron: spec.cron,
    timezone: spec.timezone,
    graphName,
    overlap,
    ...(next === undefined ? {} : { next: new Date(next) }),
  };
}

/** The queue's schedules (job schedulers whose jobs are firings), next due first. */
export async function listSchedules(queue: Queue<RunJobData>): Promise<RemoteScheduleInfo[]> {
  const all = await (queue as unknown as Queue<ScheduleJobData>).getJobSchedulers(0, -1, true);
  const out: RemoteScheduleInfo[] = [];
  for (const s of all) {
    const data = s.template?.data;
    if (data?.kind !== "schedule") continue;
    out.push({
      id: data.scheduleId,
      cron: data.cron,
      timezone: data.timezone,
      graphName: data.graphName,
      overlap: data.overlap,
      ...(s.next === undefined ? {} : { next: new Date(s.next) }),
    });
  }
  return out;
}

/** Removes the scheduler (its pending occurrence job too) and the stored values. False: there was none. */
export async function removeSchedule(deps: Deps, scheduleId: string): Promise<boolean> {
  const removed = await deps.queue.removeJobScheduler(scheduleId);
  await deps.redis.del(deps.keys.scheduleValues(scheduleId), deps.keys.scheduleLast(scheduleId));
  return removed;
}
