// Run-level keys on a pool of real worker processes sharing one Redis checkpointer: `RemoteRunner.submit(graph,
// { concurrency: { key, limit } })` and the worker's `runLimits` default. A run over its key's limit waits in BullMQ's
// delayed set — not in a worker slot —, the permits are the store's leased slots (a SIGKILLed worker's come back
// after the lease), and the options are checked before anything is written.
import { isInvalidOptionError } from "@graph/runtime";
import { describe, expect, it } from "vitest";
import { GraphWorker, RemoteRunner } from "../src/index.js";
import { calls, peak } from "./fixtures/calls.js";
import { testEnv } from "./fixtures/env.js";
import { chain10, holding, runFlow } from "./fixtures/graphs.mjs";
import { poolTest } from "./fixtures/pool.js";
import { logFile, readLog, startWorker } from "./fixtures/processes.js";

const pool = poolTest();

const poolOptions = (log: string, extra: Record<string, string> = {}) => ({
  ...pool.env!.workerEnv,
  LOG_FILE: log,
  CONCURRENCY: "8",
  LEASE_TTL_MS: "1500",
  LOCK_MS: "1500",
  REPLY_MS: "60",
  ...extra,
});

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("run-level keys across worker processes", () => {
  it("a run waiting for its key holds no worker slot: with 2 slots, a key-B run passes a waiting key-A run; a waiting run can be stopped", {
    timeout: 60_000,
  }, async () => {
    pool.env = await testEnv("redis");
    const log = logFile("slots");
    const worker = await startWorker(poolOptions(log, { CONCURRENCY: "2" }));
    pool.workers = [worker];
    pool.remote = new RemoteRunner(pool.env.submitter);
    const keyA = { concurrency: { key: "A", limit: 1 } } as const;
    const holder = pool.remote.submit(holding, keyA, { values: { tag: "a1" }, workflowId: "slots-a1" });
    await worker.next((m) => m.type === "node-start" && m.tag === "a1");
    const waiting = pool.remote.submit(holding, keyA, { values: { tag: "a2" }, workflowId: "slots-a2" });
    await tick(300); // a2 has been taken and moved back to the delayed set a few times
    // The worker's other slot is free: key B's run goes through while a2 waits.
    const b = await pool.remote.submit(
      chain10,
      { concurrency: { key: "B", limit: 1 } },
      {
        values: { x: 1, tag: "b" },
        workflowId: "slots-b",
      },
    ).result;
    expect(b.status).toBe("completed");
    expect(
      readLog(log)
        .filter((l) => l.node === "hold")
        .map((l) => l.tag),
    ).toEqual(["a1"]);
    // Stopping the waiting run ends it without its node running, and without taking the permit.
    expect(await pool.remote.stop("slots-a2", { reason: "not needed" })).toBe(true);
    expect((await waiting.result).status).toBe("stopped");
    expect(
      readLog(log)
        .filter((l) => l.node === "hold")
        .map((l) => l.tag),
    ).toEqual(["a1"]);
    await pool.remote.stop("slots-a1");
    expect((await holder.result).status).toBe("stopped");
    // The permit is back: the next run of A starts.
    const next = pool.remote.submit(holding, keyA, { values: { tag: "a3" }, workflowId: "slots-a3" });
    await worker.next((m) => m.type === "node-start" && m.tag === "a3");
    await pool.remote.stop("slots-a3");
    expect((await next.result).status).toBe("stopped");
  });

  it("a worker SIGKILLed while holding both run permits of a key: they come back within the lease, never more than 2 runs at once", {
    timeout: 60_000,
  }, async () => {
    pool.env = await testEnv("redis");
    const log = logFile("runkill");
    const doomed = await startWorker(poolOptions(log, { REPLY_HOLD: "acme" }));
    pool.workers = [doomed];
    pool.remote = new RemoteRunner(pool.env.submitter);
    const submit = (ticket: number) =>
      pool.remote!.submit(
        runFlow,
        { concurrency: { key: "acme", limit: 2 } },
        {
          values: { tenantId: "acme", ticket },
          workflowId: `runkill-${ticket}`,
        },
      ).result;
    const first = [submit(0), submit(1)];
    await doomed.next((m) => m.type === "node-start" && m.tag === "acme:0", 60_000);
    await doomed.next((m) => m.type === "node-start" && m.tag === "acme:1", 60_000);
    const rescuers = await Promise.all([startWorker(poolOptions(log)), startWorker(poolOptions(log))]);
    pool.workers.push(...rescuers);
    const third = submit(2);
    await tick(600);
    // Both permits are held by the doomed worker's runs: the third run has not started anywhere.
    expect(
      calls(log, "rw-start")
        .map((c) => c.ticket)
        .sort(),
    ).toEqual(["0", "1"]);
    const killedAt = Date.now();
    await doomed.kill("SIGKILL");
    const results = await Promise.all([...first, third]);
    expect(results.map((r) => r.values.reply)).toEqual(["acme#0", "acme#1", "acme#2"]);
    const all = calls(log, "rw-start", "rw-end");
    expect(
      all
        .filter((c) => c.end === undefined)
        .map((c) => c.ticket)
        .sort(),
    ).toEqual(["0", "1"]);
    expect(peak(all, killedAt)).toBeLessThanOrEqual(2);
    const firstAfter = Math.min(...all.filter((c) => c.start > killedAt).map((c) => c.start));
    console.log(
      `run permits after SIGKILL: first run started ${firstAfter - killedAt} ms after the kill (lease 1500 ms)`,
    );
    // The lease (1.5 s), then a waiting job's retry (at most 0.5 s apart) or a redelivery (the lock, 1.5 s): slack
    // for a loaded machine on top.
    expect(firstAfter - killedAt, "a permit came back within the lease and a retry").toBeLessThanOrEqual(1_500 + 1_500);
  });

  it("the worker's runLimits default: a key computed from the run's values, kept across the run's deliveries", {
    timeout: 60_000,
  }, async () => {
    pool.env = await testEnv("redis");
    const log = logFile("defaults");
    pool.workers = await Promise.all(
      [1, 2].map(() => startWorker(poolOptions(log, { RUN_LIMIT: "1", RUN_KEY: "tenantId", REPLY_MS: "80" }))),
    );
    pool.remote = new RemoteRunner(pool.env.submitter);
    const results = await Promise.all(
      ["t1", "t2"].flatMap((tenantId) =>
        [0, 1, 2, 3].map((ticket) =>
          pool.remote!.run(runFlow, { values: { tenantId, ticket }, workflowId: `def-${tenantId}-${ticket}` }),
        ),
      ),
    );
    expect(results.map((r) => r.values.reply)).toEqual([
      "t1#0",
      "t1#1",
      "t1#2",
      "t1#3",
      "t2#0",
      "t2#1",
      "t2#2",
      "t2#3",
    ]);
    const all = calls(log, "rw-start", "rw-end");
    expect(peak(all.filter((c) => c.tenant === "t1"))).toBe(1);
    expect(peak(all.filter((c) => c.tenant === "t2"))).toBe(1);
    // The tenants ran side by side: the limit is per key, not one for all.
    expect(peak(all)).toBe(2);
  });

  it("refuses bad run-level options before anything is written", async () => {
    pool.env = await testEnv("redis");
    pool.remote = new RemoteRunner(pool.env.submitter);
    const cases: [object, string][] = [
      [{ concurrency: { key: "", limit: 2 } }, "option 'concurrency.key' must be a non-empty string"],
      [{ concurrency: { key: "t", limit: 0 } }, "option 'concurrency.limit' must be an integer ≥ 1"],
      [{ concurrency: { key: "t", limit: 2, scope: "x" } }, "option 'concurrency.scope' must be left out"],
      [{ rateLimit: { key: "t", limit: 5, per: "soon" } }, "option 'rateLimit.per'"],
      [{ rateLimit: { key: "t", limit: 5, per: 0 } }, "option 'rateLimit.per' must be a duration longer than 0"],
      [{ fairness: "" }, "option 'fairness' must be a group name"],
      [{ priority: 1, fairness: "t" }, "options 'priority' and 'fairness' both set the job's BullMQ priority"],
    ];
    for (const [when, message] of cases) {
      let error: unknown;
      try {
        pool.remote.submit(runFlow, when as never, { values: { tenantId: "t", ticket: 0 }, workflowId: "bad-run" });
      } catch (e) {
        error = e;
      }
      expect(isInvalidOptionError(error), JSON.stringify(when)).toBe(true);
      expect((error as Error).message).toContain(message);
      expect((error as Error).message).toContain("How to fix");
    }
    expect(await pool.env.checkpointer.getWorkflow("bad-run")).toBeUndefined();
    const workerOptions = { checkpointer: pool.env.checkpointer, graphs: [runFlow], handleSignals: false };
    expect(() => new GraphWorker({ ...workerOptions, runLimits: { concurrency: { limit: 1.5 } } })).toThrow(
      "option 'runLimits.concurrency.limit' must be an integer ≥ 1",
    );
    expect(
      () => new GraphWorker({ ...workerOptions, runLimits: { concurrency: { key: "tenantId" as never, limit: 2 } } }),
    ).toThrow("option 'runLimits.concurrency.key' must be a function of the run's values");
    expect(
      () => new GraphWorker({ ...workerOptions, runLimits: { rateLimit: { limit: 2, per: "1x" as never } } }),
    ).toThrow("option 'runLimits.rateLimit.per'");
  });
});
