// Schedules on the queue: BullMQ job schedulers add one job per occurrence; 3 worker processes run each occurrence's
// workflow `<id>/<ISO due time>` exactly once, on time (lateness printed, not asserted). Delayed submits wait.
import fs from "node:fs";
import { InvalidOptionError } from "@graph/runtime";
import { describe, expect, it } from "vitest";
import { chain10, ticker } from "./fixtures/graphs.mjs";
import { sharedPool } from "./fixtures/pool.js";
import { logFile, readLog, type WorkerProcess } from "./fixtures/processes.js";

const shared = sharedPool("redis");
const { startWorker } = shared;
let workers: WorkerProcess[] = [];

interface Tick {
  readonly workflowId: string;
  readonly pid: number;
  readonly start: number;
  readonly end: number;
}

function readTicks(file: string): Tick[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.startsWith("tick "))
    .map((l) => {
      const [, workflowId, pid, start, end] = l.split(" ");
      return { workflowId: workflowId!, pid: Number(pid), start: Number(start), end: Number(end) };
    });
}

const dueOf = (workflowId: string) => Date.parse(workflowId.slice(workflowId.indexOf("/") + 1));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

describe("RemoteRunner.schedule on 3 workers (BullMQ job schedulers)", () => {
  it("fires every occurrence once, on the worker that took its job, with the deterministic workflow id", async () => {
    const log = logFile("schedules");
    workers = await Promise.all([1, 2, 3].map(() => startWorker({ ...shared.env.workerEnv, LOG_FILE: log })));
    const started = Date.now();
    const info = await shared.remote.schedule(ticker, {
      id: "every-second",
      cron: "* * * * * *",
      values: { label: "t" },
    });
    expect(info).toMatchObject({
      id: "every-second",
      cron: "* * * * * *",
      timezone: "UTC",
      graphName: "ticker",
      overlap: "skip",
    });
    expect(info.next!.getTime() % 1000).toBe(0);
    expect((await shared.remote.schedules()).map((s) => s.id)).toEqual(["every-second"]);
    // Calling it again (another submitter starting up) replaces the scheduler: occurrences still run once.
    await shared.remote.schedule(ticker, { id: "every-second", cron: "* * * * * *", values: { label: "t" } });
    await sleep(6_000);
    expect(await shared.remote.removeSchedule("every-second")).toBe(true);
    const removedAt = Date.now();
    expect(await shared.remote.schedules()).toEqual([]);
    expect(await shared.remote.removeSchedule("every-second")).toBe(false);
    await sleep(1_500);
    await Promise.all(workers.map((w) => w.close()));

    const ticks = readTicks(log);
    const ids = ticks.map((t) => t.workflowId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBeGreaterThanOrEqual(4);
    const dues = ids.map(dueOf).sort((a, b) => a - b);
    // Consecutive seconds from the first to the last: no occurrence missing, none twice.
    expect(dues).toEqual(dues.map((_, i) => dues[0]! + i * 1000));
    for (const t of ticks) {
      expect(t.workflowId).toBe(`every-second/${new Date(dueOf(t.workflowId)).toISOString()}`);
      expect(dueOf(t.workflowId)).toBeGreaterThanOrEqual(started - 1000);
      expect(dueOf(t.workflowId)).toBeLessThanOrEqual(removedAt);
      expect(t.start).toBeGreaterThanOrEqual(dueOf(t.workflowId));
      expect((await shared.env.checkpointer.getWorkflow(t.workflowId))?.status).toBe("completed");
    }
    const lateness = ticks.map((t) => t.start - dueOf(t.workflowId)).sort((a, b) => a - b);
    console.log(
      `BullMQ job scheduler lateness (ms, node start − due), n=${lateness.length}: p50 ${percentile(lateness, 50)}, p99 ${percentile(lateness, 99)}, by ${new Set(ticks.map((t) => t.pid)).size} workers`,
    );
  }, 60_000);

  it('overlap "skip": an occurrence whose previous firing still runs is skipped; firings never overlap', async () => {
    const log = logFile("schedules-skip");
    workers = await Promise.all(
      [1, 2, 3].map(() => startWorker({ ...shared.env.workerEnv, LOG_FILE: log, TICK_MS: "2500" })),
    );
    await shared.remote.schedule(ticker, { id: "slow", cron: "* * * * * *", values: { label: "s" } });
    await sleep(7_000);
    await shared.remote.removeSchedule("slow");
    await sleep(3_000);
    await Promise.all(workers.map((w) => w.close()));
    const ticks = readTicks(log).sort((a, b) => a.start - b.start);
    expect(ticks.length).toBeGreaterThanOrEqual(2);
    expect(ticks.length).toBeLessThanOrEqual(3);
    for (let i = 1; i < ticks.length; i++) expect(ticks[i]!.start).toBeGreaterThanOrEqual(ticks[i - 1]!.end);
  }, 60_000);

  it("a firing whose worker was SIGKILLed mid-run is resumed by another worker: each node once, one workflow", async () => {
    const log = logFile("schedules-crash");
    const lease = { LEASE_TTL_MS: "1500", LOCK_MS: "1500" };
    const doomed = await startWorker({ ...shared.env.workerEnv, ...lease, LOG_FILE: log, CRASH_AT: "n5" });
    // One occurrence, 2 s from now (a daily pattern naming that second).
    const due = new Date(Math.ceil((Date.now() + 2_000) / 1000) * 1000);
    const cron = `${due.getUTCSeconds()} ${due.getUTCMinutes()} ${due.getUTCHours()} * * *`;
    await shared.remote.schedule(chain10, { id: "crashy", cron, values: { x: 3, tag: "sc" } });
    await doomed.next((m) => m.type === "node-start" && m.tag === "sc");
    await shared.remote.removeSchedule("crashy");
    const rescuer = await startWorker({ ...shared.env.workerEnv, ...lease, LOG_FILE: log });
    workers = [rescuer];
    await doomed.kill("SIGKILL");
    const workflowId = `crashy/${due.toISOString()}`;
    for (let i = 0; i < 150 && (await shared.env.checkpointer.getWorkflow(workflowId))?.status !== "completed"; i++)
      await sleep(100);
    await rescuer.close();
    expect((await shared.env.checkpointer.getWorkflow(workflowId))?.status).toBe("completed");
    const lines = readLog(log).filter((l) => l.tag === "sc");
    expect(lines.map((l) => l.node)).toEqual([...chain10.nodes.keys()]);
    expect(lines.map((l) => l.pid)).toEqual(
      [...chain10.nodes.keys()].map((_, i) => (i < 5 ? doomed.pid : rescuer.pid)),
    );
  }, 60_000);

  it("refuses a bad schedule at call time with InvalidOptionError", async () => {
    const cases: [object, string, string][] = [
      [{ id: "x", cron: "not a cron" }, "cron", "is not a valid cron pattern"],
      [{ id: "x", cron: "0 * * * *", timezone: "Nowhere/City" }, "timezone", "is not a known IANA time zone"],
      [{ id: "a/b", cron: "0 * * * *" }, "id", "no '/', ':' or spaces"],
      [{ id: "x", cron: "0 * * * *", overlap: "queue" }, "overlap", `"queue" needs runner.schedule() in one process`],
      [{ id: "x", cron: "0 * * * *", catchUp: "latest" }, "catchUp", "catch-up and pause are in-process features"],
    ];
    for (const [options, option, message] of cases) {
      const error = await shared.remote.schedule(ticker, options as never).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidOptionError);
      expect((error as InvalidOptionError).option).toBe(option);
      expect((error as InvalidOptionError).message).toContain(message);
    }
    expect(await shared.remote.schedules()).toEqual([]);
  });
});

