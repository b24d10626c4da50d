// Flow control on a pool of real worker processes sharing one Redis checkpointer: a per-tenant limit that never
// goes over across workers and does not let a big tenant's backlog starve a small one, a rate limit no 1-second
// window breaks, and the permits of a SIGKILLed worker coming back within their lease.
import { describe, expect, it } from "vitest";
import { RemoteRunner } from "../src/index.js";
import { calls, p95, peak } from "./fixtures/calls.js";
import { testEnv } from "./fixtures/env.js";
import { pooledFlow, rateFlow, tenantFlow } from "./fixtures/graphs.mjs";
import { poolTest } from "./fixtures/pool.js";
import { logFile, readLog, startWorker } from "./fixtures/processes.js";

const pool = poolTest();

const poolOptions = (log: string) => ({
  ...pool.env!.workerEnv,
  LOG_FILE: log,
  CONCURRENCY: "32",
  LEASE_TTL_MS: "1500",
  LOCK_MS: "1500",
  REPLY_MS: "40",
});

/** Submits `tickets` runs of `graph` for a tenant at once; resolves to each run's submit time by ticket. */
function submit(graph: typeof tenantFlow, tenantId: string, tickets: readonly number[], prefix: string) {
  const submitted = new Map<string, number>();
  const results = tickets.map((ticket) => {
    submitted.set(`${tenantId}:${ticket}`, Date.now());
    return pool.remote!.run(graph, { values: { tenantId, ticket }, workflowId: `${prefix}-${tenantId}-${ticket}` });
  });
  return { submitted, results: Promise.all(results) };
}

