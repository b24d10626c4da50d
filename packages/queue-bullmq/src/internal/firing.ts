/**
 * A worker's side of a schedule: one occurrence's job (added by BullMQ's job scheduler) runs the workflow
 * `<schedule id>/<ISO due time>`. Exactly once: BullMQ adds one job per occurrence (its id holds the due time);
 * a redelivered job (its worker died) resumes that workflow under the checkpointer's lease, and one whose firing
 * already ended runs nothing.
 */
import type { Checkpointer, Serializer } from "@graph/checkpoint";
import type { Graph } from "@graph/core";
import type { Runner } from "@graph/runtime";
import { scheduleSpec } from "@graph/runtime/worker";
import type { Job } from "bullmq";
import type { Redis } from "ioredis";
import type { QueueKeys } from "./keys.js";
import type { ScheduleJobData } from "./schedules.js";

interface FiringDeps {
  readonly runner: Runner;
  readonly checkpointer: Checkpointer;
  readonly redis: Redis;
  readonly keys: QueueKeys;
  readonly serializer: Serializer;
}

/** What became of an occurrence's job, and its workflow id. */
interface FiringOutcome {
  readonly outcome: "ran" | "ended-before" | "skipped-overlap";
  readonly workflowId: string;
}

const unfinished = (status: string | undefined): boolean => status === "running" || status === "paused";

/** The workflow id of an occurrence's job: its due time is BullMQ's `prevMillis` (the time it was delayed to). */
function firingIdOf(job: Job<ScheduleJobData>): string {
  const due = job.opts.prevMillis ?? job.timestamp + (job.opts.delay ?? 0);
  return scheduleSpec("GraphWorker", {
    id: job.data.scheduleId,
    cron: job.data.cron,
    timezone: job.data.timezone,
  }).firingId(due);
}

export async function runFiring(job: Job<ScheduleJobData>, graph: Graph, deps: FiringDeps): Promise<FiringOutcome> {
  const data = job.data;
  const workflowId = firingIdOf(job);
  const existing = await deps.checkpointer.getWorkflow(workflowId);
  if (existing !== undefined && !unfinished(existing.status)) return { outcome: "ended-before", workflowId };
  const lastKey = deps.keys.scheduleLast(data.scheduleId);
  if (existing === undefined) {
    if (data.overlap === "skip") {
      const last = await deps.redis.get(lastKey);
      if (last !== null && last !== workflowId && unfinished((await deps.checkpointer.getWorkflow(last))?.status))
        return { outcome: "skipped-overlap", workflowId };
    }
    await deps.redis.set(lastKey, workflowId);
  }
  const stored = data.hasValues ? await deps.redis.get(deps.keys.scheduleValues(data.scheduleId)) : null;
  const values = stored === null ? undefined : (deps.serializer.deserialize(stored) as Record<string, unknown>);
  // A failed node ends the firing `failed` (stored); a rejection — another worker holds the firing (a dead worker's,
  // until its lease expires), storage down — fails this attempt and BullMQ delivers the job again.
  await deps.runner.run(graph, {
    ...data.options,
    workflowId,
    recover: true,
    errorHandling: "continue",
    ...(values === undefined ? {} : { values }),
  } as never);
  return { outcome: "ran", workflowId };
}
