// One phase of the `pool` workload: the timed 10-node workflows on a fresh store, either in this process (a Runner)
// or through RemoteRunner on `workers` GraphWorker processes: throughput, CPU time of the submitter and of the
// workers, submit→first-node latency under that load and, one workflow at a time, at light load. On a Redis store
// the store's and the queue's commands per workflow are counted (`INFO commandstats`). BENCH_POOL_PROF=<dir> starts
// the workers with `--cpu-prof` into that directory.
import type { Checkpointer } from "@graph/checkpoint";
import { PostgresCheckpointer } from "@graph/checkpoint-postgres";
import { RedisCheckpointer } from "@graph/checkpoint-redis";
import { RemoteRunner } from "@graph/queue-bullmq";
import { Runner } from "@graph/runtime";
import { Redis } from "ioredis";
import { pgPool } from "../lib/drivers.js";
import { queueTimed } from "./queueGraphs.js";
import { type BenchRedis, startRedis, startWorkers, stopWorkers, workersCpuMs } from "./queueProcs.js";

export type StoreKind = "postgres" | "redis";

interface Latency {
  readonly p50: number;
  readonly p99: number;
  readonly samples?: readonly number[];
}

export interface Phase {
  readonly runs: number;
  readonly warmup: number;
  readonly window: number;
  readonly concurrency: number;
  readonly runsPerSecond: number;
  /** CPU ms of this process over the timed runs (in-process: the whole work). */
  readonly submitterCpuMs: number;
  /** CPU ms of the worker processes over the timed runs (0 in-process). */
  readonly workerCpuMs: number;
  readonly loadLatency: Latency;
  readonly lightRuns: number;
  readonly lightLatency: Latency;
  /** Redis commands per workflow (store, queue), when measurable. */
  readonly roundTrips?: string;
}

interface Sizes {
  readonly runs: number;
  readonly warmup: number;
  readonly lightRuns: number;
}

const WINDOW = 200;
const CONCURRENCY = 8;
const DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/postgres";

const now = () => performance.timeOrigin + performance.now();
const cpuNowMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

function latency(samples: number[], keep: boolean): Latency {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), ...(keep ? { samples } : {}) };
}

type Run = (i: number, prefix: string) => Promise<{ status: string; values: Readonly<Record<string, unknown>> }>;

/** Runs i < n with at most `window` in flight; returns the elapsed ms and each run's submit→first-node ms. */
async function windowed(n: number, window: number, prefix: string, run: Run): Promise<[number, number[]]> {
  let next = 0;
  const lags: number[] = [];
  const t0 = performance.now();
  const lane = async (): Promise<void> => {
    for (let i = next++; i < n; i = next++) {
      const submitted = now();
      const r = await run(i, prefix);
      if (r.status !== "completed" || r.values["v9"] !== i + 10)
        throw new Error(`pool bench: workflow ${prefix}${i} ended ${r.status} with v9 = ${String(r.values["v9"])}`);
      lags.push((r.values["t0"] as number) - submitted);
    }
  };
  await Promise.all(Array.from({ length: Math.min(window, n) }, lane));
  return [performance.now() - t0, lags];
}

