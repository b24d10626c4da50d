// Distributed mapOver of a mapped GraphNode inside a workflow run by workers (map.distribute): chunk jobs under the
// run's job, the run parked meanwhile, results gathered in item order; a worker SIGKILLed mid-chunk; small maps in
// the run's process; raise / continue; a stop removes the pending chunks.
import { Runner } from "@graph/runtime";
import { Queue } from "bullmq";
import { describe, expect, it } from "vitest";
import { type RemoteRunError, RemoteRunner } from "../src/index.js";
import { testEnv } from "./fixtures/env.js";
import { limitedMap, mapFlow } from "./fixtures/graphs.mjs";
import { poolTest } from "./fixtures/pool.js";
import { logFile, readLog, startWorker } from "./fixtures/processes.js";

const pool = poolTest();

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** How often each item's node ran, from the node log. */
function executions(log: string): Map<number, { count: number; pids: number[] }> {
  const counts = new Map<number, { count: number; pids: number[] }>();
  for (const l of readLog(log)) {
    const e = counts.get(Number(l.tag)) ?? { count: 0, pids: [] };
    e.count++;
    e.pids.push(l.pid);
    counts.set(Number(l.tag), e);
  }
  return counts;
}

async function jobCounts(queue: string): Promise<Record<string, number>> {
  const q = new Queue(queue, { connection: { url: pool.env!.redisUrl, maxRetriesPerRequest: null }, prefix: "graph" });
  try {
    return await q.getJobCounts("waiting", "active", "delayed", "waiting-children", "prioritized");
  } finally {
    await q.close();
  }
}

describe("a distributed mapOver with a concurrency limit", () => {
  it("100 items, concurrency 3, chunks of 10 on 3 workers: never more than 3 items running across the pool", {
    timeout: 60_000,
  }, async () => {
    pool.env = await testEnv("redis");
    const log = logFile("limited");
    const options = { ...pool.env.workerEnv, LOG_FILE: log, MAP_MIN_ITEMS: "10", MAP_CHUNK_SIZE: "10" };
    pool.workers = await Promise.all([startWorker(options), startWorker(options), startWorker(options)]);
    pool.remote = new RemoteRunner(pool.env.submitter);
    const xs = range(100);
    const handle = pool.remote.start(limitedMap, { values: { x: xs }, workflowId: "limited1" });
    const events = collect(handle.events);
    const result = await handle.result;
    expect(result.status).toBe("completed");
    expect(result.values.y).toEqual(xs.map((x) => x + 1));
    let running = 0;
    let peak = 0;
    const started = new Set<string>();
    for (const line of readLog(log)) {
      if (line.node === "pace-start") {
        started.add(line.tag);
        peak = Math.max(peak, ++running);
      } else if (line.node === "pace-end") running--;
    }
    expect(started.size).toBe(100);
    expect(peak).toBeLessThanOrEqual(3);
    // The map went to chunk jobs rather than running in the run's process.
    expect((await events).filter((e) => e.type === "Paused")).toEqual([
      expect.objectContaining({ reason: "map_dispatched", value: { items: 100 } }),
    ]);
  });
});

