// Workload 8: runs and map items on worker processes through @graph/queue-bullmq. Ours: RemoteRunner with 1 and 2
// worker processes (each concurrency 8) on a Redis checkpointer; floor: the in-process Runner on the same store.
// One timed repetition per row (each forks processes); the machine's core count is in every label, because a worker
// pool cannot beat the cores it runs on. Server: REDIS_URL, else redis://127.0.0.1:6379; keys deleted at the end.
import { type ChildProcess, fork } from "node:child_process";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { RedisCheckpointer } from "@graph/checkpoint-redis";
import { RemoteRunner } from "@graph/queue-bullmq";
import { Runner } from "@graph/runtime";
import type { BenchContext, Workload } from "../lib/context.js";
import { type Row, row } from "../lib/results.js";
import { progress } from "../lib/timing.js";
import { queueChain, queueItem } from "./queueGraphs.js";

const workerModule = fileURLToPath(new URL("./queueWorker.ts", import.meta.url));
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

async function startWorkers(count: number, env: Record<string, string>): Promise<ChildProcess[]> {
  const children = range(count).map(() =>
    fork(workerModule, [], {
      env: { ...process.env, ...env },
      execArgv: ["--conditions=@graph/source", "--import", "tsx"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    }),
  );
  await Promise.all(children.map((c) => new Promise((resolve) => c.once("message", resolve))));
  return children;
}

async function stopWorkers(children: readonly ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(
      (c) =>
        new Promise<void>((resolve) => {
          c.once("exit", () => resolve());
          c.disconnect();
        }),
    ),
  );
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

export const queue: Workload = {
  name: "queue",
  title: "map items and 10-node workflows on worker processes (BullMQ)",
  async run(context: BenchContext): Promise<Row[]> {
    const url = process.env["REDIS_URL"] ?? "redis://127.0.0.1:6379";
    const cores = os.cpus().length;
    const items = context.quick ? 2_000 : 10_000;
    const chains = context.quick ? 50 : 500;
    const tag = `bench-queue-${process.pid}-${Date.now().toString(36)}`;
    const store = (who: string) => new RedisCheckpointer({ url, prefix: `${tag}:${who}:` });
    const cleanup: RedisCheckpointer[] = [];
    const xs = range(items);
    try {
      const local = store("local");
      cleanup.push(local);
      await local.setup();
      const runner = new Runner({ checkpointer: local });
      const floorMap = await timed(() => runner.map(queueItem, { values: { x: xs }, mapOver: "x", workflowId: "m" }));
      const floorChain = await timed(() =>
        Promise.all(range(chains).map((i) => runner.run(queueChain, { values: { x: i }, workflowId: `c${i}` }))),
      );
      const rows: Row[] = [];
      for (const workers of [1, 2]) {
        const who = `w${workers}`;
        cleanup.push(store(who));
        const env = { REDIS_URL: url, BENCH_QUEUE: `${tag}-${who}`, BENCH_PREFIX: `${tag}:${who}:` };
        const children = await startWorkers(workers, env);
        const remote = new RemoteRunner({ connection: url, queue: env.BENCH_QUEUE });
        try {
          const mapMs = await timed(() =>
            remote.map(queueItem, { values: { x: xs }, mapOver: "x", chunkSize: 1000, workflowId: "m" }),
          );
          const chainMs = await timed(() =>
            Promise.all(range(chains).map((i) => remote.run(queueChain, { values: { x: i }, workflowId: `c${i}` }))),
          );
          progress("queue", `${workers} worker(s): map ${mapMs.toFixed(0)} ms, chains ${chainMs.toFixed(0)} ms`);
          const note = `${cores} cores; ${workers} worker process(es) × concurrency 8; one timed repetition`;
          rows.push(
            row({
              id: `queue-map-${items}-w${workers}`,
              workload: "queue",
              label: `map of ${items} trivial items, chunks of 1,000, ${workers} worker(s) on ${cores} cores (Redis store)`,
              unit: "µs/run",
              ours: { value: (mapMs * 1000) / items },
              floor: { value: (floorMap * 1000) / items, note: "in-process runner.map, same store" },
              langgraph: { skipped: "no distributed executor in LangGraph.js" },
              notes: [note],
            }),
            row({
              id: `queue-chain-${chains}-w${workers}`,
              workload: "queue",
              label: `${chains} 10-node workflows via RemoteRunner, ${workers} worker(s) on ${cores} cores (Redis store)`,
              unit: "ms/run",
              ours: { value: chainMs / chains },
              floor: { value: floorChain / chains, note: "in-process Runner, same store" },
              langgraph: { skipped: "no distributed executor in LangGraph.js" },
              notes: [note, `${((chains * 1000) / chainMs).toFixed(0)} runs/s`],
            }),
          );
        } finally {
          await remote.close();
          await stopWorkers(children);
        }
      }
      await runner.close();
      return rows;
    } finally {
      for (const s of cleanup) {
        await s.clear().catch(() => {});
        await s.close().catch(() => {});
      }
    }
  },
};
