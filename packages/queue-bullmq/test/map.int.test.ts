// RemoteRunner.map: items in chunk jobs on worker processes, results in item order from the checkpointer; raise /
// continue; a worker SIGKILLed mid-chunk: every item's result present once, in order, finished items not re-run.
import { Runner } from "@graph/runtime";
import { describe, expect, it } from "vitest";
import { type RemoteRunError, RemoteRunner } from "../src/index.js";
import { testEnv } from "./fixtures/env.js";
import { squares } from "./fixtures/graphs.mjs";
import { poolTest } from "./fixtures/pool.js";
import { logFile, readLog, startWorker } from "./fixtures/processes.js";

const pool = poolTest();

const range = (n: number, from = 0) => Array.from({ length: n }, (_, i) => from + i);

describe("RemoteRunner.map", () => {
  it("1,000 items in chunks of 100 on 2 workers equal runner.map, each item run once", async () => {
    pool.env = await testEnv("redis");
    const log = logFile("map");
    pool.workers = await Promise.all([1, 2].map(() => startWorker({ ...pool.env!.workerEnv, LOG_FILE: log })));
    pool.remote = new RemoteRunner(pool.env.submitter);
    const xs = range(1000);
    const result = await pool.remote.map(squares, {
      values: { x: xs },
      mapOver: "x",
      chunkSize: 100,
      workflowId: "m1",
    });
    const local = await new Runner().map(squares, { values: { x: xs }, mapOver: "x" });
    expect(result.status).toBe("completed");
    expect(result.values).toEqual(local.values);
    expect(result.results.map((r) => r.workflowId)).toEqual(xs.map((i) => `m1/${i}`));
    const lines = readLog(log);
    expect(lines.map((l) => Number(l.tag)).sort((a, b) => a - b)).toEqual(xs);
    expect(new Set(lines.map((l) => l.pid)).size).toBe(2);
  }, 120_000);

  it('"raise" rejects with the first failed item error; "continue" returns every result', async () => {
    pool.env = await testEnv("redis");
    pool.workers = [await startWorker(pool.env.workerEnv)];
    pool.remote = new RemoteRunner(pool.env.submitter);
    const xs = [1, 2, -3, 4, -5];
    const error = await pool.remote
      .map(squares, { values: { x: xs }, mapOver: "x", chunkSize: 2, workflowId: "m2" })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ _tag: "RemoteRunError", remoteTag: "NodeExecutionError", remote: true });
    expect((error as RemoteRunError).cause).toMatchObject({ name: "NodeExecutionError" });
    expect((error as Error).message).toContain("negative: -3");
    const result = await pool.remote.map(squares, {
      values: { x: xs },
      mapOver: "x",
      chunkSize: 2,
      workflowId: "m3",
      errorHandling: "continue",
    });
    expect(result.status).toBe("failed");
    expect(result.results.map((r) => r.status)).toEqual(["completed", "completed", "failed", "completed", "failed"]);
    expect(result.values.y).toEqual([1, 4, undefined, 16, undefined]);
  }, 60_000);

  it("a worker SIGKILLed mid-chunk: every item once, in order; finished items are not run again", async () => {
    pool.env = await testEnv("redis");
    const log = logFile("mapcrash");
    const options = { ...pool.env.workerEnv, LOG_FILE: log, LEASE_TTL_MS: "1500", LOCK_MS: "1500" };
    const doomed = await startWorker({ ...options, CRASH_ITEM: "1234" });
    pool.workers = [doomed];
    pool.remote = new RemoteRunner(pool.env.submitter);
    const xs = range(3000);
    const pending = pool.remote.map(squares, { values: { x: xs }, mapOver: "x", chunkSize: 100, workflowId: "m4" });
    await doomed.next((m) => m.type === "node-start" && m.tag === "1234", 60_000);
    const rescuer = await startWorker(options);
    pool.workers.push(rescuer);
    await doomed.kill("SIGKILL");
    const result = await pending;
    expect(result.status).toBe("completed");
    expect(result.values.y).toEqual(xs.map((x) => x * x));
    const counts = new Map<number, number>();
    for (const l of readLog(log)) counts.set(Number(l.tag), (counts.get(Number(l.tag)) ?? 0) + 1);
    expect([...counts.keys()].sort((a, b) => a - b)).toEqual(xs);
    // Only items in flight when the worker died run twice (at most 4 chunks × 16 items at once).
    const twice = [...counts.entries()].filter(([, n]) => n > 1);
    expect(twice.every(([, n]) => n === 2)).toBe(true);
    expect(twice.length).toBeLessThanOrEqual(64);
    console.log(`map SIGKILL: ${twice.length} of ${xs.length} items ran twice`);
  }, 180_000);

  it("a stopped map runs no more chunks: pending items never start, the result is stopped", async () => {
    pool.env = await testEnv("redis");
    const log = logFile("mapstop");
    const options = { ...pool.env.workerEnv, LOG_FILE: log, CONCURRENCY: "1", ITEM_DELAY_MS: "20", NOTIFY_ITEM: "0" };
    const worker = await startWorker(options);
    pool.workers = [worker];
    pool.remote = new RemoteRunner(pool.env.submitter);
    const xs = range(400);
    const pending = pool.remote.map(squares, {
      values: { x: xs },
      mapOver: "x",
      chunkSize: 10,
      workflowId: "m5",
      errorHandling: "continue",
    });
    await worker.next((m) => m.type === "node-start" && m.tag === "0");
    await pool.remote.stop("m5");
    const result = await pending;
    expect(result.status).toBe("stopped");
    const ran = new Set(readLog(log).map((l) => Number(l.tag)));
    // At most the chunk running when the stop arrived (and the one after, if it had just been taken) finished.
    expect(ran.size).toBeLessThanOrEqual(20);
    expect(result.results.filter((r) => r.status === "completed").length).toBe(ran.size);
    for (const [i, r] of result.results.entries()) if (!ran.has(i)) expect(r.status).toBe("stopped");
  }, 60_000);
});
