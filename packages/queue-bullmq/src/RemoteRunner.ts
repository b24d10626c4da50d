import type { Checkpointer, Serializer } from "@graph/checkpoint";
import { defaultSerializer } from "@graph/checkpoint";
import type { Graph } from "@graph/core";
import {
  type GraphEvent,
  type GraphMapOptions,
  type GraphRunner,
  InvalidOptionError,
  type MapResultOf,
  makeRunHandle,
  type ResultOf,
  type RunHandle,
  type RunOptions,
  type RunResult,
  type SendResult,
  type StartArgs,
} from "@graph/runtime";
import { FlowProducer, Queue } from "bullmq";
import type { Redis } from "ioredis";
import { rebuildError, removeAnswered } from "./internal/answers.js";
import { connect, redisUrl } from "./internal/connection.js";
import { EventQueue } from "./internal/EventQueue.js";
import { isAnswered, readStream } from "./internal/eventStream.js";
import { priorityAt, settleSlot, takeSlot } from "./internal/fairness.js";
import { jobIdOf, type QueueKeys, queueKeys } from "./internal/keys.js";
import { type ChunkJobData, chunkRanges, type GatherJobData, mapItems } from "./internal/mapJobs.js";
import { removePendingChunks } from "./internal/nodeMap.js";
import {
  listSchedules,
  type RemoteScheduleInfo,
  type RemoteScheduleOptions,
  removeSchedule,
  upsertSchedule,
} from "./internal/schedules.js";
import { nudgeStop } from "./internal/stopNudge.js";
import { requestStop as requestMapStop } from "./internal/stopSignal.js";
import { type SubmitOptions, type SubmitPlan, submitPlan } from "./internal/submitTiming.js";
import { sendRemote } from "./internal/wake.js";
import {
  decodeMapItem,
  decodeResult,
  pickWireOptions,
  type RunJobData,
  type WireError,
  type WireMapItem,
} from "./internal/wire.js";

/** Options of `RemoteRunner.map`: every runner's `map` options, and the chunk size. */
export interface RemoteMapOptions extends GraphMapOptions {
  /** Items per chunk job. Default 500. */
  readonly chunkSize?: number;
}

/** Options of a {@link RemoteRunner}. */
export interface RemoteRunnerOptions {
  /** Redis URL (`redis://host:port/db`) of the queue. Default `REDIS_URL`, else `redis://127.0.0.1:6379`. */
  readonly connection?: string | undefined;
  /** The queue's name: the same on the workers. Default `"graph"`. */
  readonly queue?: string;
  /** Key prefix: the same on the workers. Default `"graph"`. */
  readonly prefix?: string;
  /**
   * The workers' checkpointer (or one on the same storage): a submission creates the workflow in it, `stop` records
   * the durable stop request there, and its serializer encodes inputs and results. The runner owns it, as `Runner`
   * owns its own: `close()` closes it, unless `closeCheckpointer` is false.
   */
  readonly checkpointer: Checkpointer;
  /**
   * `false`: `close()` leaves the checkpointer open, for an application that shares it (with a `Runner`, another
   * `RemoteRunner`, its own reads) and closes it itself. Default true.
   */
  readonly closeCheckpointer?: boolean;
}

/**
 * Runs graphs on the {@link GraphWorker}s of a queue: a `GraphRunner`, like `Runner` — `run`, `start` (events,
 * result, `stop()`), `map`, `stop(workflowId)` and `close()`. Inputs are stored beside the job, never in it; the job carries the graph's name,
 * its `definitionHash` and the workflow id, which is also the job id (submitting one workflow twice at once runs it
 * once).
 *
 * @example
 * ```ts
 * import { RedisCheckpointer } from "@graph/checkpoint-redis";
 * import { Graph, node } from "@graph/core";
 * import { RemoteRunner } from "@graph/queue-bullmq";
 *
 * const double = node({ output: "y" }, function double({ x }: { x: number }) {
 *   return x * 2;
 * });
 * const doubler = new Graph([double], { name: "doubler" });
 * const checkpointer = new RedisCheckpointer({ url: "redis://127.0.0.1:6379" }); // the workers' store
 * const remote = new RemoteRunner({ connection: "redis://127.0.0.1:6379", checkpointer, queue: "graph" });
 * const result = await remote.run(doubler, { values: { x: 21 }, workflowId: "d-1" });
 * console.log(result.values.y);
 * await remote.close();
 * ```
 */
