// Workload 7: the SQLite/PostgreSQL workload on Redis. Ours: RedisCheckpointer under a fresh key prefix per
// repetition (durability async, and sync); floor: one RPUSH per step (plus a status HSET per workflow) through
// ioredis, one round trip each. LangGraph.js is not measured: its Redis saver needs the RedisJSON and RediSearch
// modules, and this workload runs on plain Redis. Bytes per step: `MEMORY USAGE` summed over the keys of the last
// repetition. Server: REDIS_URL, else redis://127.0.0.1:6379; every key the bench writes is deleted at the end.
import fs from "node:fs";
import path from "node:path";
import { RedisCheckpointer } from "@graph/checkpoint-redis";
import { SqliteCheckpointer } from "@graph/checkpoint-sqlite";
import { Runner } from "@graph/runtime";
import { Redis } from "ioredis";
import type { BenchContext, Workload } from "../lib/context.js";
import { DURABLE_LENGTH, type FloorStore, runFloor, runOurs } from "../lib/durable.js";
import { ourChain } from "../lib/graphs.js";
import { type Row, row, timeCell } from "../lib/results.js";
import { fmt, type MeasureOptions, measureAll, progress } from "../lib/timing.js";

const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

const LANGGRAPH_SKIPPED = {
  skipped:
    "LangGraph.js's Redis checkpointer needs the RedisJSON and RediSearch modules; this workload uses plain Redis",
};

/** Sum of `MEMORY USAGE … SAMPLES 0` over the keys matching a pattern (found with SCAN). */
async function memoryBytes(client: Redis, pattern: string): Promise<number> {
  let total = 0;
  let cursor = "0";
  do {
    const [next, keys] = await client.scan(cursor, "MATCH", pattern, "COUNT", 1000);
    cursor = next;
    for (const key of keys) total += Number((await client.memory("USAGE", key, "SAMPLES", 0)) ?? 0);
  } while (cursor !== "0");
  return total;
}

async function deleteMatching(client: Redis, pattern: string): Promise<void> {
  let cursor = "0";
  do {
    const [next, keys] = await client.scan(cursor, "MATCH", pattern, "COUNT", 1000);
    cursor = next;
    if (keys.length > 0) await client.unlink(...keys);
  } while (cursor !== "0");
}

function floorStore(client: Redis, prefix: string): FloorStore {
  return {
    startWorkflow: async (id) => void (await client.hset(`${prefix}wf:${id}`, "status", "running")),
    saveStep: async (id, index, node, value) =>
      void (await client.rpush(`${prefix}steps:${id}`, JSON.stringify([index, node, value]))),
    finishWorkflow: async (id) => void (await client.hset(`${prefix}wf:${id}`, "status", "completed")),
  };
}

