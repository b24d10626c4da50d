/**
 * Distributed `mapOver` of a mapped GraphNode inside a workflow a worker runs: the runtime's `mapDispatcher`. The
 * items are stored per chunk in Redis and handed out as chunk jobs, children of the run's job (added in batches,
 * never one job per item); the run parks (its job waits for its children without a worker slot); each chunk runs
 * its items with `runMapItem` (`@graph/runtime/worker`) on the shared checkpointer; once every chunk finished BullMQ delivers the run's
 * job again and the resumed run gathers the items' results from the checkpointer.
 */
import { type Checkpointer, defaultSerializer, type Serializer } from "@graph/checkpoint";
import type { Graph } from "@graph/core";
import { isLeaseLostError, type Runner, type RunResult } from "@graph/runtime";
import { type MapDispatcher, type MapDispatchRequest, type MapFence, runMapItem } from "@graph/runtime/worker";
import { type Job, Queue, WaitingChildrenError } from "bullmq";
import type { Redis } from "ioredis";
import { runChunkItems } from "./chunkItems.js";
import { jobIdOf, type QueueKeys } from "./keys.js";
import { itemWorkflowId } from "./mapJobs.js";
import { readStop } from "./stopSignal.js";

/** A worker's `map.distribute` options. */
export interface DistributeOptions {
  readonly minItems: number;
  readonly chunkSize: number;
}

/** The data of a chunk job of a dispatched mapped GraphNode: which items; their values are in Redis. */
export interface NodeChunkJobData {
  readonly kind: "node-chunk";
  /** The `nodeMap` key path (`<parentWorkflowId>/<nodeName>`). */
  readonly mapPath: string;
  readonly rootWorkflowId: string;
  readonly parentWorkflowId: string;
  /** `definitionHash` of the graph every item runs (any graph a worker knows, at any depth). */
  readonly graphHash: string;
  readonly chunk: number;
  readonly start: number;
  readonly end: number;
  readonly fence: MapFence;
  readonly parentVersions: Readonly<Record<string, number>>;
  readonly completeOnStop: boolean;
  readonly maxIterations: number;
  /** Items of this chunk run at once (the node's `mapOver` concurrency shared among its chunks); default 16. */
  readonly itemConcurrency?: number;
}

/** How a map's items split into chunks: how many items per chunk, how many chunks, how many items of each at once. */
interface ChunkPlan {
  readonly size: number;
  readonly chunks: number;
  readonly itemConcurrency: number | undefined;
}

/**
 * The chunks of a map of `count` items. With a `mapOver` concurrency `k`, no more than `k` items may run at once
 * across the pool, and chunk jobs of one map can't be throttled among themselves: so at most `k` chunks, and each
 * runs `floor(k / chunks)` (≤ 16) items at a time. Without it, chunks of `chunkSize` run 16 items each.
 */
export function chunkPlan(count: number, chunkSize: number, concurrency: number | undefined): ChunkPlan {
  if (concurrency === undefined)
    return { size: chunkSize, chunks: Math.ceil(count / chunkSize), itemConcurrency: undefined };
  const chunks = Math.max(1, Math.min(concurrency, Math.ceil(count / chunkSize), count));
  const size = Math.ceil(count / chunks);
  return { size, chunks: Math.ceil(count / size), itemConcurrency: Math.min(16, Math.floor(concurrency / chunks)) };
}

/** What the dispatcher and the chunks need from their worker. */
export interface NodeMapDeps {
  readonly redis: Redis;
  readonly queue: Queue;
  readonly keys: QueueKeys;
  readonly serializer: Serializer;
  readonly checkpointer: Checkpointer;
  /** True when this worker runs the workflow as a job (the only runs that may park). */
  readonly runsJob: (workflowId: string) => boolean;
  /** A stop was requested for the workflow (checked between items). */
  readonly stopRequested: (workflowId: string) => Promise<boolean>;
}

/** A worker's dependencies of its node maps (its Redis connection, a Queue to add chunks, how to see a stop). */
export function nodeMapDeps(
  url: string,
  redis: Redis,
  queueName: string,
  keys: QueueKeys,
  checkpointer: Checkpointer,
  runsJob: (workflowId: string) => boolean,
): NodeMapDeps {
  return {
    redis,
    queue: new Queue(queueName, { connection: { url, maxRetriesPerRequest: null }, prefix: keys.prefix }),
    keys,
    serializer: checkpointer.serializer ?? defaultSerializer,
    checkpointer,
    runsJob,
    // The queue's stop request, or the checkpointer's (durable, any process).
    stopRequested: async (id) =>
      (await readStop(redis, keys, id)) !== undefined || (await checkpointer.getStopRequest(id)) !== undefined,
  };
}

