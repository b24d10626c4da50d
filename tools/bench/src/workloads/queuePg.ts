// Queue workload, PostgreSQL rows: 10,000 10-node workflows through RemoteRunner on 1/2/4 worker processes, runs/s
// beside the in-process Runner on the same kind of store. Each row gets its own schema (dropped after) and its own
// redis-server for the queue. At most WINDOW runs are in flight (each follows its events on a connection of its own).
import { PostgresCheckpointer } from "@graph/checkpoint-postgres";
import { RemoteRunner } from "@graph/queue-bullmq";
import { Runner } from "@graph/runtime";
import type { BenchContext } from "../lib/context.js";
import { pgPool } from "../lib/drivers.js";
import { type Row, row } from "../lib/results.js";
import { progress } from "../lib/timing.js";
import { queueChain } from "./queueGraphs.js";
import { startRedis, startWorkers, stopWorkers } from "./queueProcs.js";

const DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/postgres";
const WINDOW = 200;

/** Runs `run(i)` for i < n with at most WINDOW at once; resolves to the elapsed ms. */
async function windowed(n: number, run: (i: number) => Promise<{ status: string }>): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  const lane = async (): Promise<void> => {
    for (let i = next++; i < n; i = next++) {
      const r = await run(i);
      if (r.status !== "completed") throw new Error(`queue bench: workflow ${i} ended ${r.status}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(WINDOW, n) }, lane));
  return performance.now() - t0;
}

export async function postgresRows(context: BenchContext, cores: number): Promise<Row[]> {
  const url = process.env["DATABASE_URL"] ?? DEFAULT_DATABASE_URL;
  const runs = context.quick ? 100 : 10_000;
  const admin = pgPool(url, 1);
  const schemas: string[] = [];
  const schema = (label: string) => {
    const name = `bench_queue_${process.pid}_${Date.now().toString(36)}_${label}`;
    schemas.push(name);
    return name;
  };
  try {
    const local = new PostgresCheckpointer({ connectionString: url, schema: schema("local") });
    await local.setup();
    const runner = new Runner({ checkpointer: local });
    const floorMs = await windowed(runs, (i) => runner.run(queueChain, { values: { x: i }, workflowId: `c${i}` }));
    await runner.close();
    await local.close();
    progress("queue", `PostgreSQL workflows in-process: ${((runs * 1000) / floorMs).toFixed(0)} runs/s`);
    const rows: Row[] = [];
    for (const workers of [1, 2, 4]) {
      const queueRedis = await startRedis();
      const name = schema(`w${workers}`);
      const checkpointer = new PostgresCheckpointer({ connectionString: url, schema: name });
      await checkpointer.setup();
      const env = {
        REDIS_URL: queueRedis.url,
        BENCH_QUEUE: "bench",
        BENCH_STORE: "postgres",
        BENCH_STORE_URL: url,
        BENCH_SCHEMA: name,
        BENCH_CONCURRENCY: "8",
      };
      const pool = await startWorkers(workers, env);
      const remote = new RemoteRunner({ connection: queueRedis.url, queue: "bench", checkpointer });
      try {
        const ms = await windowed(runs, (i) => remote.run(queueChain, { values: { x: i }, workflowId: `c${i}` }));
        const perSecond = (runs * 1000) / ms;
        progress("queue", `PostgreSQL workflows w${workers}: ${perSecond.toFixed(0)} runs/s`);
        rows.push(
          row({
            id: `queue-postgres-${runs}-w${workers}`,
            workload: "queue",
            label: `${runs} 10-node workflows via RemoteRunner on PostgreSQL, ${workers} worker(s) on ${cores} cores`,
            unit: "ms/run",
            ours: { value: ms / runs },
            floor: { value: floorMs / runs, note: "in-process Runner, same kind of store" },
            langgraph: { skipped: "no distributed executor in LangGraph.js" },
            notes: [
              `${perSecond.toFixed(0)} runs/s (in-process ${((runs * 1000) / floorMs).toFixed(0)} runs/s); ${cores} cores`,
              `${workers} worker process(es) × concurrency 8; ${WINDOW} runs in flight; one timed repetition`,
            ],
            details: { cores, workers, runs, runsPerSecond: perSecond },
          }),
        );
      } finally {
        await remote.close();
        await stopWorkers(pool);
        await checkpointer.close().catch(() => {});
        await queueRedis.stop();
      }
    }
    return rows;
  } finally {
    for (const name of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`).catch(() => {});
    await admin.end();
  }
}
