// Frames pipelines on the pool (frames.distribute): the generator is pulled in the run's worker, frames run as chunk
// jobs on every worker with at most `window` frames unfinished across the pool, results in frame order; a worker
// SIGKILLed while running a frame chunk, and the worker pulling the generator SIGKILLed mid-stream.
import type { Checkpointer } from "@graph/checkpoint";
import { type GraphEvent, Runner } from "@graph/runtime";
import { Queue } from "bullmq";
import { describe, expect, it, vi } from "vitest";
import { RemoteRunner } from "../src/index.js";
import { testEnv } from "./fixtures/env.js";
import { pagesFlow } from "./fixtures/graphs.mjs";
import { poolTest } from "./fixtures/pool.js";
import { logFile, readLog, startWorker } from "./fixtures/processes.js";

const pool = poolTest();

const PAGES = 200;
const WINDOW = 16;
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** Per page: the pids of its finished frames (one entry per time its pipeline ran to the end). */
function finishes(log: string): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const l of readLog(log))
    if (l.node === "frame-end") out.set(Number(l.tag), [...(out.get(Number(l.tag)) ?? []), l.pid]);
  return out;
}

/** The most pages between their first start and their last end at once, in the log's (global) order. */
function peakInFlight(log: string): number {
  const lines = readLog(log);
  const lastEnd = new Map<string, number>();
  lines.forEach((l, k) => {
    if (l.node === "frame-end") lastEnd.set(l.tag, k);
  });
  const open = new Set<string>();
  let peak = 0;
  lines.forEach((l, k) => {
    if (l.node === "frame-start") open.add(l.tag);
    peak = Math.max(peak, open.size);
    if (lastEnd.get(l.tag) === k) open.delete(l.tag);
  });
  return peak;
}

/** The pages whose child workflow is stored completed now. */
async function storedFinished(checkpointer: Checkpointer, workflowId: string): Promise<Set<number>> {
  const statuses = await Promise.all(
    range(PAGES).map(async (i) => (await checkpointer.getWorkflow(`${workflowId}/pages/${i}`))?.status),
  );
  return new Set(range(PAGES).filter((i) => statuses[i] === "completed"));
}

async function jobCounts(queue: string): Promise<Record<string, number>> {
  const q = new Queue(queue, { connection: { url: pool.env!.redisUrl, maxRetriesPerRequest: null }, prefix: "graph" });
  try {
    return await q.getJobCounts("waiting", "active", "delayed", "waiting-children", "prioritized");
  } finally {
    await q.close();
  }
}

/** Every job of the queue eventually gone (a chunk job completes just after its last frame reported). */
async function noJobsLeft(queue: string): Promise<void> {
  const none = { waiting: 0, active: 0, delayed: 0, "waiting-children": 0, prioritized: 0 };
  await vi.waitFor(async () => expect(await jobCounts(queue)).toEqual(none), { timeout: 15_000, interval: 100 });
}

async function collect<T>(events: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const e of events) out.push(e);
  return out;
}

const expected = {
  written: range(PAGES),
  vector: range(PAGES).map((i) => [i, i * 2]),
  total: PAGES,
};