describe("distributed mapOver of a mapped GraphNode", () => {
  it("10,000 items in chunks of 100 on 3 workers, one SIGKILLed mid-chunk: every item once, in order", async () => {
    pool.env = await testEnv("redis");
    const log = logFile("nodemap");
    const options = {
      ...pool.env.workerEnv,
      LOG_FILE: log,
      LEASE_TTL_MS: "1500",
      LOCK_MS: "1500",
      MAP_MIN_ITEMS: "1000",
      MAP_CHUNK_SIZE: "100",
    };
    const doomed = await startWorker({ ...options, CRASH_ITEM: "150" });
    pool.workers = [doomed];
    pool.remote = new RemoteRunner(pool.env.submitter);
    const xs = range(10_000);
    const handle = pool.remote.start(mapFlow, { values: { x: xs }, workflowId: "nm1" });
    await doomed.next((m) => m.type === "node-start" && m.tag === "150", 60_000);
    const rescuers = await Promise.all([startWorker(options), startWorker(options)]);
    pool.workers.push(...rescuers);
    await doomed.kill("SIGKILL");
    const result = await handle.result;
    const local = await new Runner().run(mapFlow, { values: { x: xs } });
    expect(result.status).toBe("completed");
    expect(result.values.y).toEqual(local.values.y);
    expect(result.values.y).toEqual(xs.map((x) => x * x));
    expect(result.values.total).toBe(local.values.total);
    expect((await pool.env.checkpointer.getWorkflow("nm1"))?.status).toBe("completed");
    // The run parked once (its job waited for the chunks without a slot), then resumed and went on.
    const paused = (await collect(handle.events)).filter((e) => e.type === "Paused");
    expect(paused).toEqual([
      expect.objectContaining({ reason: "map_dispatched", nodeName: "squares", value: { items: 10_000 } }),
    ]);
    const runs = executions(log);
    expect([...runs.keys()].sort((a, b) => a - b)).toEqual(xs);
    // Run twice: only items in flight on the killed worker (its chunks not finished: 4 chunks × 16 lanes at most),
    // first on it, then on a rescuer. Chunks it finished were not run again: no item of theirs ran twice.
    const twice = [...runs.entries()].filter(([, e]) => e.count > 1);
    expect(twice.every(([, e]) => e.count === 2 && e.pids[0] === doomed.pid && e.pids[1] !== doomed.pid)).toBe(true);
    expect(twice.length).toBeLessThanOrEqual(64);
    const chunksOfDoomed = new Set(twice.map(([x]) => Math.floor(x / 100)));
    expect(chunksOfDoomed.size).toBeLessThanOrEqual(4);
    // The chunk that hung (items 100..199) was delivered again: its items the killed worker had finished were
    // resumed from the checkpointer, not run again; item 150 ran once, on a rescuer.
    const chunk1 = range(100).map((k) => runs.get(100 + k)!);
    expect(chunk1.filter((e) => e.pids[0] === doomed.pid).length).toBeGreaterThan(0);
    expect(runs.get(150)!.count).toBe(1);
    expect(runs.get(150)!.pids[0]).not.toBe(doomed.pid);
    expect(new Set([...runs.values()].flatMap((e) => e.pids)).size).toBeGreaterThanOrEqual(2);
    // Every item's child workflow: one step of its node, written once (item ids as the in-process path names them).
    for (const i of [0, 150, 4321, 9999]) {
      const steps = (await pool.env.checkpointer.getSteps(`nm1/squares/${i}`)).filter((s) => s.kind !== "input");
      expect(steps.map((s) => [s.nodeName, s.values])).toEqual([["square", { y: i * i }]]);
    }
    expect(await jobCounts(pool.env.queue)).toEqual({
      waiting: 0,
      active: 0,
      delayed: 0,
      "waiting-children": 0,
      prioritized: 0,
    });
    console.log(`node map SIGKILL: ${twice.length} of ${xs.length} items ran twice`);
  }, 300_000);

  it("below minItems the map runs in the run's process: no chunk jobs, no park", async () => {
    pool.env = await testEnv("redis");
    const log = logFile("nodemap-small");
    const options = { ...pool.env.workerEnv, LOG_FILE: log, MAP_MIN_ITEMS: "50", MAP_CHUNK_SIZE: "5" };
    pool.workers = await Promise.all([startWorker(options), startWorker(options)]);
    pool.remote = new RemoteRunner(pool.env.submitter);
    const xs = range(49);
    const handle = pool.remote.start(mapFlow, { values: { x: xs }, workflowId: "nm2" });
    const result = await handle.result;
    expect(result.status).toBe("completed");
    expect(result.values.y).toEqual(xs.map((x) => x * x));
    const events = await collect(handle.events);
    expect(events.filter((e) => e.type === "Paused")).toEqual([]);
    expect(events.filter((e) => e.type === "RunStart" && e.workflowId === "nm2")).toHaveLength(1);
    const pids = new Set(readLog(log).map((l) => l.pid));
    expect(pids.size).toBe(1);
    expect(readLog(log)).toHaveLength(49);
  }, 60_000);

  it('"raise" fails the run on the first failed item in item order; "continue" records each item', async () => {
    pool.env = await testEnv("redis");
    const options = { ...pool.env.workerEnv, MAP_MIN_ITEMS: "10", MAP_CHUNK_SIZE: "5" };
    pool.workers = await Promise.all([startWorker(options), startWorker(options)]);
    pool.remote = new RemoteRunner(pool.env.submitter);
    const xs = range(30).map((x) => (x === 7 || x === 23 ? -x : x));
    const local = await new Runner().run(mapFlow, { values: { x: xs } }).catch((e: unknown) => e);
    const error = await pool.remote.run(mapFlow, { values: { x: xs }, workflowId: "nm3" }).catch((e: unknown) => e);
    expect(error).toMatchObject({ _tag: "RemoteRunError", remoteTag: "NodeExecutionError" });
    expect((local as { _tag: string })._tag).toBe("NodeExecutionError");
    expect((error as Error).message).toBe((local as Error).message);
    expect((error as Error).message).toBe("Node 'squares[7]/square' failed: negative: -7");
    expect((error as RemoteRunError).cause).toMatchObject({
      name: "NodeExecutionError",
      message: "Node 'squares[7]/square' failed: negative: -7",
      nodeName: "squares[7]/square",
    });
    const kept = await pool.remote.run(mapFlow, { values: { x: xs }, workflowId: "nm4", errorHandling: "continue" });
    expect(kept.status).toBe("failed");
    expect((kept.error as Error).message).toBe("Node 'squares[7]/square' failed: negative: -7");
    expect(kept.values.total).toBeUndefined();
    const statuses = await Promise.all(
      xs.map(async (_, i) => (await pool.env!.checkpointer.getWorkflow(`nm4/squares/${i}`))?.status),
    );
    expect(statuses).toEqual(xs.map((x) => (x < 0 ? "failed" : "completed")));
    const failed = await pool.env.checkpointer.getWorkflow("nm4/squares/23");
    expect(failed?.error?.message).toContain("negative: -23");
  }, 90_000);

  it("a stop of the parked run removes its pending chunk jobs; the run ends stopped", async () => {
    pool.env = await testEnv("redis");
    const log = logFile("nodemap-stop");
    const worker = await startWorker({
      ...pool.env.workerEnv,
      LOG_FILE: log,
      CONCURRENCY: "1",
      ITEM_DELAY_MS: "20",
      NOTIFY_ITEM: "0",
      MAP_MIN_ITEMS: "10",
      MAP_CHUNK_SIZE: "10",
    });
    pool.workers = [worker];
    pool.remote = new RemoteRunner(pool.env.submitter);
    const handle = pool.remote.start(mapFlow, { values: { x: range(400) }, workflowId: "nm5" });
    await worker.next((m) => m.type === "node-start" && m.tag === "0");
    const before = await jobCounts(pool.env.queue);
    expect(before["waiting-children"]).toBe(1); // the parked run
    expect(before.waiting).toBeGreaterThanOrEqual(38); // 40 chunks, one running (and maybe one just taken)
    await pool.remote.stop("nm5", { by: "test" });
    const result = await handle.result;
    expect(result.status).toBe("stopped");
    // Only the chunk running when the stop came ran (and stopped between items), nothing after it.
    const ran = [...executions(log).keys()];
    expect(ran.length).toBeGreaterThanOrEqual(1);
    expect(ran.every((x) => x < 20)).toBe(true);
    expect(await jobCounts(pool.env.queue)).toEqual({
      waiting: 0,
      active: 0,
      delayed: 0,
      "waiting-children": 0,
      prioritized: 0,
    });
  }, 60_000);
});

async function collect<T>(events: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const e of events) out.push(e);
  return out;
}
