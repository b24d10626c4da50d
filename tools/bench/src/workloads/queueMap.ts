// Queue workload, map rows: runner.map in one process vs RemoteRunner.map on 1/2/4 worker processes, for trivial
// items (overhead per item, chunk sizes 100 and 1,000) and CPU-bound items of ≈ 1 ms (speed-up, capped by the
// cores). Every row gets a fresh redis-server for the queue and one for the checkpointer (@graph/checkpoint-redis):
// its peak memory is the row's own, and the CPU time of every process of the row (submitter, workers, both servers)
// is summed, which other load on the machine does not inflate the way it does wall time.
import { RedisCheckpointer } from "@graph/checkpoint-redis";
import type { Graph } from "@graph/core";
import { RemoteRunner } from "@graph/queue-bullmq";
import { Runner } from "@graph/runtime";
import type { BenchContext } from "../lib/context.js";
import { type Row, row } from "../lib/results.js";
import { progress } from "../lib/timing.js";
import { queueCpu, queueItem } from "./queueGraphs.js";
import {
  type BenchRedis,
  type BenchWorker,
  sampleMemory,
  startRedis,
  startWorkers,
  stopWorkers,
  workersCpuMs,
} from "./queueProcs.js";

const WORKER_COUNTS = [1, 2, 4] as const;
const CONCURRENCY = 8;
const WARMUP_ITEMS = 100;

interface Measured {
  readonly wallMs: number;
  /** CPU ms of every process of the row. */
  readonly cpuMs: number;
  /** Peak MB above the start: the queue's Redis (distributed) and the checkpointer's Redis. */
  readonly queueMB?: number;
  readonly storeMB: number;
}

const cpuNowMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function inProcess(graph: Graph, xs: readonly number[]): Promise<Measured> {
  const store = await startRedis();
  const checkpointer = new RedisCheckpointer({ url: store.url, prefix: "bench:" });
  try {
    await checkpointer.setup();
    const runner = new Runner({ checkpointer });
    // Untimed warm-up (JIT, connections), as the workers get theirs.
    await runner.map(graph, { values: { x: xs.slice(0, WARMUP_ITEMS) }, mapOver: "x", workflowId: "warm" });
    const memory = sampleMemory(store);
    const [cpu0, storeCpu0, t0] = [cpuNowMs(), await store.cpuMs(), performance.now()];
    const result = await runner.map(graph, { values: { x: xs }, mapOver: "x", workflowId: "m" });
    const wallMs = performance.now() - t0;
    const cpuMs = cpuNowMs() - cpu0 + (await store.cpuMs()) - storeCpu0;
    const storeMB = await memory.stop();
    if (result.status !== "completed" || result.results.length !== xs.length)
      throw new Error(`queue bench: in-process map ended ${result.status} with ${result.results.length} results`);
    await runner.close();
    return { wallMs, cpuMs, storeMB };
  } finally {
    await checkpointer.close().catch(() => {});
    await store.stop();
  }
}

/** One worker count's processes: a queue Redis, a store Redis and the workers, shared by that count's rows. */
interface Pool {
  readonly queueRedis: BenchRedis;
  readonly store: BenchRedis;
  readonly workers: readonly BenchWorker[];
  readonly remote: RemoteRunner;
  close(): Promise<void>;
}

async function openPool(workers: number): Promise<Pool> {
  const [queueRedis, store] = [await startRedis(), await startRedis()];
  const checkpointer = new RedisCheckpointer({ url: store.url, prefix: "bench:" });
  const env = { REDIS_URL: queueRedis.url, BENCH_QUEUE: "bench", BENCH_STORE_URL: store.url, BENCH_PREFIX: "bench:" };
  const pool = await startWorkers(workers, { ...env, BENCH_CONCURRENCY: String(CONCURRENCY) });
  const remote = new RemoteRunner({ connection: queueRedis.url, queue: "bench", checkpointer });
  // Untimed warm-up of every worker (JIT, connections): chunks of one item, more chunks than worker slots.
  for (const graph of [queueItem, queueCpu]) {
    const values = { x: Array.from({ length: WARMUP_ITEMS }, (_, i) => i) };
    await remote.map(graph, { values, mapOver: "x", chunkSize: 1, workflowId: `warm-${graph.name}` });
  }
  return {
    queueRedis,
    store,
    workers: pool,
    remote,
    close: async () => {
      await remote.close();
      await stopWorkers(pool);
      await checkpointer.close().catch(() => {});
      await queueRedis.stop();
      await store.stop();
    },
  };
}