/** Chunk jobs added per call to Redis. */
const ADD_BATCH = 200;
/** A map whose run is never resumed (stopped, abandoned) leaves its keys this long. */
const MAP_TTL_S = 7 * 24 * 3600;

/** The dispatcher a worker's runner gets: maps of at least `minItems` items go to chunk jobs. */
export function nodeMapDispatcher(options: DistributeOptions, deps: () => NodeMapDeps): MapDispatcher {
  if (!Number.isInteger(options.chunkSize) || options.chunkSize < 1)
    throw new RangeError(`GraphWorker map.distribute.chunkSize must be an integer ≥ 1, got ${options.chunkSize}.`);
  return {
    minItems: options.minItems,
    dispatch: (request) => dispatch(request, options.chunkSize, deps()),
  };
}

async function dispatch(
  request: MapDispatchRequest,
  chunkSize: number,
  deps: NodeMapDeps,
): Promise<"done" | "parked" | "inline"> {
  if (!deps.runsJob(request.rootWorkflowId)) return "inline";
  const { redis, keys } = deps;
  const mapPath = `${request.parentWorkflowId}/${request.nodeName}`;
  const key = keys.nodeMap(mapPath);
  const state = await redis.hgetall(key);
  // A map already dispatched keeps the split it was dispatched with (a redeploy may have changed the options).
  const plan =
    state["size"] === undefined
      ? chunkPlan(request.count, chunkSize, request.concurrency)
      : {
          size: Number(state["size"]),
          chunks: Number(state["chunks"]),
          itemConcurrency: state["items"] === undefined ? undefined : Number(state["items"]),
        };
  const { chunks, size } = plan;
  if (state["nonce"] === undefined) {
    const nonce = crypto.randomUUID().slice(0, 8);
    const tx = redis.multi();
    for (let c = 0; c < chunks; c++)
      tx.set(`${key}:${c}`, deps.serializer.serialize(request.items.slice(c * size, (c + 1) * size)), "EX", MAP_TTL_S);
    tx.del(`${key}:done`);
    tx.hset(key, {
      nonce,
      chunks,
      size,
      count: request.count,
      ...(plan.itemConcurrency === undefined ? {} : { items: plan.itemConcurrency }),
    });
    tx.expire(key, MAP_TTL_S);
    await tx.exec();
    state["nonce"] = nonce;
  }
  const nonce = state["nonce"];
  const finished = new Set((await redis.smembers(`${key}:done`)).map(Number));
  const missing = range(chunks).filter((c) => !finished.has(c));
  if (state["added"] === undefined) {
    // First dispatch, or one whose process died while adding: job ids are deterministic (a chunk queued or running
    // is not added twice) and finished chunks are not added again.
    await addChunks(request, mapPath, nonce, plan, missing, deps);
    await redis.hset(key, "added", 1);
    return "parked";
  }
  if (missing.length > 0 && !(await deps.stopRequested(request.rootWorkflowId))) {
    const parent = jobIdOf(request.rootWorkflowId);
    const alive = await Promise.all(missing.map((c) => deps.queue.getJob(chunkJobId(parent, nonce, c))));
    // Chunks still queued or running (the run's job came back early: its worker died while dispatching): wait.
    if (alive.some((job) => job !== undefined)) return "parked";
  }
  // Every chunk finished, or the rest will not run (removed by a stop, or stopped between items): their items count
  // as stopped. The map's keys go.
  await redis.del(key, `${key}:done`, ...range(chunks).map((c) => `${key}:${c}`));
  return "done";
}

const chunkJobId = (parentJobId: string, nonce: string, chunk: number): string => `${parentJobId}-m${nonce}-c${chunk}`;

