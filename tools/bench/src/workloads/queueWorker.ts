// A worker process of the queue workload: a GraphWorker on the queue and checkpointer named by its env
// (BENCH_STORE "redis" with BENCH_STORE_URL + BENCH_PREFIX, or "postgres" with BENCH_STORE_URL + BENCH_SCHEMA).
// Says "ready"; answers a "cpu" message with its CPU time (µs); closes and exits when the bench disconnects.
import type { Checkpointer } from "@graph/checkpoint";
import { PostgresCheckpointer } from "@graph/checkpoint-postgres";
import { RedisCheckpointer } from "@graph/checkpoint-redis";
import { GraphWorker } from "@graph/queue-bullmq";
import { queueGraphs } from "./queueGraphs.js";

const env = (name: string, fallback?: string): string => {
  const v = process.env[name] ?? fallback;
  if (v === undefined) throw new Error(`queue bench worker: ${name} is not set`);
  return v;
};
const number = (name: string): number | undefined =>
  process.env[name] === undefined ? undefined : Number(process.env[name]);

const checkpointer: Checkpointer =
  env("BENCH_STORE", "redis") === "postgres"
    ? new PostgresCheckpointer({ connectionString: env("BENCH_STORE_URL"), schema: env("BENCH_SCHEMA") })
    : new RedisCheckpointer({ url: env("BENCH_STORE_URL"), prefix: env("BENCH_PREFIX") });
await checkpointer.setup();
const worker = new GraphWorker({
  connection: env("REDIS_URL"),
  checkpointer,
  graphs: queueGraphs,
  queue: env("BENCH_QUEUE"),
  concurrency: number("BENCH_CONCURRENCY") ?? 8,
  ...(number("BENCH_LEASE_MS") === undefined ? {} : { leaseTtlMs: number("BENCH_LEASE_MS")! }),
  ...(number("BENCH_LOCK_MS") === undefined ? {} : { lockDurationMs: number("BENCH_LOCK_MS")! }),
  handleSignals: false,
});
await worker.start();
process.on("message", (m: unknown) => {
  if (m === "cpu") {
    const u = process.cpuUsage();
    process.send?.({ type: "cpu", us: u.user + u.system });
  }
});
process.on("disconnect", () => void worker.close().then(() => process.exit(0)));
process.send?.("ready");
