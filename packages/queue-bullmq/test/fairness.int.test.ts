// Fairness across keys on the queue: start-time fair queuing on BullMQ priorities, so one key's backlog cannot
// starve the others. The exact order of a queue of three groups, the small tenant's wait behind a big one's backlog
// (with and without fairness, on real worker processes), and the priority base moving before BullMQ's range ends.
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { RemoteRunner, type SubmitOptions } from "../src/index.js";
import { MAX_PRIORITY, priorityAt, raiseFloor, settleSlot, takeSlot } from "../src/internal/fairness.js";
import { queueKeys } from "../src/internal/keys.js";
import { calls, p95, peak } from "./fixtures/calls.js";
import { testEnv } from "./fixtures/env.js";
import { chain10, runFlow } from "./fixtures/graphs.mjs";
import { poolTest } from "./fixtures/pool.js";
import { logFile, readLog, startWorker, uniqueName } from "./fixtures/processes.js";

const pool = poolTest();

const poolOptions = (log: string, concurrency: string) => ({
  ...pool.env!.workerEnv,
  LOG_FILE: log,
  CONCURRENCY: concurrency,
  LEASE_TTL_MS: "1500",
  LOCK_MS: "1500",
  REPLY_MS: "150",
});

/** Submits a tenant's runs at once; resolves to each run's wait (submit → its call started) once all are done. */
async function waits(tenantId: string, count: number, prefix: string, when: (t: string) => SubmitOptions, log: string) {
  const submitted = Date.now();
  const results = await Promise.all(
    Array.from(
      { length: count },
      (_, ticket) =>
        pool.remote!.submit(runFlow, when(tenantId), {
          values: { tenantId, ticket },
          workflowId: `${prefix}-${tenantId}-${ticket}`,
        }).result,
    ),
  );
  expect(results.map((r) => r.values.reply)).toEqual(Array.from({ length: count }, (_, t) => `${tenantId}#${t}`));
  return calls(log, "rw-start", "rw-end")
    .filter((c) => c.tenant === tenantId)
    .map((c) => c.start - submitted);
}