/** Sum of `calls=` over `INFO commandstats`. */
async function commandCalls(url: string): Promise<number> {
  const client = new Redis(url, { maxRetriesPerRequest: null });
  try {
    const info = await client.info("commandstats");
    return [...info.matchAll(/calls=(\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
  } finally {
    client.disconnect();
  }
}

interface Store {
  readonly checkpointer: Checkpointer;
  readonly env: Record<string, string>;
  readonly redis?: BenchRedis;
  close(): Promise<void>;
}

async function openStore(kind: StoreKind, label: string): Promise<Store> {
  if (kind === "redis") {
    const redis = await startRedis();
    const checkpointer = new RedisCheckpointer({ url: redis.url, prefix: "bench:" });
    await checkpointer.setup();
    return {
      checkpointer,
      redis,
      env: { BENCH_STORE: "redis", BENCH_STORE_URL: redis.url, BENCH_PREFIX: "bench:" },
      close: async () => {
        await checkpointer.close().catch(() => {});
        await redis.stop();
      },
    };
  }
  const url = process.env["DATABASE_URL"] ?? DEFAULT_DATABASE_URL;
  const schema = `bench_pool_${process.pid}_${Date.now().toString(36)}_${label}`;
  const checkpointer = new PostgresCheckpointer({ connectionString: url, schema });
  await checkpointer.setup();
  return {
    checkpointer,
    env: { BENCH_STORE: "postgres", BENCH_STORE_URL: url, BENCH_SCHEMA: schema },
    close: async () => {
      await checkpointer.close().catch(() => {});
      const admin = pgPool(url, 1);
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
      await admin.end();
    },
  };
}

/** Measures one phase: `workers` = 0 runs the workflows in this process. */
export async function measurePhase(kind: StoreKind, workers: number, sizes: Sizes): Promise<Phase> {
  const store = await openStore(kind, workers === 0 ? "local" : `w${workers}`);
  const queueRedis = workers === 0 ? undefined : await startRedis();
  const profDir = process.env["BENCH_POOL_PROF"];
  const pool =
    queueRedis === undefined
      ? undefined
      : await startWorkers(
          workers,
          { ...store.env, REDIS_URL: queueRedis.url, BENCH_QUEUE: "pool", BENCH_CONCURRENCY: String(CONCURRENCY) },
          profDir === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${profDir}`],
        );
  const options = (i: number, prefix: string) => ({ values: { x: i }, workflowId: `${prefix}${i}` });
  let run: Run;
  let runner: { close(): Promise<void> };
  if (queueRedis === undefined) {
    const local = new Runner({ checkpointer: store.checkpointer });
    [runner, run] = [local, (i, prefix) => local.run(queueTimed, options(i, prefix))];
  } else {
    const remote = new RemoteRunner({ connection: queueRedis.url, queue: "pool", checkpointer: store.checkpointer });
    [runner, run] = [remote, (i, prefix) => remote.run(queueTimed, options(i, prefix))];
  }
  try {
    await windowed(sizes.warmup, WINDOW, "warm", run);
    const workerCpu = async () => (pool === undefined ? 0 : workersCpuMs(pool));
    const calls = async () =>
      store.redis === undefined
        ? undefined
        : [await commandCalls(store.redis.url), queueRedis === undefined ? 0 : await commandCalls(queueRedis.url)];
    const [calls0, workerCpu0, cpu0] = [await calls(), await workerCpu(), cpuNowMs()];
    const [ms, lags] = await windowed(sizes.runs, WINDOW, "c", run);
    const [cpu1, workerCpu1, calls1] = [cpuNowMs(), await workerCpu(), await calls()];
    const light: number[] = [];
    for (let i = 0; i < sizes.lightRuns; i++) light.push(...(await windowed(1, 1, `l${i}-`, run))[1]);
    const perRun = (a: number, b: number) => ((b - a) / sizes.runs).toFixed(1);
    return {
      runs: sizes.runs,
      warmup: sizes.warmup,
      window: WINDOW,
      concurrency: CONCURRENCY,
      runsPerSecond: (sizes.runs * 1000) / ms,
      submitterCpuMs: cpu1 - cpu0,
      workerCpuMs: workerCpu1 - workerCpu0,
      loadLatency: latency(lags, false),
      lightRuns: sizes.lightRuns,
      lightLatency: latency(light, true),
      ...(calls0 === undefined || calls1 === undefined
        ? {}
        : {
            roundTrips: `${perRun(calls0[0]!, calls1[0]!)} store Redis commands${queueRedis === undefined ? "" : `, ${perRun(calls0[1]!, calls1[1]!)} queue Redis commands`}`,
          }),
    };
  } finally {
    await runner.close();
    if (pool !== undefined) await stopWorkers(pool);
    await queueRedis?.stop();
    await store.close();
  }
}
