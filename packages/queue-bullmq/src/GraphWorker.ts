import type { Serializer } from "@graph/checkpoint";
import { defaultSerializer, isWorkflowConflictError } from "@graph/checkpoint";
import type { Graph } from "@graph/core";
import type { RunHandle } from "@graph/runtime";
import { isLeaseLostError, Runner } from "@graph/runtime";
import { storePermitSlots } from "@graph/runtime/worker";
import { DelayedError, type Job, Queue, UnrecoverableError, Worker } from "bullmq";
import type { Redis } from "ioredis";
import { GraphVersionError, UnknownGraphError } from "./errors.js";
import type { GraphWorkerOptions } from "./GraphWorkerOptions.js";
import { connect, redisUrl } from "./internal/connection.js";
import { isAnswered, StreamWriter } from "./internal/eventStream.js";
import { raiseFloor } from "./internal/fairness.js";
import { runFiring } from "./internal/firing.js";
import { type FrameChunkJobData, runFrameChunk } from "./internal/frameChunks.js";
import { type QueueKeys, queueKeys } from "./internal/keys.js";
import type { ChunkJobData, GatherJobData } from "./internal/mapJobs.js";
import { gatherResults, runChunk } from "./internal/mapWorker.js";
import {
  isParked,
  type NodeChunkJobData,
  type NodeMapDeps,
  nodeMapDeps,
  parkedSignal,
  parkJob,
  runNodeChunk,
  subgraphsByHash,
} from "./internal/nodeMap.js";
import { poolDispatcher } from "./internal/poolDispatcher.js";
import { checkWorkerRunLimits, RunGate, RunKeyError, type RunPass } from "./internal/runLimits.js";
import type { ScheduleJobData } from "./internal/schedules.js";
import { listenForStops } from "./internal/stopNudge.js";
import { clearStop } from "./internal/stopSignal.js";
import { runSend, runWake, type SendJobData, scheduleWake, type WakeJobData } from "./internal/wake.js";
import { encodeEvent, encodeMapResult, encodeResult, errorToWire, type RunJobData } from "./internal/wire.js";
import { RedisPermitSignal } from "./RedisPermitSignal.js";

export type { GraphWorkerOptions };

type AnyJobData =
  | RunJobData
  | ChunkJobData
  | GatherJobData
  | NodeChunkJobData
  | FrameChunkJobData
  | ScheduleJobData
  | WakeJobData
  | SendJobData;

/**
 * A worker process's side of the queue: takes run jobs, runs them with a `Runner` on the shared checkpointer,
 * streams their events and result to the submitter, and lets interrupts free it (the answer is a new job, on any
 * worker). A job whose worker died is delivered again and resumed from the checkpointer.
 *
 * @example
 * ```ts
 * import { MemoryCheckpointer } from "@graph/checkpoint";
 * import { Graph, node } from "@graph/core";
 * import { GraphWorker } from "@graph/queue-bullmq";
 *
 * const double = node({ output: "y" }, function double({ x }: { x: number }) {
 *   return x * 2;
 * });
 * const worker = new GraphWorker({
 *   connection: "redis://127.0.0.1:6379",
 *   checkpointer: new MemoryCheckpointer(),
 *   graphs: [new Graph([double], { name: "doubler" })],
 * });
 * await worker.start();
 * ```
 */
