/**
 * Due times on the queue: a workflow a worker left paused with a due time (a sleep, a timed pause) gets one BullMQ
 * delayed job for that time, whose id holds the workflow id and the due time — added once however often it is
 * asked for (a redelivered run, a retried wake). Whichever worker takes it calls `runner.wake`, which resumes the
 * workflow exactly once across processes (the store's fence); the worker's runner has no in-process timer.
 * `RemoteRunner.send` is a job too: the worker that takes it calls `runner.send` and answers on a stream.
 */
import type { Checkpointer, Serializer, WorkflowRecord } from "@graph/checkpoint";
import type { Runner, RunResult, SendResult } from "@graph/runtime";
import type { Job, Queue } from "bullmq";
import type { Redis } from "ioredis";
import { readStream, StreamWriter } from "./eventStream.js";
import type { QueueKeys } from "./keys.js";
import { errorFromWire, errorToWire, type WireError } from "./wire.js";

/** A wake-up job: resume `workflowId` for the due time `dueAt` (epoch ms). */
export interface WakeJobData {
  readonly kind: "wake";
  readonly workflowId: string;
  readonly dueAt: number;
}

/** A `RemoteRunner.send`: the payload is stored beside the job (`keys.inputs`), the answer goes to its stream. */
export interface SendJobData {
  readonly kind: "send";
  readonly event: string;
  readonly submission: string;
}

/** The stream and payload keys of a send: named by its submission, under a reserved pseudo-workflow id. */
const SEND_ID = ".send";

// BullMQ refuses `:` in custom job ids; the due time makes one job per (workflow, due time).
const wakeJobId = (workflowId: string, dueMs: number): string => `wake-${encodeURIComponent(workflowId)}-${dueMs}`;

const JOB_OPTIONS = {
  removeOnComplete: true,
  removeOnFail: 1000,
  attempts: 10_000,
  backoff: { type: "fixed" as const, delay: 500 },
};

/**
 * Adds the wake-up job of a workflow left paused with a due time (nothing when it has none). Called after every run
 * a worker ends `paused`, and after a wake that paused again.
 */
export async function scheduleWake(
  queue: Queue<unknown>,
  checkpointer: Checkpointer,
  workflowId: string,
): Promise<number | undefined> {
  const workflow = await checkpointer.getWorkflow(workflowId);
  const due = workflow?.status === "paused" ? workflow.wakeAt?.getTime() : undefined;
  if (due === undefined) return undefined;
  const data: WakeJobData = { kind: "wake", workflowId, dueAt: due };
  await queue.add("wake", data, {
    ...JOB_OPTIONS,
    jobId: wakeJobId(workflowId, due),
    delay: Math.max(0, due - Date.now()),
  });
  return due;
}

/**
 * A wake-up job on a worker: `runner.wake`, then the next due time's job if the run paused again. A job delivered
 * again because the worker running the woken workflow died finds it `running` with no live lease and no due time
 * left: it resumes it (`resume`), as a redelivered run job does.
 */
export async function runWake(
  job: Job<WakeJobData>,
  runner: Runner,
  queue: Queue<unknown>,
  checkpointer: Checkpointer,
  resume: (record: WorkflowRecord) => Promise<RunResult | undefined>,
): Promise<string> {
  const { workflowId } = job.data;
  const woken = await runner.wake(workflowId);
  if (woken.woken) {
    if (woken.result.status === "paused") await scheduleWake(queue, checkpointer, workflowId);
    return `woken ${woken.lateMs}ms late`;
  }
  // Running somewhere right now (a run that is about to pause again, or the lease of a dead worker): try later;
  // the run that holds it schedules its own next due time when it pauses.
  if (woken.reason === "busy") throw new Error(`Workflow '${workflowId}' is running: its wake-up is tried again.`);
  // Paused again for a later time (answered and paused anew, a clock ahead of ours): that time gets its own job.
  if (woken.reason === "not-due" && woken.dueAt !== undefined) await scheduleWake(queue, checkpointer, workflowId);
  if (woken.reason === "not-due" || woken.reason === "already-woken") {
    const record = await checkpointer.getWorkflow(workflowId);
    if (record?.status === "running" && job.attemptsMade + job.stalledCounter > 0) {
      if (record.lease !== undefined && record.lease.expiresAt.getTime() > Date.now())
        throw new Error(`Workflow '${workflowId}' is held by '${record.lease.owner}': its wake-up is tried again.`);
      const result = await resume(record);
      if (result?.status === "paused") await scheduleWake(queue, checkpointer, workflowId);
      return "resumed";
    }
  }
  return woken.reason;
}

/** A send job on a worker: `runner.send` with the stored payload; its answer (or error) ends the send's stream. */
export async function runSend(
  job: Job<SendJobData>,
  runner: Runner,
  deps: {
    readonly redis: Redis;
    readonly keys: QueueKeys;
    readonly serializer: Serializer;
    readonly queue: Queue<unknown>;
    readonly checkpointer: Checkpointer;
  },
): Promise<void> {
  const { event, submission } = job.data;
  const payloadKey = deps.keys.inputs(SEND_ID, submission);
  const writer = new StreamWriter(deps.redis, deps.keys.events(SEND_ID, submission));
  const stored = await deps.redis.get(payloadKey);
  try {
    const payload = stored === null ? {} : (deps.serializer.deserialize(stored) as Record<string, unknown>);
    const sent: SendResult = await runner.send(event, payload);
    // A resumed workflow that paused again with a due time needs its wake-up job, as after any run.
    for (const d of sent.delivered)
      if (d.status === "paused") await scheduleWake(deps.queue, deps.checkpointer, d.workflowId);
    writer.append("result", deps.serializer.serialize(sent));
  } catch (error) {
    writer.append("error", deps.serializer.serialize(errorToWire(error)));
  }
  await writer.flush(true);
  await deps.redis.del(payloadKey);
}

/** `RemoteRunner.send`: stores the payload, adds the send job, and reads its answer from the send's stream. */
export async function sendRemote(
  deps: {
    readonly redis: Redis;
    readonly keys: QueueKeys;
    readonly serializer: Serializer;
    readonly queue: Queue<unknown>;
  },
  reader: Redis,
  event: string,
  payload: Readonly<Record<string, unknown>>,
): Promise<SendResult> {
  const submission = crypto.randomUUID();
  await deps.redis.set(deps.keys.inputs(SEND_ID, submission), deps.serializer.serialize(payload));
  const data: SendJobData = { kind: "send", event, submission };
  await deps.queue.add("send", data, { ...JOB_OPTIONS, jobId: `send-${submission}` });
  for await (const entry of readStream(reader, deps.keys.events(SEND_ID, submission), (e) => e.kind !== "event")) {
    if (entry.kind === "result") return deps.serializer.deserialize(entry.body) as SendResult;
    if (entry.kind === "error") throw errorFromWire(deps.serializer.deserialize(entry.body) as WireError);
  }
  throw new Error(`The answer stream of send '${event}' ended without an answer.`);
}
