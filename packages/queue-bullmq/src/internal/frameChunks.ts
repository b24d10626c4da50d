/**
 * Frames of a pipeline (`node({ frames })`) run on the pool: the run's worker keeps pulling the generator (the
 * runtime holds at most `window` frames unfinished, across every worker), batches frames into chunk jobs any worker
 * takes, and learns per frame when it finished through a Redis list it pops from. Unlike a dispatched map the run
 * does not park: it keeps its slot and the generator's position. Frame `i` is the child workflow
 * `<parent>/<node>/<i>` as in-process, so a resumed run (re-driving the generator from the start) reads the frames
 * stored finished instead of handing them out again.
 */
import type { Graph } from "@graph/core";
import { type GraphEvent, isLeaseLostError, type Runner } from "@graph/runtime";
import { type FramesDispatch, type FramesDispatchRequest, type MapFence, runMapItem } from "@graph/runtime/worker";
import type { Redis } from "ioredis";
import { jobIdOf } from "./keys.js";
import type { NodeMapDeps } from "./nodeMap.js";
import { encodeEvent } from "./wire.js";

/** A worker's `frames.distribute` options. */
export interface FramesDistributeOptions {
  /**
   * Frames per chunk job, at most the pipeline's window. Default `ceil(window / 4)`: a window of 16 goes out as
   * chunks of 4, so up to four workers share a full window.
   */
  readonly chunkSize?: number;
  /** A chunk not yet full goes out once its first frame waited this long (a slow source). Default 20 ms. */
  readonly lingerMs?: number;
  /**
   * A chunk no worker took within this long runs in the run's own worker: a run waits for its frames holding its
   * slot, so with every slot of the pool held by such runs no chunk would ever be taken. Default 2,000 ms.
   */
  readonly stealAfterMs?: number;
}

/** The data of a frame chunk job: which frames, their values (serialized with the checkpointer's serializer). */
export interface FrameChunkJobData {
  readonly kind: "frame-chunk";
  /** Redis key of the pipeline execution: `:done` lists finished frames, `:cancel` is set on a stop. */
  readonly session: string;
  readonly rootWorkflowId: string;
  readonly parentWorkflowId: string;
  /** `<parentWorkflowId>/<nodeName>`: frame `i` is the child workflow `<framesPath>/<i>`. */
  readonly framesPath: string;
  /** `definitionHash` of the per-frame graph. */
  readonly graphHash: string;
  readonly frames: readonly number[];
  readonly items: string;
  readonly fence: MapFence;
  readonly parentVersions: Readonly<Record<string, number>>;
  readonly completeOnStop: boolean;
  readonly maxIterations: number;
  /** Report each frame's events with it (the run's stream shows them). */
  readonly events: boolean;
}

/** What a chunk pushes on the `:done` list per frame: its index, and its events when asked (each `encodeEvent`d). */
interface FrameReport {
  readonly i: number;
  readonly events?: readonly string[];
}

/** Keys of a pipeline execution outlive it this long (a frame chunk may still report after the run moved on). */
const SESSION_TTL_S = 24 * 3600;
/** How long one BLPOP waits before the listener checks whether the session closed (seconds). */
const POP_TIMEOUT_S = 1;

/** The `frames` member of a worker's dispatcher: every pipeline of a run with a checkpointer goes to the pool. */
export function framesDispatcher(
  options: FramesDistributeOptions,
  deps: () => NodeMapDeps,
  runner: () => Runner,
): (request: FramesDispatchRequest) => FramesDispatch {
  const { chunkSize, lingerMs, stealAfterMs } = options;
  if (chunkSize !== undefined && !(Number.isInteger(chunkSize) && chunkSize >= 1))
    throw new RangeError(`GraphWorker frames.distribute.chunkSize must be an integer ≥ 1, got ${chunkSize}.`);
  if (lingerMs !== undefined && !(Number.isFinite(lingerMs) && lingerMs >= 0))
    throw new RangeError(`GraphWorker frames.distribute.lingerMs must be a number ≥ 0, got ${lingerMs}.`);
  if (stealAfterMs !== undefined && !(Number.isFinite(stealAfterMs) && stealAfterMs >= 0))
    throw new RangeError(`GraphWorker frames.distribute.stealAfterMs must be a number ≥ 0, got ${stealAfterMs}.`);
  return (request) =>
    new FramesSession(request, deps(), runner, {
      chunkSize: Math.min(request.window, chunkSize ?? Math.ceil(request.window / 4)),
      lingerMs: lingerMs ?? 20,
      stealAfterMs: stealAfterMs ?? 2_000,
    });
}

interface Pending {
  readonly resolve: (events: readonly GraphEvent[] | undefined) => void;
  readonly reject: (error: unknown) => void;
}