describe("RemoteRunner.submit with a delay (BullMQ delayed jobs)", () => {
  it("no worker starts the run before its time; it then runs once", async () => {
    const log = logFile("delayed");
    const [worker] = (workers = [await startWorker({ ...shared.env.workerEnv, LOG_FILE: log })]);
    const submitted = Date.now();
    const delayed = shared.remote.submit(ticker, { delay: 1_500 }, { values: { label: "d" }, workflowId: "delayed-1" });
    const at = shared.remote.submit(
      ticker,
      { startAt: new Date(submitted + 2_500) },
      { values: { label: "a" }, workflowId: "at-1" },
    );
    await sleep(500);
    expect(readTicks(log)).toEqual([]);
    expect((await delayed.result).values).toEqual({ ticked: "d" });
    expect((await at.result).values).toEqual({ ticked: "a" });
    const ticks = readTicks(log);
    expect(ticks.map((t) => t.workflowId).sort()).toEqual(["at-1", "delayed-1"]);
    expect(ticks.find((t) => t.workflowId === "delayed-1")!.start).toBeGreaterThanOrEqual(submitted + 1_500);
    expect(ticks.find((t) => t.workflowId === "at-1")!.start).toBeGreaterThanOrEqual(submitted + 2_500);
    await worker!.close();
    expect(() => shared.remote.submit(ticker, { delay: -1 }, { values: { label: "x" } })).toThrow(
      /option 'delay' must be/,
    );
  }, 30_000);
});