export class RemoteRunner implements GraphRunner {
  readonly #redis: Redis;
  readonly #queue: Queue<RunJobData>;
  readonly #keys: QueueKeys;
  readonly #serializer: Serializer;
  readonly #checkpointer: Checkpointer;
  readonly #closeCheckpointer: boolean;
  /** Submissions of this runner still being stored: a `stop` of one of them waits for it. */
  readonly #submitting = new Map<string, Promise<unknown>>();
  readonly #url: string;
  readonly #readers = new Set<Redis>();
  readonly #flows: FlowProducer;

  constructor(options: RemoteRunnerOptions) {
    const queue = options.queue ?? "graph";
    this.#url = redisUrl(options.connection);
    this.#keys = queueKeys(queue, options.prefix);
    this.#redis = connect(this.#url);
    this.#queue = new Queue<RunJobData>(queue, {
      connection: { url: this.#url, maxRetriesPerRequest: null },
      prefix: this.#keys.prefix,
    });
    this.#checkpointer = options.checkpointer;
    this.#closeCheckpointer = options.closeCheckpointer !== false;
    this.#serializer = options.checkpointer.serializer ?? defaultSerializer;
    this.#flows = new FlowProducer({
      connection: { url: this.#url, maxRetriesPerRequest: null },
      prefix: this.#keys.prefix,
    });
  }

  /** Runs a graph on a worker to completion (or pause / stop / failure). */
  run<G extends Graph, K extends PropertyKey = never, W extends string | undefined = undefined>(
    graph: G,
    ...options: StartArgs<G, K, W>
  ): Promise<ResultOf<G>>;
  run(graph: Graph, options: object = {}): Promise<RunResult> {
    return this.#start(graph, options as RunOptions).result;
  }

  /** Submits a run and returns at once with a handle: its events (replayed from the first), result and `stop()`. */
  start<G extends Graph, K extends PropertyKey = never, W extends string | undefined = undefined>(
    graph: G,
    ...options: StartArgs<G, K, W>
  ): RunHandle<ResultOf<G>>;
  start(graph: Graph, options: object = {}): RunHandle {
    return this.#start(graph, options as RunOptions);
  }

  /**
   * `start`, with the job delayed (a BullMQ delayed job) and/or prioritised: no worker takes it before `delay` ms
   * from now, or before `startAt`; with `priority`, a worker takes the waiting run with the lowest number first
   * (1 is the most urgent). `concurrency: { key, limit }` / `rateLimit: { key, limit, per }` bound the runs of a key
   * across the pool (a run over its limit waits in BullMQ's delayed set, holding no worker slot), and runs of
   * different keys take turns (`fairness`, see {@link SubmitOptions}). Options are checked now
   * (`InvalidOptionError`). The workflow is created at once (so `stop` finds it); the handle follows it as `start`'s
   * does.
   *
   * @example
   * ```ts
   * const handle = remote.submit(graph, { delay: 60_000 }, { values: { x: 1 }, workflowId: "in-a-minute" });
   * await handle.result;
   * const urgent = remote.submit(graph, { priority: 1 }, { values: { x: 2 }, workflowId: "vip-ticket" });
   * await urgent.result;
   * // At most 2 runs of tenant-7 at once on the whole pool; its backlog takes turns with other tenants'.
   * const ticket = remote.submit(graph, { concurrency: { key: "tenant-7", limit: 2 } }, { values: { x: 3 } });
   * await ticket.result;
   * ```
   */
  submit<G extends Graph, K extends PropertyKey = never, W extends string | undefined = undefined>(
    graph: G,
    when: SubmitOptions,
    ...options: StartArgs<G, K, W>
  ): RunHandle<ResultOf<G>>;
  submit(graph: Graph, when: SubmitOptions, options: object = {}): RunHandle {
    return this.#start(graph, options as RunOptions, submitPlan(when));
  }

  /**
   * Runs `graph` on the workers on a cron schedule: a BullMQ job scheduler (`upsertJobScheduler`) adds one delayed
   * job per occurrence, and the worker that takes it runs the workflow `<id>/<ISO due time>` — once, whatever the
   * number of workers, submitters calling `schedule` again, or redeliveries. Calling it again with the same `id`
   * replaces the schedule. Options are checked now (`InvalidOptionError`). See `docs/schedules.md`.
   *
   * @example
   * ```ts
   * const info = await remote.schedule(graph, { id: "nightly", cron: "0 3 * * *", timezone: "Europe/Paris" });
   * console.log(info.next); // the next 03:00 in Paris
   * ```
   */
  schedule(graph: Graph, options: RemoteScheduleOptions): Promise<RemoteScheduleInfo> {
    return upsertSchedule(this.#scheduleDeps(), graph, options);
  }

  /** The queue's schedules, the next due first. */
  schedules(): Promise<RemoteScheduleInfo[]> {
    return listSchedules(this.#queue);
  }

  /** Removes a schedule: no more occurrences (firings already running go on). False when there was none. */
  removeSchedule(id: string): Promise<boolean> {
    return removeSchedule(this.#scheduleDeps(), id);
  }

  /**
   * Delivers an event to every workflow of the workers' checkpointer paused in a `waitFor` for it whose `match`
   * values equal the payload's fields (a worker takes the job and calls `runner.send`); resolves with what it
   * delivered. An event nobody waits for is dropped.
   *
   * @example
   * ```ts
   * const sent = await remote.send("ticket.replied", { ticketId: "T-1", text: "Fixed" });
   * console.log(sent.delivered.map((d) => d.workflowId));
   * ```
   */
  async send(event: string, payload: Readonly<Record<string, unknown>>): Promise<SendResult> {
    const reader = connect(this.#url);
    this.#readers.add(reader);
    try {
      return await sendRemote(
        { ...this.#scheduleDeps(), queue: this.#queue as Queue<unknown> },
        reader,
        event,
        payload,
      );
    } finally {
      this.#readers.delete(reader);
      reader.disconnect();
    }
  }

  #scheduleDeps() {
    return { queue: this.#queue, redis: this.#redis, keys: this.#keys, serializer: this.#serializer };
  }

  #start(graph: Graph, options: RunOptions, plan?: SubmitPlan): RunHandle {
    const workflowId = options.workflowId ?? crypto.randomUUID();
    const events = new EventQueue<GraphEvent>();
    const submission = crypto.randomUUID();
    const prepared = this.#prepare(graph, options, workflowId, submission, plan);
    // A `stop()` called right after this returns must land after the submission (which clears older requests).
    const settled = prepared.catch(() => {});
    this.#submitting.set(workflowId, settled);
    void settled.then(() => {
      if (this.#submitting.get(workflowId) === settled) this.#submitting.delete(workflowId);
    });
    return makeRunHandle({
      workflowId,
      events,
      result: this.#follow(workflowId, prepared, events),
      stop: (info?: unknown) => this.stop(workflowId, info),
    });
  }

  /**
   * Runs the graph once per item of the `mapOver` inputs (zip or product) on the workers: the items are split into
   * chunk jobs of `chunkSize` (added as one flow, never one job per item); each chunk runs its items as child
   * workflows `<workflowId>/<i>` on the shared checkpointer; the results are read back in item order. A chunk whose
   * worker died runs again, skipping its finished items. `errorHandling: "raise"` (default) rejects with the first
   * failed item's error (in item order); "continue" resolves with every item's result.
   */
  async map<G extends Graph>(graph: G, options: RemoteMapOptions): Promise<MapResultOf<G>> {
    const mapId = options.workflowId ?? crypto.randomUUID();
    const mapOver = typeof options.mapOver === "string" ? [options.mapOver] : [...options.mapOver];
    const values = options.values ?? {};
    const items = mapItems(values, mapOver, options.mapMode ?? "zip");
    const ranges = chunkRanges(items.length, options.chunkSize ?? 500);
    const submission = crypto.randomUUID();
    const tx = this.#redis.multi().del(this.#keys.stop(mapId));
    ranges.forEach(([start, end], c) =>
      tx.set(
        this.#keys.mapChunk(mapId, c),
        this.#serializer.serialize(items.slice(start, end).map((item) => ({ ...values, ...item }))),
      ),
    );
    await tx.exec();
    const base = { graphName: graph.name ?? "graph", definitionHash: graph.definitionHash, mapId };
    const wireOptions = pickWireOptions({ ...options, errorHandling: "continue" });
    const queueName = this.#queue.name;
    const jobId = jobIdOf(mapId);
    const gather: GatherJobData = {
      kind: "gather",
      ...base,
      submission,
      total: items.length,
      chunks: ranges.length,
      errorHandling: options.errorHandling ?? "raise",
    };
    await this.#flows.add({
      name: "map-gather",
      queueName,
      data: gather,
      opts: { jobId, removeOnComplete: true, removeOnFail: true },
      children: ranges.map(([start, end], chunk) => ({
        name: "map-chunk",
        queueName,
        data: { kind: "chunk", ...base, chunk, start, end, options: wireOptions } satisfies ChunkJobData,
        opts: {
          jobId: `${jobId}-c${chunk}`,
          removeOnComplete: true,
          attempts: 10_000,
          backoff: { type: "fixed", delay: 500 },
        },
      })),
    });
    const reader = connect(this.#url);
    this.#readers.add(reader);
    try {
      const key = this.#keys.events(mapId, submission);
      for await (const entry of readStream(reader, key, (e) => e.kind === "result" || e.kind === "error")) {
        if (entry.kind === "error") throw rebuildError(this.#serializer.deserialize(entry.body) as WireError);
        if (entry.kind !== "result") continue;
        const map = this.#serializer.deserialize(entry.body) as { status: RunResult["status"]; results: WireMapItem[] };
        const results = map.results.map(decodeMapItem);
        const columns: Record<string, unknown[]> = {};
        for (const o of graph.outputs) columns[o] = results.map((r) => (r.values as Record<string, unknown>)[o]);
        return { status: map.status, results, values: columns } as MapResultOf<G>;
      }
      throw new Error(`The event stream of map '${mapId}' ended without a result.`);
    } finally {
      this.#readers.delete(reader);
      reader.disconnect();
    }
  }

  /**
   * Stops a run wherever it runs, through the checkpointer's durable stop request (`runner.stop` in any process does
   * the same): the worker holding it stops at once (a pub/sub nudge; at worst at its next stop poll, `stopPollMs`);
   * a run still queued, or whose worker
   * died, ends `stopped` without starting a node when a worker takes it. A map id stops the map's chunks. Resolves
   * to false when the queue has no job for the id.
   */
  async stop(workflowId: string, info?: unknown): Promise<boolean> {
    await this.#submitting.get(workflowId);
    await this.#checkpointer.requestStop(workflowId, info === undefined ? undefined : { info });
    await this.#afterStop(workflowId, info);
    return (await this.#queue.getJob(jobIdOf(workflowId))) !== undefined;
  }

  /**
   * What the queue itself does once a stop is recorded (the one place for it): the nudge that makes the holding
   * worker poll at once; the maps' stop signal, read by chunk jobs (a `remote.map` is not a workflow of the
   * checkpointer); and the removal of the pending chunk jobs of the run's distributed node maps.
   */
  async #afterStop(id: string, info: unknown): Promise<void> {
    await Promise.all([nudgeStop(this.#redis, this.#keys, id), requestMapStop(this.#redis, this.#keys, id, info)]);
    await removePendingChunks(this.#queue, id);
  }

  /**
   * Closes the queue and the connections (runs continue on their workers), then the checkpointer this runner owns
   * (see {@link RemoteRunnerOptions.closeCheckpointer}).
   */
  async close(): Promise<void> {
    for (const reader of this.#readers) reader.disconnect();
    await this.#queue.close();
    await this.#flows.close();
    await this.#redis.quit().catch(() => {});
    if (this.#closeCheckpointer) await this.#checkpointer.close();
  }

  /**
   * Creates the workflow in the checkpointer (so a stop of a queued run has a record to land on) and supersedes an
   * older stop request (a submission is an explicit resume, as `runner.run` is), stores the inputs, then adds the
   * job; resolves to the submission whose stream to read (the first one's).
   */
  #prepare(
    graph: Graph,
    options: RunOptions,
    workflowId: string,
    submission: string,
    plan: SubmitPlan | undefined,
  ): Promise<string> {
    // The worker's retries would re-apply the answer after a crash that already took it: refused rather than
    // carried without the pause check, which would make a late answer a new turn again.
    if (options.answering !== undefined)
      return Promise.reject(
        new InvalidOptionError(
          "RemoteRunner: option 'answering' is not carried to the workers (a redelivered job could not tell an answer it already took from a stale one).\n  How to fix: answer a pause with runner.run(graph, { workflowId, values, answering }) on a Runner over the same checkpointer; its claim checks the pause.",
          "answering",
        ),
      );
    const values = options.values;
    const created = this.#checkpointer
      .createWorkflow({ id: workflowId, graphName: graph.name ?? "graph", graphHash: graph.definitionHash })
      .then(({ workflow }) => {
        if (workflow.stopRequested === undefined) return undefined;
        // A live holder owns the workflow and the request is for it: a submitter never writes over it (the
        // submission then follows, or queues behind, that run). An expired lease is superseded under its epoch,
        // so a claim racing this write leaves the request alone.
        const lease = workflow.lease;
        if (lease !== undefined && lease.expiresAt.getTime() > Date.now()) return undefined;
        return lease === undefined
          ? this.#checkpointer.updateWorkflow(workflowId, { stopRequested: null })
          : this.#checkpointer.updateWorkflow(workflowId, { stopRequested: null }, { epoch: lease.epoch });
      });
    const stored =
      values === undefined
        ? undefined
        : this.#redis.set(this.#keys.inputs(workflowId, submission), this.#serializer.serialize(values));
    const fair = plan?.fairness === undefined ? undefined : takeSlot(this.#redis, this.#keys, plan.fairness);
    return Promise.all([created, stored, fair]).then(async ([, , place]) => {
      const delayMs = plan?.delayMs ?? 0;
      const priority = place === undefined ? plan?.priority : priorityAt(place.slot, place.base);
      const data: RunJobData = {
        graphName: graph.name ?? "graph",
        definitionHash: graph.definitionHash,
        workflowId,
        submission,
        hasValues: values !== undefined,
        options: pickWireOptions(options),
        ...(plan?.limits === undefined ? {} : { limits: plan.limits }),
        ...(place === undefined ? {} : { fair: { group: plan!.fairness!, slot: place.slot } }),
      };
      const jobId = jobIdOf(workflowId);
      for (let vanished = 0; ; ) {
        await this.#queue.add(data.graphName, data, {
          jobId,
          removeOnComplete: true,
          removeOnFail: true,
          attempts: 10_000,
          backoff: { type: "fixed", delay: 500 },
          ...(delayMs > 0 ? { delay: delayMs } : {}),
          ...(priority === undefined ? {} : { priority }),
        });
        const job = await this.#queue.getJob(jobId);
        // Gone already: the job that was there (a duplicate's) finished between the two calls; add ours again.
        if (job === undefined && vanished++ < 3) continue;
        const actual = (job?.data as RunJobData | undefined)?.submission ?? submission;
        if (actual === submission) {
          if (place !== undefined)
            await settleSlot(this.#redis, this.#keys, this.#queue, jobId, place.slot, place.base);
          return actual;
        }
        // An earlier submission's job that already answered (its worker has yet to complete it, or lost its lock and
        // it waits for a delivery that only sees the answer): its turn is over, ours is a new one. Reading its stream
        // would replay that turn's events and result as ours and drop our inputs; wait for it to go instead.
        if (await isAnswered(this.#redis, this.#keys.events(workflowId, actual))) {
          await removeAnswered(job!);
          continue;
        }
        // Still running: a submit of the same workflow at the same time, which runs once; follow that one.
        if (values !== undefined) await this.#redis.del(this.#keys.inputs(workflowId, submission));
        return actual;
      }
    });
  }

  async #follow(workflowId: string, prepared: Promise<string>, events: EventQueue<GraphEvent>): Promise<RunResult> {
    const submission = await prepared;
    const reader = connect(this.#url);
    this.#readers.add(reader);
    try {
      const key = this.#keys.events(workflowId, submission);
      for await (const entry of readStream(reader, key, (e) => e.kind === "result" || e.kind === "error")) {
        if (entry.kind === "event") events.push(this.#serializer.deserialize(entry.body) as GraphEvent);
        else if (entry.kind === "result") return decodeResult(this.#serializer, entry.body);
        else if (entry.kind === "error") throw rebuildError(this.#serializer.deserialize(entry.body) as WireError);
      }
      throw new Error(`The event stream of workflow '${workflowId}' ended without a result.`);
    } finally {
      this.#readers.delete(reader);
      reader.disconnect();
    }
  }
}