/** One execution of a pipeline on the pool, in the run's worker. */
class FramesSession implements FramesDispatch {
  readonly #session: string;
  readonly #nonce = crypto.randomUUID().slice(0, 8);
  readonly #pending = new Map<number, Pending>();
  /** Chunk jobs handed out whose frames did not all report, by job id. */
  readonly #chunks = new Map<string, readonly number[]>();
  /** The timers that run a chunk here when no worker took it, by job id. */
  readonly #steals = new Map<string, ReturnType<typeof setTimeout>>();
  #buffer: { readonly i: number; readonly values: Readonly<Record<string, unknown>> }[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #listener: Redis | undefined;
  #chunkNo = 0;
  #cancelled = false;
  #closed = false;

  readonly chunkSize: number;
  readonly lingerMs: number;
  readonly stealAfterMs: number;

  constructor(
    readonly request: FramesDispatchRequest,
    readonly deps: NodeMapDeps,
    readonly runner: () => Runner,
    timing: { readonly chunkSize: number; readonly lingerMs: number; readonly stealAfterMs: number },
  ) {
    this.chunkSize = timing.chunkSize;
    this.lingerMs = timing.lingerMs;
    this.stealAfterMs = timing.stealAfterMs;
    this.#session = `${deps.keys.nodeMap(`${request.parentWorkflowId}/${request.nodeName}`)}:frames:${this.#nonce}`;
  }

