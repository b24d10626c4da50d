// Timer lateness of the in-process scheduler, with the system clock: how long after a sleep's due time the workflow
// is resumed (TimerFired.lateMs = fire time − due time), on the memory checkpointer, a SQLite file, PostgreSQL
// (DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres; a schema dropped at the end) and Redis
// (REDIS_URL, else redis://127.0.0.1:6379; a key prefix cleared at the end).
// Run: cd tools/bench && node --conditions=@graph/source --import tsx src/timerLateness.ts [workflows]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Checkpointer, MemoryCheckpointer } from "@graph/checkpoint";
import { PostgresCheckpointer } from "@graph/checkpoint-postgres";
import { RedisCheckpointer } from "@graph/checkpoint-redis";
import { SqliteCheckpointer } from "@graph/checkpoint-sqlite";
import { Graph, node, sleep } from "@graph/core";
import { type GraphEvent, Runner } from "@graph/runtime";
import { pgPool } from "./lib/drivers.js";

const count = Number(process.argv[2] ?? 300);
const nap = sleep({ name: "nap", until: "at", output: "napped" });
const after = node({ name: "after", output: "done" }, async ({ napped }: { napped: number }) => napped);
const graph = new Graph([nap, after], { name: "lateness" });

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function measure(name: string, checkpointer: Checkpointer, msPerCreate = 10): Promise<void> {
  const late: number[] = [];
  const runner = new Runner({
    checkpointer,
    eventProcessors: [{ onEvent: (e: GraphEvent) => void (e.type === "TimerFired" && late.push(e.lateMs)) }],
  });
  // Created one after the other before the first is due (the creating runs must not be running when their due
  // time comes: that measures the creation, not the timer), due times spread over 3 s in random order.
  const start = Date.now() + 1_000 + count * msPerCreate;
  const dues = Array.from({ length: count }, (_, i) => start + Math.floor((i * 3_000) / count));
  dues.sort(() => Math.random() - 0.5);
  for (const [i, at] of dues.entries()) {
    const result = await runner.run(graph, { values: { at }, workflowId: `late-${i}` });
    if (result.status !== "paused") throw new Error(`workflow ${i} was due before it paused: raise the lead time`);
  }
  const deadline = Date.now() + 30_000;
  while (late.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  await runner.close();
  const sorted = [...late].sort((a, b) => a - b);
  console.log(
    `${name.padEnd(9)} ${sorted.length}/${count} fired  p50 ${percentile(sorted, 50)} ms  p99 ${percentile(sorted, 99)} ms  max ${sorted.at(-1)} ms`,
  );
}

const dir = mkdtempSync(path.join(tmpdir(), "graph-lateness-"));
const pgUrl = process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres";
const schema = `bench_lateness_${process.pid}`;
const prefix = `graph-bench:lateness:${process.pid}:`;
const redisUrl = process.env["REDIS_URL"] ?? "redis://127.0.0.1:6379";
try {
  await measure("memory", new MemoryCheckpointer());
  await measure("sqlite", new SqliteCheckpointer({ path: path.join(dir, "lateness.db") }));
  await measure("postgres", new PostgresCheckpointer({ connectionString: pgUrl, schema }), 60);
  await measure("redis", new RedisCheckpointer({ url: redisUrl, prefix }), 40);
} finally {
  rmSync(dir, { recursive: true, force: true });
  const admin = pgPool(pgUrl);
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
  const redis = new RedisCheckpointer({ url: redisUrl, prefix });
  await redis.clear();
  await redis.close();
}