describe("a frames pipeline on the worker pool", () => {
  it("200 pages, window 16, on 3 workers: every page once, in order, ≤ 16 in flight, on several workers", async () => {
    pool.env = await testEnv("redis");
    const log = logFile("frames");
    const options = { ...pool.env.workerEnv, LOG_FILE: log, FRAMES_CHUNK: "4" };
    pool.workers = await Promise.all([startWorker(options), startWorker(options), startWorker(options)]);
    pool.remote = new RemoteRunner(pool.env.submitter);
    const t0 = Date.now();
    const handle = pool.remote.start(pagesFlow, { values: { count: PAGES }, workflowId: "fr1" });
    const events = collect(handle.events);
    const result = await handle.result;
    const wall = Date.now() - t0;
    const local = await new Runner().run(pagesFlow, { values: { count: PAGES } });
    expect(result.status).toBe("completed");
    expect(result.values.written).toEqual(expected.written);
    expect(result.values.vector).toEqual(expected.vector);
    expect(result.values.total).toBe(PAGES);
    expect(result.values.written).toEqual(local.values.written);
    const runs = finishes(log);
    expect([...runs.keys()].sort((a, b) => a - b)).toEqual(range(PAGES));
    expect([...runs.values()].every((pids) => pids.length === 1)).toBe(true);
    const peak = peakInFlight(log);
    expect(peak).toBeGreaterThanOrEqual(2);
    expect(peak).toBeLessThanOrEqual(WINDOW);
    const pids = new Set([...runs.values()].flat());
    expect(pids.size).toBeGreaterThanOrEqual(2);
    // The frames ran as child workflows named as in-process: one step per per-frame node.
    for (const i of [0, 77, 199]) {
      const steps = (await pool.env.checkpointer.getSteps(`fr1/pages/${i}`)).filter((s) => s.kind !== "input");
      expect(steps.map((s) => [s.nodeName, s.values])).toEqual([
        ["embed", { vector: [i, i * 2] }],
        ["store", { written: i }],
      ]);
    }
    // The run did not park; the frames node reported each finished frame, and the per-frame runs' events are in the
    // run's stream as in one process: the same events per frame workflow, under the run's id and span tree.
    const seen = await events;
    const localEvents: GraphEvent[] = [];
    const localRunner = new Runner({ checkpointer: pool.env.checkpointer, closeCheckpointer: false });
    for await (const e of localRunner.stream(pagesFlow, { values: { count: PAGES }, workflowId: "fr1-local" }))
      localEvents.push(e as GraphEvent);
    await localRunner.close();
    const perFrame = (all: readonly GraphEvent[], id: string) =>
      all
        .filter((e) => e.workflowId?.startsWith(`${id}/pages/`))
        .map((e) => `${e.type} ${"nodeName" in e ? e.nodeName : ""} ${e.workflowId!.slice(id.length)}`)
        .sort();
    const forwarded = perFrame(seen as GraphEvent[], "fr1");
    expect(forwarded.filter((e) => e.startsWith("NodeEnd embed "))).toHaveLength(PAGES);
    expect(forwarded).toEqual(perFrame(localEvents, "fr1-local"));
    const runId = seen.find((e) => e.type === "RunStart" && e.workflowId === "fr1")!.runId;
    const spans = new Set(seen.map((e) => e.spanId));
    for (const e of seen.filter((x) => x.workflowId?.startsWith("fr1/pages/"))) {
      expect(e.runId).toBe(runId);
      expect(spans.has(e.parentSpanId!)).toBe(true);
    }
    expect(seen.filter((e) => e.type === "Paused")).toEqual([]);
    const progress = seen.filter((e) => e.type === "MapProgress");
    expect(progress).toHaveLength(PAGES);
    expect(progress.at(-1)).toMatchObject({ nodeName: "pages", completed: PAGES, total: PAGES });
    await noJobsLeft(pool.env.queue);
    console.log(
      `frames on the pool: ${PAGES} pages (15 ms each) in ${wall} ms on ${pids.size} workers, peak ${peak} in flight ` +
        `(per worker: ${[...pids].map((p) => [...runs.values()].filter((x) => x[0] === p).length).join("/")})`,
    );
  }, 120_000);

  it("a worker SIGKILLed while running a frame chunk: the chunk is delivered again, no finished frame runs again", async () => {
    pool.env = await testEnv("redis");
    const log = logFile("frames-chunk-kill");
    const options = {
      ...pool.env.workerEnv,
      LOG_FILE: log,
      FRAMES_CHUNK: "4",
      LEASE_TTL_MS: "1500",
      LOCK_MS: "1500",
      CRASH_FRAME: "60",
    };
    pool.workers = await Promise.all([startWorker(options), startWorker(options), startWorker(options)]);
    pool.remote = new RemoteRunner(pool.env.submitter);
    const handle = pool.remote.start(pagesFlow, {
      values: { count: PAGES },
      workflowId: "fr2",
    });
    // All three may run chunks; the first page ≥ 60 that runs outside the pulling worker hangs its worker.
    const hung = await Promise.race(
      pool.workers.map((w) =>
        w.next((m) => m.type === "node-start" && m.node === "embed", 90_000).then((m) => [w, m] as const),
      ),
    );
    const [doomed, message] = hung;
    const finishedAtKill = await storedFinished(pool.env.checkpointer, "fr2");
    await doomed.kill("SIGKILL");
    const result = await handle.result;
    expect(result.status).toBe("completed");
    expect(result.values.written).toEqual(expected.written);
    expect(result.values.total).toBe(PAGES);
    const runs = finishes(log);
    expect([...runs.keys()].sort((a, b) => a - b)).toEqual(range(PAGES));
    // No frame stored finished before the kill ran again.
    for (const i of finishedAtKill) expect(runs.get(i)).toHaveLength(1);
    // The hung frame finished once, elsewhere; frames run twice were in flight on the killed worker.
    const hungPage = Number(message.tag);
    expect(runs.get(hungPage)).toHaveLength(1);
    expect(runs.get(hungPage)![0]).not.toBe(doomed.pid);
    const twice = [...runs.entries()].filter(([, pids]) => pids.length > 1);
    expect(twice.every(([, pids]) => pids.length === 2 && pids[0] === doomed.pid && pids[1] !== doomed.pid)).toBe(true);
    expect(twice.length).toBeLessThanOrEqual(WINDOW);
    console.log(
      `frames chunk SIGKILL: page ${hungPage} hung, ${finishedAtKill.size} stored finished at the kill, ` +
        `${twice.length} pages ran twice`,
    );
  }, 180_000);

  it("the worker pulling the generator SIGKILLed mid-stream: the run resumes on another, finished frames skipped", async () => {
    pool.env = await testEnv("redis");
    const log = logFile("frames-pull-kill");
    // Frames of 300 ms: a window of them is still running (here and on the others) when the puller dies.
    const options = {
      ...pool.env.workerEnv,
      LOG_FILE: log,
      FRAMES_CHUNK: "4",
      FRAME_MS: "300",
      LEASE_TTL_MS: "1500",
      LOCK_MS: "1500",
    };
    const doomed = await startWorker({ ...options, PULL_NOTIFY: "1", PULL_HANG: "80" });
    pool.workers = [doomed];
    pool.remote = new RemoteRunner(pool.env.submitter);
    const handle = pool.remote.start(pagesFlow, { values: { count: PAGES }, workflowId: "fr3" });
    await doomed.next((m) => m.type === "pulled" && m.tag === "0", 60_000);
    pool.workers.push(...(await Promise.all([startWorker(options), startWorker(options)])));
    await doomed.next((m) => m.type === "pulled" && m.tag === "80", 90_000);
    await doomed.kill("SIGKILL");
    const finishedAtKill = await storedFinished(pool.env.checkpointer, "fr3");
    const startedAtKill = new Set(
      readLog(log)
        .filter((l) => l.node === "frame-start")
        .map((l) => Number(l.tag)),
    );
    const result = await handle.result;
    expect(result.status).toBe("completed");
    expect(result.values.written).toEqual(expected.written);
    expect(result.values.vector).toEqual(expected.vector);
    expect(result.values.total).toBe(PAGES);
    expect(finishedAtKill.size).toBeGreaterThanOrEqual(80 - WINDOW);
    // Pages 0–79 were pulled; on a loaded machine all of them may have finished before the store was read.
    expect(finishedAtKill.size).toBeLessThanOrEqual(80);
    expect(startedAtKill.size).toBeGreaterThanOrEqual(finishedAtKill.size);
    const runs = finishes(log);
    expect([...runs.keys()].sort((a, b) => a - b)).toEqual(range(PAGES));
    for (const i of finishedAtKill) expect(runs.get(i)).toHaveLength(1);
    // Only frames in flight at the kill (at most a window of them) ran twice.
    const twice = [...runs.entries()].filter(([, pids]) => pids.length > 1);
    expect(twice.length).toBeLessThanOrEqual(WINDOW);
    // The killed worker never pulled page 80 (it hung there): that page and every later one ran on the rescuers.
    expect(range(PAGES - 80).every((k) => !runs.get(80 + k)!.includes(doomed.pid))).toBe(true);
    expect(twice.every(([i]) => i < 80)).toBe(true);
    expect((await pool.env.checkpointer.getWorkflow("fr3"))?.status).toBe("completed");
    console.log(
      `frames generator SIGKILL at page 80: ${finishedAtKill.size} pages stored finished, ${startedAtKill.size} started at the kill, ` +
        `${twice.length} ran twice`,
    );
  }, 180_000);

  it("a failing frame fails the run as in one process (the frame named); a stop removes the queued chunks", async () => {
    pool.env = await testEnv("redis");
    const log = logFile("frames-fail-stop");
    const options = { ...pool.env.workerEnv, LOG_FILE: log, FRAMES_CHUNK: "4", FAIL_FRAME: "37" };
    pool.workers = await Promise.all([startWorker(options), startWorker(options)]);
    pool.remote = new RemoteRunner(pool.env.submitter);
    process.env["FAIL_FRAME"] = "37"; // the same failure in this process, for the in-process reference
    const local = await new Runner()
      .run(pagesFlow, { values: { count: PAGES } })
      .catch((e: unknown) => e)
      .finally(() => delete process.env["FAIL_FRAME"]);
    expect((local as Error).message).toBe("Node 'pages[37]/embed' failed: page 37 is unreadable");
    const error = await pool.remote
      .run(pagesFlow, { values: { count: PAGES }, workflowId: "fr4" })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ _tag: "RemoteRunError", remoteTag: "NodeExecutionError" });
    expect((error as Error).message).toBe((local as Error).message);
    // The stream ended early: pages go on only while the failure is on its way back (as in one process).
    const started = readLog(log).filter((l) => l.node === "frame-start");
    expect(Math.max(...started.map((l) => Number(l.tag)))).toBeLessThan(37 + 4 * WINDOW);
    await Promise.all(pool.workers.map((w) => w.kill()));

    // A stop: slow frames (500 ms), one worker slot for chunks besides the run's; stop at page 20's start.
    const stopLog = logFile("frames-stop");
    const slow = { ...pool.env.workerEnv, LOG_FILE: stopLog, FRAMES_CHUNK: "2", FRAME_MS: "500", NOTIFY_FRAME: "20" };
    pool.workers = [await startWorker({ ...slow, CONCURRENCY: "2" })];
    const handle = pool.remote.start(pagesFlow, { values: { count: PAGES }, workflowId: "fr5" });
    await pool.workers[0]!.next((m) => m.type === "node-start" && m.tag === "20", 60_000);
    await pool.remote.stop("fr5", { by: "test" });
    const result = await handle.result;
    expect(result.status).toBe("stopped");
    const ran = new Set(
      readLog(stopLog)
        .filter((l) => l.node === "frame-start")
        .map((l) => Number(l.tag)),
    );
    // Nothing past the window of the stop ran: the queued chunks were removed, the generator was not pulled further.
    expect(Math.max(...ran)).toBeLessThan(20 + WINDOW);
    await noJobsLeft(pool.env.queue);
  }, 180_000);

  it("a run holding the pool's only slot: its chunks, taken by no worker, run in its own worker", async () => {
    pool.env = await testEnv("redis");
    const log = logFile("frames-steal");
    const options = {
      ...pool.env.workerEnv,
      LOG_FILE: log,
      FRAMES_CHUNK: "4",
      FRAMES_STEAL_MS: "200",
      CONCURRENCY: "1",
    };
    const only = await startWorker(options);
    pool.workers = [only];
    pool.remote = new RemoteRunner(pool.env.submitter);
    const result = await pool.remote.run(pagesFlow, { values: { count: 40 }, workflowId: "fr6" });
    expect(result.status).toBe("completed");
    expect(result.values.written).toEqual(range(40));
    const runs = finishes(log);
    expect([...runs.keys()].sort((a, b) => a - b)).toEqual(range(40));
    expect([...runs.values()].every((pids) => pids.length === 1 && pids[0] === only.pid)).toBe(true);
    expect(peakInFlight(log)).toBeLessThanOrEqual(WINDOW);
    await noJobsLeft(pool.env.queue);
  }, 120_000);
});