async function addChunks(
  request: MapDispatchRequest,
  mapPath: string,
  nonce: string,
  plan: ChunkPlan,
  chunks: readonly number[],
  deps: NodeMapDeps,
): Promise<void> {
  const parent = { id: jobIdOf(request.rootWorkflowId), queue: deps.queue.qualifiedName };
  for (let b = 0; b < chunks.length; b += ADD_BATCH) {
    await deps.queue.addBulk(
      chunks.slice(b, b + ADD_BATCH).map((chunk) => {
        const data: NodeChunkJobData = {
          kind: "node-chunk",
          mapPath,
          rootWorkflowId: request.rootWorkflowId,
          parentWorkflowId: request.parentWorkflowId,
          graphHash: request.graph.definitionHash,
          chunk,
          start: chunk * plan.size,
          end: Math.min(request.count, (chunk + 1) * plan.size),
          fence: request.fence,
          parentVersions: request.parentVersions,
          completeOnStop: request.completeOnStop,
          maxIterations: request.maxIterations,
          ...(plan.itemConcurrency === undefined ? {} : { itemConcurrency: plan.itemConcurrency }),
        };
        return {
          name: "node-chunk",
          data,
          opts: {
            jobId: chunkJobId(parent.id, nonce, chunk),
            parent,
            removeOnComplete: true,
            removeOnFail: true,
            attempts: 10_000,
            backoff: { type: "fixed", delay: 500 },
          },
        };
      }),
    );
  }
}

/**
 * Runs a chunk's items (a chunk delivered again after its worker died resumes each item from the checkpointer: its
 * finished items run no node again). Stops between items once the run was stopped; gives up quietly when the run's
 * lease moved on (the run resumed without this chunk: its writes would be fenced). Resolves to how many items ran.
 */
export async function runNodeChunk(
  data: NodeChunkJobData,
  graphs: ReadonlyMap<string, Graph>,
  runner: Runner,
  deps: NodeMapDeps | undefined,
): Promise<number> {
  const graph = graphs.get(data.graphHash);
  if (graph === undefined || deps === undefined)
    throw new Error(
      `Workflow '${data.rootWorkflowId}': this worker does not know the mapped graph (definitionHash ` +
        `${data.graphHash}) or was started without map.distribute. How to fix: give every worker of the queue the ` +
        "same graphs and map options (the chunk is retried, possibly on another worker).",
    );
  const key = deps.keys.nodeMap(data.mapPath);
  const text = await deps.redis.get(`${key}:${data.chunk}`);
  if (text === null) return 0; // the map is over (stopped and gathered): nothing left to run
  const items = deps.serializer.deserialize(text) as Record<string, unknown>[];
  const ran = await runChunkItems(
    items.length,
    async (offset) => {
      if (await deps.stopRequested(data.rootWorkflowId)) return false;
      try {
        await runMapItem(runner, graph, {
          workflowId: itemWorkflowId(data.mapPath, data.start + offset),
          parentWorkflowId: data.parentWorkflowId,
          values: items[offset]!,
          parentVersions: data.parentVersions,
          fence: data.fence,
          completeOnStop: data.completeOnStop,
          maxIterations: data.maxIterations,
        });
        return true;
      } catch (error) {
        if (!isLeaseLostError(error)) throw error;
        return false;
      }
    },
    data.itemConcurrency,
  );
  if (ran === items.length) await deps.redis.sadd(`${key}:done`, data.chunk);
  return ran;
}

/** True when a run ended parked: its mapped GraphNode's items were handed to chunk jobs. */
export function isParked(result: RunResult): boolean {
  return result.status === "paused" && result.pause?.reason === "map_dispatched";
}

/**
 * Parks a run's job until its chunk jobs finished: it leaves its worker slot (BullMQ delivers it again once every
 * child completed). False when every chunk already finished: the run resumes at once.
 */
export async function parkJob(job: Job, token: string): Promise<boolean> {
  return job.moveToWaitingChildren(token);
}

/** The error a processor throws after parking (BullMQ's signal that the job waits for its children). */
export const parkedSignal = (): Error => new WaitingChildrenError();

/**
 * A stop of a parked run: its chunk jobs still queued are removed (running ones stop between items). Once none is
 * left BullMQ delivers the run's job again, and the resumed run ends stopped.
 */
export async function removePendingChunks(queue: Queue, workflowId: string): Promise<void> {
  const job = await queue.getJob(jobIdOf(workflowId));
  if (job !== undefined && (await job.isWaitingChildren())) await job.removeUnprocessedChildren();
}

/** Every graph a worker's graphs contain (GraphNodes at any depth), by definitionHash. */
export function subgraphsByHash(graphs: readonly Graph[]): Map<string, Graph> {
  const found = new Map<string, Graph>();
  const visit = (g: Graph): void => {
    if (found.has(g.definitionHash)) return;
    found.set(g.definitionHash, g);
    for (const n of g.nodes.values()) {
      const inner = (n as { graph?: unknown }).graph;
      if (inner !== undefined && typeof inner === "object" && inner !== null && "definitionHash" in inner)
        visit(inner as Graph);
    }
  };
  for (const g of graphs) visit(g);
  return found;
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