async function distributed(pool: Pool, graph: Graph, xs: readonly number[], chunkSize: number): Promise<Measured> {
  const { queueRedis, store } = pool;
  const cpu = async () =>
    cpuNowMs() + (await workersCpuMs(pool.workers)) + (await queueRedis.cpuMs()) + (await store.cpuMs());
  const [queueMemory, storeMemory] = [sampleMemory(queueRedis), sampleMemory(store)];
  const cpu0 = await cpu();
  const t0 = performance.now();
  const mapId = `m-${graph.name}-${chunkSize}`;
  const result = await pool.remote.map(graph, { values: { x: xs }, mapOver: "x", chunkSize, workflowId: mapId });
  const wallMs = performance.now() - t0;
  const cpu1 = await cpu();
  const [queueMB, storeMB] = [await queueMemory.stop(), await storeMemory.stop()];
  if (result.status !== "completed" || result.results.length !== xs.length)
    throw new Error(`queue bench: distributed map ended ${result.status} with ${result.results.length} results`);
  return { wallMs, cpuMs: cpu1 - cpu0, queueMB, storeMB };
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const perItemUs = (ms: number, items: number) => (ms * 1000) / items;
const LANGGRAPH = { skipped: "no distributed executor in LangGraph.js" } as const;

/**
 * The map rows, per worker count (one pool of processes each): trivial items in chunks of 100 and 1,000 (µs per
 * item vs one process, Redis peak memory), then CPU-bound items (speed-up over one process).
 */
export async function mapRows(context: BenchContext, cores: number): Promise<Row[]> {
  const trivial = range(context.quick ? 1_000 : 100_000);
  const burn = range(context.quick ? 500 : 100_000);
  const floors = { trivial: await inProcess(queueItem, trivial), cpu: await inProcess(queueCpu, burn) };
  progress(
    "queue",
    `in-process: trivial ${floors.trivial.wallMs.toFixed(0)} ms, CPU ${floors.cpu.wallMs.toFixed(0)} ms`,
  );
  const rows: Row[] = [];
  for (const workers of WORKER_COUNTS) {
    const pool = await openPool(workers);
    try {
      for (const chunkSize of [100, 1_000])
        rows.push(
          trivialRow(
            cores,
            workers,
            chunkSize,
            floors.trivial,
            await distributed(pool, queueItem, trivial, chunkSize),
            trivial.length,
          ),
        );
      rows.push(cpuRow(cores, workers, floors.cpu, await distributed(pool, queueCpu, burn, 100), burn.length));
    } finally {
      await pool.close();
    }
  }
  return rows;
}

function trivialRow(
  cores: number,
  workers: number,
  chunkSize: number,
  floor: Measured,
  m: Measured,
  items: number,
): Row {
  const overhead = perItemUs(m.wallMs - floor.wallMs, items);
  progress(
    "queue",
    `trivial map c${chunkSize} w${workers}: ${m.wallMs.toFixed(0)} ms, queue Redis +${m.queueMB!.toFixed(1)} MB`,
  );
  return row({
    id: `queue-map-trivial-${items}-c${chunkSize}-w${workers}`,
    workload: "queue",
    label: `map of ${items} trivial items, chunks of ${chunkSize}, ${workers} worker(s) on ${cores} cores (Redis store)`,
    unit: "µs/item",
    ours: { value: perItemUs(m.wallMs, items), cpu: perItemUs(m.cpuMs, items) },
    floor: {
      value: perItemUs(floor.wallMs, items),
      cpu: perItemUs(floor.cpuMs, items),
      note: "in-process runner.map, same kind of store",
    },
    langgraph: LANGGRAPH,
    notes: [
      `${cores} cores; ${workers} worker process(es) × concurrency ${CONCURRENCY}; one timed repetition`,
      `overhead ${overhead.toFixed(1)} µs/item wall; CPU of all processes ${perItemUs(m.cpuMs, items).toFixed(1)} vs ${perItemUs(floor.cpuMs, items).toFixed(1)} µs/item in-process`,
      `queue Redis peak +${m.queueMB!.toFixed(1)} MB; store Redis peak +${m.storeMB.toFixed(1)} MB (in-process: +${floor.storeMB.toFixed(1)} MB)`,
    ],
    details: { cores, workers, chunkSize, items, queueRedisPeakMB: m.queueMB, storeRedisPeakMB: m.storeMB },
  });
}

function cpuRow(cores: number, workers: number, floor: Measured, m: Measured, items: number): Row {
  const speedup = floor.wallMs / m.wallMs;
  progress("queue", `CPU map w${workers}: ${m.wallMs.toFixed(0)} ms, ${speedup.toFixed(2)}× on ${cores} cores`);
  return row({
    id: `queue-map-cpu-${items}-w${workers}`,
    workload: "queue",
    label: `speed-up of a map of ${items} ≈1 ms CPU items, ${workers} worker(s) vs one process, on ${cores} cores`,
    unit: "×",
    ours: { value: speedup },
    floor: { value: 1, note: `one process (runner.map): ${(floor.wallMs / 1000).toFixed(1)} s` },
    langgraph: LANGGRAPH,
    notes: [
      `${cores} cores: the speed-up cannot exceed ${Math.min(cores, workers)}× (other load on the machine lowers it)`,
      `wall ${(m.wallMs / 1000).toFixed(1)} s vs ${(floor.wallMs / 1000).toFixed(1)} s; CPU of all processes ${(m.cpuMs / 1000).toFixed(1)} s vs ${(floor.cpuMs / 1000).toFixed(1)} s`,
      `chunks of 100; ${workers} worker process(es) × concurrency ${CONCURRENCY}; one timed repetition`,
    ],
    details: { cores, workers, items, wallMs: m.wallMs, floorWallMs: floor.wallMs, cpuMs: m.cpuMs },
  });
}