  run(i: number, values: Readonly<Record<string, unknown>>): Promise<readonly GraphEvent[] | undefined> {
    if (this.#cancelled || this.#closed) return Promise.resolve(undefined);
    return new Promise((resolve, reject) => {
      this.#pending.set(i, { resolve, reject });
      this.#buffer.push({ i, values });
      this.#listen();
      if (this.#buffer.length >= this.chunkSize) this.flush();
      else this.#timer ??= setTimeout(() => this.flush(), this.lingerMs);
    });
  }

  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    while (this.#buffer.length > 0) this.#send(this.#buffer.splice(0, this.chunkSize));
  }

  cancel(): void {
    if (this.#cancelled || this.#closed) return;
    this.#cancelled = true;
    clearTimeout(this.#timer);
    for (const { i } of this.#buffer.splice(0)) this.#settle(i);
    const { redis, queue } = this.deps;
    void redis.set(`${this.#session}:cancel`, "1", "EX", SESSION_TTL_S).catch(() => undefined);
    // Chunks still queued go now (their frames did not start); running ones stop between frames and report.
    for (const [jobId, frames] of this.#chunks)
      void queue.remove(jobId).then(
        (removed) => {
          if (removed === 1) for (const i of frames) this.#settle(i);
        },
        () => undefined,
      );
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#timer);
    for (const timer of this.#steals.values()) clearTimeout(timer);
    this.#buffer = [];
    for (const i of [...this.#pending.keys()]) this.#settle(i);
    this.#listener?.disconnect();
    await this.deps.redis.del(`${this.#session}:done`).catch(() => undefined);
  }

  #send(batch: readonly { readonly i: number; readonly values: Readonly<Record<string, unknown>> }[]): void {
    const r = this.request;
    const frames = batch.map((b) => b.i);
    const jobId = `${jobIdOf(r.rootWorkflowId)}-f${this.#nonce}-c${this.#chunkNo++}`;
    this.#chunks.set(jobId, frames);
    const data: FrameChunkJobData = {
      kind: "frame-chunk",
      session: this.#session,
      rootWorkflowId: r.rootWorkflowId,
      parentWorkflowId: r.parentWorkflowId,
      framesPath: `${r.parentWorkflowId}/${r.nodeName}`,
      graphHash: r.graph.definitionHash,
      frames,
      items: this.deps.serializer.serialize(batch.map((b) => b.values)),
      fence: r.fence,
      parentVersions: r.parentVersions,
      completeOnStop: r.completeOnStop,
      maxIterations: r.maxIterations,
      events: r.events,
    };
    this.deps.queue
      .add("frame-chunk", data, {
        jobId,
        removeOnComplete: true,
        removeOnFail: true,
        // A chunk fails only on storage errors or a worker without the graph: retried (another worker may know it).
        attempts: 10_000,
        backoff: { type: "fixed", delay: 500 },
      })
      .then(
        () => {
          if (this.#chunks.has(jobId) && !this.#closed)
            this.#steals.set(
              jobId,
              setTimeout(() => void this.#steal(jobId, data), this.stealAfterMs),
            );
        },
        (error: unknown) => {
          for (const i of frames) this.#settle(i, error);
        },
      );
  }

  /** Runs a chunk no worker took here: removed from the queue first, so no worker takes it meanwhile. */
  async #steal(jobId: string, data: FrameChunkJobData): Promise<void> {
    this.#steals.delete(jobId);
    if (!this.#chunks.has(jobId) || this.#closed || this.#cancelled) return;
    const removed = await this.deps.queue.remove(jobId).catch(() => 0);
    if (removed !== 1) return; // taken meanwhile (or gone): its worker reports
    const graphs = new Map([[data.graphHash, this.request.graph]]);
    await runFrameChunk(data, graphs, this.runner(), this.deps).catch((error: unknown) => {
      for (const i of data.frames) this.#settle(i, error);
    });
  }

  /** One connection per pipeline execution blocks on its `:done` list while frames are out. */
  #listen(): void {
    if (this.#listener !== undefined) return;
    const listener = this.deps.redis.duplicate();
    listener.on("error", () => {});
    this.#listener = listener;
    const key = `${this.#session}:done`;
    void (async () => {
      while (!this.#closed) {
        let popped: [string, string] | null;
        try {
          popped = await listener.blpop(key, POP_TIMEOUT_S);
        } catch (error) {
          if (this.#closed) return;
          for (const i of [...this.#pending.keys()]) this.#settle(i, error);
          return;
        }
        if (popped === null) continue;
        let report: FrameReport;
        let events: GraphEvent[] | undefined;
        try {
          report = JSON.parse(popped[1]) as FrameReport;
          events = report.events?.map((e) => this.deps.serializer.deserialize(e) as GraphEvent);
        } catch {
          continue; // not a report of this version: the frame is read from the checkpointer when its report comes
        }
        this.#settle(report.i, undefined, events);
      }
    })();
  }

  #settle(i: number, error?: unknown, events?: readonly GraphEvent[]): void {
    const pending = this.#pending.get(i);
    if (pending === undefined) return; // reported twice (a chunk delivered again): the first report counted
    this.#pending.delete(i);
    if (error === undefined) pending.resolve(events);
    else pending.reject(error);
    for (const [jobId, frames] of this.#chunks)
      if (frames.includes(i) && frames.every((f) => !this.#pending.has(f))) {
        this.#chunks.delete(jobId);
        clearTimeout(this.#steals.get(jobId));
        this.#steals.delete(jobId);
      }
  }
}

/**
 * Runs a frame chunk on any worker: each frame as its child workflow (a frame stored finished — the chunk delivered
 * again after its worker died — runs no node again), all of the chunk's frames at once, and reports each to the
 * run's worker. After a stop, or once the run's lease moved on (the run resumed elsewhere and hands its frames out
 * again), frames are reported without running. Resolves to how many frames ran.
 */
export async function runFrameChunk(
  data: FrameChunkJobData,
  graphs: ReadonlyMap<string, Graph>,
  runner: Runner,
  deps: NodeMapDeps | undefined,
): Promise<number> {
  const graph = graphs.get(data.graphHash);
  if (graph === undefined || deps === undefined)
    throw new Error(
      `Workflow '${data.rootWorkflowId}': this worker does not know the frames pipeline's graph (definitionHash ` +
        `${data.graphHash}) or was started without frames.distribute. How to fix: give every worker of the queue ` +
        "the same graphs and frames options (the chunk is retried, possibly on another worker).",
    );
  const { redis, serializer } = deps;
  const items = serializer.deserialize(data.items) as Record<string, unknown>[];
  const over = async () =>
    (await redis.exists(`${data.session}:cancel`)) === 1 || (await deps.stopRequested(data.rootWorkflowId));
  let ran = 0;
  await Promise.all(
    data.frames.map(async (i, k) => {
      const events: GraphEvent[] | undefined = data.events ? [] : undefined;
      if (!(await over()))
        try {
          await runMapItem(runner, graph, {
            workflowId: `${data.framesPath}/${i}`,
            parentWorkflowId: data.parentWorkflowId,
            values: items[k]!,
            parentVersions: data.parentVersions,
            fence: data.fence,
            completeOnStop: data.completeOnStop,
            maxIterations: data.maxIterations,
            ...(events === undefined ? {} : { onEvent: (e: GraphEvent) => void events.push(e) }),
          });
          ran++;
        } catch (error) {
          if (!isLeaseLostError(error)) throw error;
        }
      const report: FrameReport = {
        i,
        ...(events === undefined ? {} : { events: events.map((e) => encodeEvent(serializer, e)) }),
      };
      await redis
        .multi()
        .rpush(`${data.session}:done`, JSON.stringify(report))
        .expire(`${data.session}:done`, SESSION_TTL_S)
        .exec();
    }),
  );
  return ran;
}