describe("fairness across keys", () => {
  it("the first waiting run of every group goes before the second of any group", { timeout: 60_000 }, async () => {
    pool.env = await testEnv("redis");
    const log = logFile("fair-order");
    pool.remote = new RemoteRunner(pool.env.submitter);
    const plan = ["A", "A", "A", "A", "B", "B", "C"];
    const counts = new Map<string, number>();
    const handles = plan.map((group) => {
      const n = counts.get(group) ?? 0;
      counts.set(group, n + 1);
      const tag = `${group}${n}`;
      return pool.remote!.submit(chain10, { fairness: group }, { values: { x: 1, tag }, workflowId: `order-${tag}` });
    });
    await new Promise((resolve) => setTimeout(resolve, 300)); // every job is in the queue
    pool.workers = [await startWorker({ ...pool.env.workerEnv, LOG_FILE: log, CONCURRENCY: "1" })];
    expect((await Promise.all(handles.map((h) => h.result))).map((r) => r.status)).toEqual(plan.map(() => "completed"));
    const order = readLog(log)
      .filter((l) => l.node === "n0")
      .map((l) => l.tag);
    expect(order).toEqual(["A0", "B0", "C0", "A1", "B1", "A2", "A3"]);
  });

  it("3 workers, key limit 2: a big tenant's 30 runs then a small tenant's 5 — never above 2 per key; the small tenant's p95 wait within 2× its fair share", {
    timeout: 180_000,
  }, async () => {
    pool.env = await testEnv("redis");
    const log = logFile("fair-pool");
    pool.workers = await Promise.all([1, 2, 3].map(() => startWorker(poolOptions(log, "2"))));
    pool.remote = new RemoteRunner(pool.env.submitter);
    const keyed = (fair: boolean) => (tenant: string) =>
      ({ concurrency: { key: tenant, limit: 2 }, ...(fair ? {} : { fairness: false as const }) }) as SubmitOptions;
    // Its fair share: the small tenant alone, under its own limit.
    const alone = p95(await waits("solo", 5, "alone", keyed(true), log));
    const measure = async (fair: boolean) => {
      const big = waits(`big${fair}`, 30, "mixed", keyed(fair), log);
      await new Promise((resolve) => setTimeout(resolve, 50)); // the big backlog is queued first
      const small = await waits(`small${fair}`, 5, "mixed", keyed(fair), log);
      await big;
      return p95(small);
    };
    const unfair = await measure(false);
    const fair = await measure(true);
    const all = calls(log, "rw-start", "rw-end");
    expect(all).toHaveLength(5 + 2 * 35);
    for (const tenant of new Set(all.map((c) => c.tenant)))
      expect(peak(all.filter((c) => c.tenant === tenant)), tenant).toBeLessThanOrEqual(2);
    console.log(
      `fairness (run key limit 2, 3 workers × 2 slots, 150 ms runs): small tenant p95 wait alone ${alone} ms; ` +
        `behind a 30-run backlog: without fairness ${unfair} ms, with fairness ${fair} ms`,
    );
    expect(fair, `with fairness ${fair} ms, fair share ${alone} ms`).toBeLessThanOrEqual(2 * alone);
  });

  it("a saturated pool (3 slots, no key limit): with fairness the small tenant's runs take turns with the backlog instead of queueing behind it", {
    timeout: 180_000,
  }, async () => {
    pool.env = await testEnv("redis");
    const log = logFile("fair-saturated");
    pool.workers = await Promise.all([1, 2, 3].map(() => startWorker(poolOptions(log, "1"))));
    pool.remote = new RemoteRunner(pool.env.submitter);
    const measure = async (fair: boolean) => {
      const when = (tenant: string): SubmitOptions => (fair ? { fairness: tenant } : {});
      const big = waits(`big${fair}`, 30, "sat", when, log);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const small = await waits(`small${fair}`, 5, "sat", when, log);
      await big;
      return p95(small);
    };
    const unfair = await measure(false);
    const fair = await measure(true);
    console.log(
      `fairness (saturated pool, 3 slots, 150 ms runs): small tenant p95 wait behind a 30-run backlog: ` +
        `without fairness ${unfair} ms, with fairness ${fair} ms`,
    );
    // FIFO: the small tenant waits for the whole backlog (30 runs on 3 slots ≈ 1.5 s); round-robin: a few turns.
    expect(fair * 2, `with ${fair} ms, without ${unfair} ms`).toBeLessThanOrEqual(unfair);
  });

  it("the priority base moves up before BullMQ's range ends; waiting jobs and late submissions get the new base", async () => {
    pool.env = await testEnv("redis");
    const name = uniqueName("qfair");
    const keys = queueKeys(name);
    const redis = new Redis(pool.env.redisUrl, { maxRetriesPerRequest: null });
    const queue = new Queue(name, {
      connection: { url: pool.env.redisUrl, maxRetriesPerRequest: null },
      prefix: keys.prefix,
    });
    try {
      const add = async (slot: number, base: number) =>
        queue.add("run", { fair: { group: "g", slot } }, { jobId: `j${slot}`, priority: priorityAt(slot, base) });
      for (let i = 0; i < 20; i++) {
        const { slot, base } = await takeSlot(redis, keys, "g");
        expect([slot, base]).toEqual([i + 1, 0]);
        await add(slot, base);
      }
      // A submission that took its slot before the move and adds its job after it.
      const late = await takeSlot(redis, keys, "late");
      expect(late).toEqual({ slot: 1, base: 0 });
      await raiseFloor(redis, keys, queue, 3, 5); // floor 3: not yet 5 above the base
      expect(await redis.get(keys.fair("base"))).toBeNull();
      await raiseFloor(redis, keys, queue, 6, 5); // floor 6 > 0 + 5: the base moves to 6
      expect(await redis.get(keys.fair("base"))).toBe("6");
      const priority = async (id: string) => (await queue.getJob(id))!.priority;
      expect(await Promise.all([5, 6, 7, 8, 20].map((s) => priority(`j${s}`)))).toEqual([1, 1, 1, 2, 14]);
      await queue.add("run", { fair: { group: "late", slot: late.slot } }, { jobId: "late", priority: 1 });
      await settleSlot(redis, keys, queue, "late", late.slot, late.base);
      expect(await priority("late")).toBe(1);
      // After the move: a new group starts at the floor, the busy group after its last slot.
      expect(await takeSlot(redis, keys, "h")).toEqual({ slot: 7, base: 6 });
      expect(priorityAt(21, 6)).toBe(15);
      expect(await takeSlot(redis, keys, "g")).toEqual({ slot: 21, base: 6 });
      // A backlog wider than the range is clamped to BullMQ's lowest priority (taken in submission order).
      expect(priorityAt(MAX_PRIORITY + 50, 6)).toBe(MAX_PRIORITY);
      expect(priorityAt(3, 6)).toBe(1);
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
      await redis.quit();
    }
  });
});