export const redis: Workload = {
  name: "redis",
  title: "10-node chain + Redis checkpointer × 200 workflows",
  async run(context: BenchContext): Promise<Row[]> {
    const url = process.env["REDIS_URL"] ?? DEFAULT_REDIS_URL;
    const runs = context.quick ? 20 : 200;
    const warmRuns = Math.min(runs, 20);
    const steps = runs * DURABLE_LENGTH;
    const admin = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: true });
    admin.on("error", () => {});
    try {
      await admin.connect();
      await admin.ping();
    } catch (error) {
      admin.disconnect();
      const reason = `Redis not reachable at ${url} (${(error as Error).message}); set REDIS_URL to run this workload`;
      progress("redis", `skipped: ${reason}`);
      const skipped = { skipped: reason };
      return [
        row({
          id: `redis-chain-10x${runs}`,
          workload: "redis",
          label: `Redis: chain of 10 × ${runs} workflows`,
          unit: "ms/run",
          ours: skipped,
          floor: skipped,
          langgraph: skipped,
          notes: [reason],
        }),
      ];
    }

    const tag = `bench-${process.pid}-${Date.now().toString(36)}`;
    const prefix = (who: string, rep: number) => `${tag}:${who}:${rep}:`;
    const lastPrefix: Record<string, string> = {};
    const graph = ourChain(DURABLE_LENGTH);
    try {
      const oursWith = (who: string, durability: "sync" | "async"): MeasureOptions => {
        let runner: Runner | undefined;
        const go = (count: number) => async (rep: number) => {
          await runOurs(runner!, graph, count, `wf-${rep}`);
          await runner!.close();
        };
        return {
          warmup: 1,
          warmupMs: context.warmupMs,
          reps: context.reps,
          before: async (rep) => {
            const checkpointer = new RedisCheckpointer({
              url,
              prefix: (lastPrefix[who] = prefix(who, rep)),
              policy: { durability },
            });
            await checkpointer.setup();
            runner = new Runner({ checkpointer });
          },
          warmupRun: go(warmRuns),
          run: go(runs),
        };
      };
      // The same runs on SQLite in the same process (default policy): the Redis store should cost ≤ 2× that.
      let sqliteRunner: Runner | undefined;
      const sqliteFile = (rep: number) => path.join(context.tmpDir, `redis-vs-sqlite-${rep}.db`);
      const sqliteRun = (count: number) => async (rep: number) => {
        await runOurs(sqliteRunner!, graph, count, `wf-${rep}`);
        await sqliteRunner!.close();
        fs.rmSync(sqliteFile(rep), { force: true });
      };
      let client: Redis | undefined;
      let store: FloorStore | undefined;
      const floorRun = (count: number) => async (rep: number) => {
        await runFloor(store!, count, `wf-${rep}`);
        await client!.quit();
      };
      const m = await measureAll(
        {
          ours: oursWith("ours", "async"),
          oursSync: oursWith("ours-sync", "sync"),
          oursSqlite: {
            warmup: 1,
            warmupMs: context.warmupMs,
            reps: context.reps,
            before: async (rep) => {
              const checkpointer = new SqliteCheckpointer({ path: sqliteFile(rep) });
              await checkpointer.setup();
              sqliteRunner = new Runner({ checkpointer });
            },
            warmupRun: sqliteRun(warmRuns),
            run: sqliteRun(runs),
          },
          floor: {
            warmup: 1,
            warmupMs: context.warmupMs,
            reps: context.reps,
            before: async (rep) => {
              client = new Redis(url);
              await client.ping();
              store = floorStore(client, (lastPrefix["floor"] = prefix("floor", rep)));
            },
            warmupRun: floorRun(warmRuns),
            run: floorRun(runs),
          },
        },
        { onProgress: (message) => progress("redis", message) },
      );
      const ours = timeCell(m.ours, 1 / runs);
      const oursSync = timeCell(m.oursSync, 1 / runs);
      const oursSqlite = timeCell(m.oursSqlite, 1 / runs);
      const floor = timeCell(m.floor, 1 / runs);
      progress(
        "redis",
        `ours ${fmt(ours.value)}, durability sync ${fmt(oursSync.value)}, floor ${fmt(floor.value)} ms/run`,
      );

      const reopened = new RedisCheckpointer({ url, prefix: lastPrefix["ours"]! });
      const oursBytes = await reopened.storageBytes();
      await reopened.close();
      const floorBytes = await memoryBytes(admin, `${lastPrefix["floor"]!}*`);
      progress(
        "redis",
        `bytes per step (MEMORY USAGE): ours ${fmt(oursBytes / steps)}, floor ${fmt(floorBytes / steps)}`,
      );

      return [
        row({
          id: `redis-chain-10x${runs}`,
          workload: "redis",
          label: `Redis: chain of 10 × ${runs} workflows`,
          unit: "ms/run",
          ours,
          floor,
          langgraph: LANGGRAPH_SKIPPED,
          notes: [
            `per run incl. close(); fresh key prefix per repetition; median of ${context.reps}; server ${url}`,
            `ours: default policy (durability async, retention full); durability sync: ${fmt(oursSync.value)} ms/run`,
            "floor: one RPUSH per step and an HSET at start and end, one round trip each",
          ],
          details: { runs, stepsPerRun: DURABLE_LENGTH, oursSync },
        }),
        row({
          id: "redis-vs-sqlite",
          workload: "redis",
          label: `Redis store / SQLite store, chain of 10 × ${runs} workflows (same run)`,
          unit: "×",
          ours: { value: ours.value / oursSqlite.value, cpu: ours.cpu! / oursSqlite.cpu! },
          floor: { skipped: "n/a" },
          langgraph: LANGGRAPH_SKIPPED,
          targets: [{ kind: "max", threshold: 2, description: "Redis ≤ 2× SQLite" }],
          notes: [
            `ours on Redis ${fmt(ours.value)} ms/run vs ours on SQLite ${fmt(oursSqlite.value)} ms/run (default policy, incl. close(); CPU ${fmt(ours.cpu!)} vs ${fmt(oursSqlite.cpu!)})`,
          ],
          details: { redis: ours, sqlite: oursSqlite },
        }),
        row({
          id: "redis-bytes-per-step",
          workload: "redis",
          label: "Redis: memory per step",
          unit: "B/step",
          ours: { value: oursBytes / steps },
          floor: { value: floorBytes / steps },
          langgraph: LANGGRAPH_SKIPPED,
          targets: [{ kind: "max", threshold: 1024, description: "≤ 1 KB/step" }],
          notes: [
            `MEMORY USAGE … SAMPLES 0 summed over the last repetition's keys (indexes included) / ${steps} steps`,
          ],
          details: { steps, oursBytes, floorBytes },
        }),
      ];
    } finally {
      await deleteMatching(admin, `${tag}:*`);
      admin.disconnect();
      progress("redis", "deleted the bench keys");
    }
  },
};