export class GraphWorker {
  readonly #options: GraphWorkerOptions;
  readonly #keys: QueueKeys;
  readonly #graphs: ReadonlyMap<string, Graph>;
  readonly #serializer: Serializer;
  readonly #runner: Runner;
  readonly #held = new Map<string, RunHandle>();
  /** Runs this worker stopped because it is closing: their jobs go back to the queue. */
  readonly #handedBack = new Set<string>();
  readonly #subgraphs: ReadonlyMap<string, Graph>;
  readonly #signal: RedisPermitSignal | undefined;
  readonly #gate: RunGate;
  #nodeMap: NodeMapDeps | undefined;
  #redis: Redis | undefined;
  #subscriber: Redis | undefined;
  #unlisten: (() => Promise<void>) | undefined;
  #worker: Worker<AnyJobData> | undefined;
  /** Adds the wake-up jobs of the workflows this worker leaves paused with a due time. */
  #queue: Queue<unknown> | undefined;
  #closing: Promise<void> | undefined;
  readonly #onSignal = (): void => {
    void this.close();
  };

  constructor(options: GraphWorkerOptions) {
    this.#options = options;
    this.#keys = queueKeys(options.queue ?? "graph", options.prefix);
    this.#graphs = new Map(options.graphs.map((g) => [g.name ?? "graph", g]));
    this.#serializer = options.checkpointer.serializer ?? defaultSerializer;
    this.#subgraphs = subgraphsByHash(options.graphs);
    const dispatcher = poolDispatcher(
      options.map?.distribute,
      options.frames?.distribute,
      () => this.#nodeMap!,
      () => this.#runner,
    );
    checkWorkerRunLimits(options.runLimits);
    const given = options.permitSignal;
    this.#signal =
      given === undefined
        ? new RedisPermitSignal({ connection: options.connection, channel: `${this.#keys.prefix}:permit-released` })
        : undefined;
    const permitSignal = given === undefined ? this.#signal : given === false ? undefined : given;
    this.#runner = new Runner({
      ...(permitSignal === undefined ? {} : { permitSignal }),
      checkpointer: options.checkpointer,
      ...(dispatcher === undefined ? {} : { mapDispatcher: dispatcher }),
      ...(options.leaseTtlMs === undefined ? {} : { leaseTtlMs: options.leaseTtlMs }),
      stopPollIntervalMs: options.stopPollMs ?? 250,
      ...(options.owner === undefined ? {} : { owner: options.owner }),
      ...(options.housekeeping === undefined ? {} : { housekeeping: options.housekeeping }),
      // Due times are BullMQ delayed jobs (see wake.ts), taken by any worker: no in-process timer here.
      scheduler: false,
      graphs: options.graphs,
    });
    this.#gate = new RunGate({
      slots: () => storePermitSlots(this.#runner),
      redis: () => this.#redis!,
      queue: () => this.#queue!,
      keys: this.#keys,
      checkpointer: options.checkpointer,
      defaults: options.runLimits,
    });
  }

  /** Connects and starts taking jobs. */
  async start(): Promise<void> {
    const o = this.#options;
    const url = redisUrl(o.connection);
    this.#redis = connect(url);
    this.#subscriber = connect(url);
    await this.#signal?.ready();
    this.#unlisten = await listenForStops(this.#subscriber, this.#keys, o.checkpointer, (id) => {
      const handle = this.#held.get(id);
      return handle === undefined ? undefined : (info) => handle.stop(info);
    });
    if (o.map?.distribute !== undefined || o.frames?.distribute !== undefined)
      this.#nodeMap = nodeMapDeps(url, this.#redis, o.queue ?? "graph", this.#keys, o.checkpointer, (id) =>
        this.#held.has(id),
      );
    this.#queue = new Queue(o.queue ?? "graph", {
      connection: { url, maxRetriesPerRequest: null },
      prefix: this.#keys.prefix,
    });
    const lockDuration = o.lockDurationMs ?? 30_000;
    this.#worker = new Worker<AnyJobData>(o.queue ?? "graph", (job, token) => this.#dispatch(job, token), {
      connection: { url, maxRetriesPerRequest: null },
      prefix: this.#keys.prefix,
      concurrency: o.concurrency ?? 4,
      lockDuration,
      stalledInterval: Math.max(500, Math.floor(lockDuration / 2)),
      // A run whose worker died is resumed as often as workers die; the checkpointer keeps it correct.
      maxStalledCount: 1_000_000,
    });
    this.#worker.on("error", () => {});
    await this.#worker.waitUntilReady();
    if (o.handleSignals !== false) {
      process.once("SIGTERM", this.#onSignal);
      process.once("SIGINT", this.#onSignal);
    }
  }

  /**
   * Stops taking jobs, lets running runs finish for `closeTimeoutMs`, then stops the rest (their steps are
   * checkpointed and their jobs go back to the queue for another worker), and closes the runner and connections.
   */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    process.removeListener("SIGTERM", this.#onSignal);
    process.removeListener("SIGINT", this.#onSignal);
    const closed = this.#worker?.close();
    const timer = setTimeout(() => {
      // A local stop only: a durable stop request would stop the run for good on the worker that resumes it.
      for (const [id, handle] of this.#held) {
        this.#handedBack.add(id);
        handle.stop({ reason: "worker closing" });
      }
    }, this.#options.closeTimeoutMs ?? 10_000);
    await closed;
    clearTimeout(timer);
    await this.#unlisten?.();
    await this.#runner.close();
    await this.#signal?.close();
    await this.#nodeMap?.queue.close();
    await this.#queue?.close();
    await this.#subscriber?.quit().catch(() => {});
    await this.#redis?.quit().catch(() => {});
  }

  #dispatch(job: Job<AnyJobData>, token: string | undefined): Promise<unknown> {
    const data = job.data;
    if ("kind" in data && data.kind === "chunk") return this.#chunk(data);
    if ("kind" in data && data.kind === "gather") return this.#gather(data);
    if ("kind" in data && data.kind === "node-chunk") return this.#nodeChunk(data);
    if ("kind" in data && data.kind === "frame-chunk")
      return runFrameChunk(data, this.#subgraphs, this.#runner, this.#nodeMap);
    if ("kind" in data && data.kind === "schedule") return this.#firing(job as Job<ScheduleJobData>);
    if ("kind" in data && data.kind === "wake")
      return runWake(job as Job<WakeJobData>, this.#runner, this.#queue!, this.#options.checkpointer, (record) => {
        const graph = this.#graphs.get(record.graphName);
        if (graph === undefined || graph.definitionHash !== record.graphHash) return Promise.resolve(undefined);
        return this.#runner.run(graph, { workflowId: record.id, recover: true, errorHandling: "continue" } as never);
      });
    if ("kind" in data && data.kind === "send")
      return runSend(job as Job<SendJobData>, this.#runner, {
        redis: this.#redis!,
        keys: this.#keys,
        serializer: this.#serializer,
        queue: this.#queue!,
        checkpointer: this.#options.checkpointer,
      });
    return this.#process(job as Job<RunJobData>, token ?? "");
  }

  /** A chunk of a mapped GraphNode some worker's run dispatched: its items as child workflows of that run. */
  #nodeChunk(data: NodeChunkJobData): Promise<number> {
    return runNodeChunk(data, this.#subgraphs, this.#runner, this.#nodeMap);
  }

  /** One occurrence of a schedule (a job of its BullMQ job scheduler): the workflow `<id>/<ISO due time>`. */
  async #firing(job: Job<ScheduleJobData>): Promise<string> {
    const refusal = this.#refusal({ ...job.data, workflowId: job.data.scheduleId });
    // Nobody waits for a firing's answer: a worker without the graph fails the job for good (kept in BullMQ's
    // failed set, with the refusal's message).
    if (refusal !== undefined) throw new UnrecoverableError(refusal.message);
    const graph = this.#graphs.get(job.data.graphName)!;
    const fired = await runFiring(job, graph, {
      runner: this.#runner,
      checkpointer: this.#options.checkpointer,
      redis: this.#redis!,
      keys: this.#keys,
      serializer: this.#serializer,
    });
    if (fired.outcome === "ran") await scheduleWake(this.#queue!, this.#options.checkpointer, fired.workflowId);
    return fired.outcome;
  }

  /** A distributed map's chunk: its items as child workflows; returns only how many finished. */
  async #chunk(data: ChunkJobData): Promise<number> {
    if (this.#refusal(data) !== undefined) return 0; // the gather job reports the refusal
    const graph = this.#graphs.get(data.graphName)!;
    return runChunk(data, graph, this.#runner, this.#options.checkpointer, this.#serializer, this.#redis!, this.#keys);
  }

  /** A distributed map's gather job: every chunk finished; the results, read in item order, go to the stream. */
  async #gather(data: GatherJobData): Promise<void> {
    const redis = this.#redis!;
    const writer = new StreamWriter(redis, this.#keys.events(data.mapId, data.submission));
    const refusal = this.#refusal(data);
    if (refusal !== undefined) writer.append("error", this.#serializer.serialize(errorToWire(refusal)));
    else {
      const gathered = await gatherResults(data, this.#graphs.get(data.graphName)!, this.#options.checkpointer);
      const failed = gathered.results.find((r) => r.status === "failed");
      if (failed !== undefined && data.errorHandling === "raise") {
        const stored = failed.error as { tag?: string; name: string; message: string };
        writer.append(
          "error",
          this.#serializer.serialize({
            tag: stored.tag ?? stored.name,
            name: stored.name,
            message: stored.message,
            fields: { workflowId: failed.workflowId },
          }),
        );
      } else writer.append("result", encodeMapResult(this.#serializer, gathered));
    }
    await writer.flush(true);
    const chunkKeys = Array.from({ length: data.chunks }, (_, c) => this.#keys.mapChunk(data.mapId, c));
    if (chunkKeys.length > 0) await redis.del(...chunkKeys);
    await clearStop(redis, this.#keys, data.mapId);
  }

  async #process(job: Job<RunJobData>, token: string): Promise<void> {
    const data = job.data;
    const redis = this.#redis!;
    const writer = new StreamWriter(redis, this.#keys.events(data.workflowId, data.submission));
    const refusal = this.#refusal(data);
    if (refusal !== undefined) {
      writer.append("error", this.#serializer.serialize(errorToWire(refusal)));
      return writer.flush(true);
    }
    const graph = this.#graphs.get(data.graphName)!;
    // Delivered again after an earlier delivery answered (its worker only looked dead: a missed lock renewal):
    // running it again would append a second answer nobody reads, and keep the job id taken.
    if (await isAnswered(redis, this.#keys.events(data.workflowId, data.submission))) return;
    const inputsKey = this.#keys.inputs(data.workflowId, data.submission);
    const stored = data.hasValues ? await redis.get(inputsKey) : null;
    const values = stored === null ? undefined : (this.#serializer.deserialize(stored) as Record<string, unknown>);
    let pass: RunPass;
    try {
      pass = await this.#gate.enter(job, token, await this.#gate.limits(job, values));
    } catch (error) {
      // Over its limit (the job is delayed: its slot is free), or the store failed (BullMQ retries the job).
      if (error instanceof DelayedError || !(error instanceof RunKeyError)) throw error;
      writer.append("error", this.#serializer.serialize(errorToWire(error.cause)));
      return writer.flush(true);
    }
    if (data.fair !== undefined) await raiseFloor(redis, this.#keys, this.#queue!, data.fair.slot);
    if (job.attemptsMade > 0 || stored === null) writer.append("attempt", String(job.attemptsMade));
    // Every delivery is a recovery: the submission already superseded older stop requests (RemoteRunner clears them),
    // so a pending one was asked for since — while queued, or before a worker died — and ends the run before any node.
    const handle = this.#runner.start(graph, {
      ...data.options,
      workflowId: data.workflowId,
      recover: true,
      ...(values === undefined ? {} : { values }),
    } as never);
    this.#held.set(data.workflowId, handle);
    const pump = (async () => {
      let inputsDurable = stored === null;
      for await (const event of handle.events) {
        // The run's first superstep starts after its input step was saved: a retry resumes without the inputs.
        if (!inputsDurable && event.type === "SuperstepStart") {
          inputsDurable = true;
          redis.del(inputsKey).catch(() => {});
        }
        writer.append("event", encodeEvent(this.#serializer, event));
      }
    })().catch(() => {});
    let retry: unknown;
    let parked = false;
    try {
      const result = await handle.result;
      await pump;
      if (isParked(result)) parked = true;
      else if (result.status === "paused") {
        // A sleep or a timed pause: its wake-up job, before the answer (a crash in between redelivers this job).
        await scheduleWake(this.#queue!, this.#options.checkpointer, data.workflowId);
        writer.append("result", encodeResult(this.#serializer, result));
      } else if (this.#handedBack.has(data.workflowId) && result.status === "stopped")
        retry = new Error(`Workflow '${data.workflowId}' handed back: its worker is closing.`);
      else {
        writer.append("result", encodeResult(this.#serializer, result));
      }
    } catch (error) {
      await pump;
      // Another process holds the lease (a dead worker's run, until its lease expires): try again later. A lost lease
      // (this process was frozen and another worker adopted the run) is no answer either: the adopter answers.
      if (isWorkflowConflictError(error) || isLeaseLostError(error) || this.#handedBack.has(data.workflowId))
        retry = error;
      else writer.append("error", this.#serializer.serialize(errorToWire(error)));
    } finally {
      await pass.leave();
      this.#held.delete(data.workflowId);
      this.#handedBack.delete(data.workflowId);
    }
    if (retry !== undefined) {
      await writer.flush();
      throw retry;
    }
    if (parked) {
      await writer.flush();
      await redis.del(inputsKey);
      // Waits for its chunks without a slot; when they all finished already, the run goes on now.
      if (await parkJob(job, token)) throw parkedSignal();
      return this.#process(job, token);
    }
    await redis.del(inputsKey);
    await writer.flush(true);
  }

  #refusal(
    data: Pick<RunJobData, "graphName" | "definitionHash"> & { workflowId?: string; mapId?: string },
  ): Error | undefined {
    const workflowId = data.workflowId ?? data.mapId ?? "";
    const graph = this.#graphs.get(data.graphName);
    if (graph === undefined)
      return new UnknownGraphError({
        graphName: data.graphName,
        workflowId,
        known: [...this.#graphs.keys()],
      });
    if (graph.definitionHash !== data.definitionHash)
      return new GraphVersionError({
        graphName: data.graphName,
        workflowId,
        expected: data.definitionHash,
        actual: graph.definitionHash,
      });
    return undefined;
  }
}