describe("flow control across 3 worker processes", () => {
  it("2 tenants × 30 runs, limit 2 per tenant: never above 2 per tenant; the small tenant is not starved; throughput within 20% of an unkeyed limit", {
    timeout: 120_000,
  }, async () => {
    pool.env = await testEnv("redis");
    const log = logFile("tenants");
    pool.workers = await Promise.all([1, 2, 3].map(() => startWorker(poolOptions(log))));
    pool.remote = new RemoteRunner(pool.env.submitter);
    const tickets = Array.from({ length: 30 }, (_, i) => i);

    // The small tenant alone ("solo": the same limit, its own key): its waits (submit → its call starts) under its
    // own limit are its fair share.
    const alone = submit(tenantFlow, "solo", tickets, "alone");
    await alone.results;
    const aloneWaits = calls(log, "tr-start", "tr-end")
      .filter((c) => c.tenant === "solo")
      .map((c) => c.start - alone.submitted.get(`${c.tenant}:${c.ticket}`)!);

    // The big tenant's 30 runs first, then the small tenant's 30: a FIFO pool would make the small one wait for all.
    const began = Date.now();
    const big = submit(tenantFlow, "big", tickets, "mixed");
    const small = submit(tenantFlow, "small", tickets, "mixed");
    const [bigResults, smallResults] = await Promise.all([big.results, small.results]);
    const firstKeyedMs = Date.now() - began;
    expect(bigResults.map((r) => r.values.reply)).toEqual(tickets.map((t) => `big#${t}`));
    expect(smallResults.map((r) => r.values.reply)).toEqual(tickets.map((t) => `small#${t}`));
    const mixed = calls(log, "tr-start", "tr-end").filter((c) => c.tenant !== "solo");
    expect(mixed).toHaveLength(60);
    expect(peak(mixed.filter((c) => c.tenant === "big"))).toBeLessThanOrEqual(2);
    expect(peak(mixed.filter((c) => c.tenant === "small"))).toBeLessThanOrEqual(2);
    expect(new Set(readLog(log).map((l) => l.pid)).size).toBeGreaterThan(1);
    const smallWaits = mixed
      .filter((c) => c.tenant === "small")
      .map((c) => c.start - small.submitted.get(`${c.tenant}:${c.ticket}`)!);
    const fair = p95(aloneWaits);
    expect(p95(smallWaits), `small tenant p95 wait ${p95(smallWaits)} ms, alone ${fair} ms`).toBeLessThanOrEqual(
      2 * fair,
    );

    // The same 60 runs under one unkeyed limit of 4 (the keyed run's total parallelism), then one more round of
    // each: the faster of two rounds, so one load spike of a shared machine does not decide the comparison.
    const round = async (graph: typeof tenantFlow, prefix: string) => {
      const at = Date.now();
      await Promise.all([
        submit(graph, "big", tickets, prefix).results,
        submit(graph, "small", tickets, prefix).results,
      ]);
      return Date.now() - at;
    };
    const pooledMs = Math.min(await round(pooledFlow, "pooled"), await round(pooledFlow, "pooled-again"));
    expect(readLog(log).filter((l) => l.node === "pr-start")).toHaveLength(120);
    const keyedMs = Math.min(firstKeyedMs, await round(tenantFlow, "again"));
    expect(keyedMs, `keyed ${keyedMs} ms, unkeyed ${pooledMs} ms`).toBeLessThanOrEqual(pooledMs * 1.2 + 300);
    console.log(
      `flow control: small tenant p95 wait alone ${fair} ms, behind the big tenant ${p95(smallWaits)} ms; ` +
        `60 runs keyed ${keyedMs} ms, unkeyed limit 4 ${pooledMs} ms`,
    );
  });

  it("rate limit 20 per second across 3 workers: no 1-second window of calls holds more than 20", {
    timeout: 60_000,
  }, async () => {
    pool.env = await testEnv("redis");
    const log = logFile("rate");
    pool.workers = await Promise.all([1, 2, 3].map(() => startWorker(poolOptions(log))));
    pool.remote = new RemoteRunner(pool.env.submitter);
    const began = Date.now();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, n) => pool.remote!.run(rateFlow, { values: { n }, workflowId: `rate-${n}` })),
    );
    expect(results.map((r) => r.values.out)).toEqual(Array.from({ length: 50 }, (_, n) => n));
    const starts = readLog(log)
      .filter((l) => l.node === "call")
      .map((l) => Number(l.tag.split(":")[1]))
      .sort((a, b) => a - b);
    expect(starts).toHaveLength(50);
    expect(new Set(readLog(log).map((l) => l.pid)).size).toBeGreaterThan(1);
    // A permit is held 1.1 s from its grant, so grants 20 apart are ≥ 1.1 s apart. A call starts just after its
    // grant, but on a machine running the whole suite a worker's event loop can be late by a couple hundred ms:
    // the starts are checked with that slack (the permits themselves are exact).
    for (let i = 0; i + 20 < starts.length; i++)
      expect(starts[i + 20]! - starts[i]!, `calls ${i} and ${i + 20}`).toBeGreaterThanOrEqual(1_100 - 250);
    expect(Date.now() - began).toBeGreaterThanOrEqual(2_000 - 50);
  });

  it("a worker SIGKILLed while holding both of a tenant's permits: they come back within the lease, never more than 2 at once", {
    timeout: 60_000,
  }, async () => {
    pool.env = await testEnv("redis");
    const log = logFile("killed");
    const doomed = await startWorker({ ...poolOptions(log), REPLY_HOLD: "acme" });
    pool.workers = [doomed];
    pool.remote = new RemoteRunner(pool.env.submitter);
    const first = submit(tenantFlow, "acme", [0, 1], "killed");
    await doomed.next((m) => m.type === "node-start" && m.tag === "acme:0", 60_000);
    await doomed.next((m) => m.type === "node-start" && m.tag === "acme:1", 60_000);
    const rescuers = await Promise.all([startWorker(poolOptions(log)), startWorker(poolOptions(log))]);
    pool.workers.push(...rescuers);
    const third = submit(tenantFlow, "acme", [2], "killed");
    await new Promise((resolve) => setTimeout(resolve, 500));
    // Both permits are held by the doomed worker: the third call has not started.
    expect(
      calls(log, "tr-start")
        .map((c) => c.ticket)
        .sort(),
    ).toEqual(["0", "1"]);
    const killedAt = Date.now();
    await doomed.kill("SIGKILL");
    const [redelivered, [last]] = await Promise.all([first.results, third.results]);
    expect(redelivered.map((r) => r.values.reply)).toEqual(["acme#0", "acme#1"]);
    expect(last!.values.reply).toBe("acme#2");
    const all = calls(log, "tr-start", "tr-end");
    // The doomed worker's calls count as running until it died.
    const died = all.filter((c) => c.end === undefined);
    expect(died.map((c) => c.ticket).sort()).toEqual(["0", "1"]);
    expect(peak(all, killedAt)).toBeLessThanOrEqual(2);
    const firstAfter = Math.min(...all.filter((c) => c.start > killedAt).map((c) => c.start));
    expect(firstAfter - killedAt, "a permit came back within the lease (1.5 s) and a poll").toBeLessThanOrEqual(
      1_500 + 1_000,
    );
  });
});
