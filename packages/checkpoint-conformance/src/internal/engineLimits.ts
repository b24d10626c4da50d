/**
 * Node limits through the runtime on the adapter: `node({ concurrency })` and `rateLimit` hold across two runners
 * with their own connections to the store (as two processes would), because their permits are slot records leased
 * with `claimWorkflow` — so every adapter's lease exclusivity is what keeps the limit.
 */
import { Graph, node } from "@graph/core";
import { type GraphEvent, Runner } from "@graph/runtime";
import { describe, expect, it } from "vitest";
import { SLOW } from "./engineCommon.js";
import { ids } from "./fixtures.js";
import { crashable, openStorage } from "./handles.js";
import type { DescribeCheckpointerOptions } from "./options.js";

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The most intervals open at once, from [start, end] pairs. */
function peakOverlap(intervals: readonly (readonly [number, number])[]): number {
  const points = intervals.flatMap(([s, e]) => [
    [s, 1],
    [e, -1],
  ]);
  // An end and a start at the same instant: the end first (the permit was handed over).
  points.sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
  let open = 0;
  let peak = 0;
  for (const [, d] of points) peak = Math.max(peak, (open += d!));
  return peak;
}

export function describeNodeLimits(options: DescribeCheckpointerOptions): void {
  describe("node limits shared through the store (two runners, two connections)", () => {
    it("concurrency per tenant, limit 2: never more than 2 calls of one tenant at once across both runners", {
      timeout: SLOW,
    }, async () => {
      const storage = await openStorage(options);
      try {
        const intervals = new Map<string, [number, number][]>();
        const reply = node(
          { output: "reply", concurrency: { key: ({ tenantId }) => tenantId, limit: 2 } },
          async function reply({ tenantId, ticket }: { tenantId: string; ticket: number }) {
            const start = performance.now();
            await tick(15);
            const list = intervals.get(tenantId) ?? [];
            list.push([start, performance.now()]);
            intervals.set(tenantId, list);
            return `${tenantId}#${ticket}`;
          },
        );
        const graph = new Graph([reply], { name: "limits-tenant" });
        const a = new Runner({ checkpointer: await storage.open("sync"), owner: "runner-a" });
        const b = new Runner({ checkpointer: await storage.open("sync"), owner: "runner-b" });
        const id = ids("limits-tenant");
        const waits: GraphEvent[] = [];
        const runs = [];
        for (let i = 0; i < 12; i++) {
          const tenantId = i % 3 === 0 ? "small" : "big";
          const runner = i % 2 === 0 ? a : b;
          runs.push(runner.start(graph, { values: { tenantId, ticket: i }, workflowId: id(String(i)) }).events);
        }
        const results = await Promise.all(
          runs.map(async (events) => {
            for await (const e of events) if (e.type === "NodeWaiting") waits.push(e);
          }),
        );
        expect(results).toHaveLength(12);
        expect(intervals.get("big")).toHaveLength(8);
        expect(intervals.get("small")).toHaveLength(4);
        expect(peakOverlap(intervals.get("big")!)).toBeLessThanOrEqual(2);
        expect(peakOverlap(intervals.get("small")!)).toBeLessThanOrEqual(2);
        expect(waits.some((w) => w.type === "NodeWaiting" && w.where === "store" && w.key === "big")).toBe(true);
        await a.close();
        await b.close();
      } finally {
        await storage.close();
      }
    });

    it("rate limit 5 per 400 ms across both runners: no 400 ms of permit grants holds more than 5 calls", {
      timeout: SLOW,
    }, async () => {
      const storage = await openStorage(options);
      try {
        const starts: number[] = [];
        const call = node(
          { output: "out", rateLimit: { scope: "provider", limit: 5, per: 400 } },
          async function callProvider({ n }: { n: number }) {
            starts.push(performance.now());
            return n;
          },
        );
        const graph = new Graph([call], { name: "limits-rate" });
        const a = new Runner({ checkpointer: await storage.open("sync"), owner: "rate-a" });
        const b = new Runner({ checkpointer: await storage.open("sync"), owner: "rate-b" });
        const id = ids("limits-rate");
        const began = performance.now();
        const results = await Promise.all(
          Array.from({ length: 15 }, (_, n) =>
            (n % 2 === 0 ? a : b).run(graph, { values: { n }, workflowId: id(String(n)) }),
          ),
        );
        expect(results.map((r) => r.values.out)).toEqual(Array.from({ length: 15 }, (_, n) => n));
        starts.sort((x, y) => x - y);
        // The sixth call after any call starts a window later, less the time between a grant and the call's start
        // (event-loop lag: up to tens of ms on a loaded 2-core machine, so 15% of the window is allowed).
        for (let i = 0; i + 5 < starts.length; i++)
          expect(starts[i + 5]! - starts[i]!, `calls ${i} and ${i + 5}`).toBeGreaterThanOrEqual(400 - 60);
        // 15 calls at 5 per 400 ms take at least two windows.
        expect(performance.now() - began).toBeGreaterThanOrEqual(800 - 40);
        await a.close();
        await b.close();
      } finally {
        await storage.close();
      }
    });

    it("a permit held by a runner that stops renewing (its process died) comes back once its lease expires", {
      timeout: SLOW,
    }, async () => {
      const storage = await openStorage(options);
      try {
        let release!: () => void;
        const hold = new Promise<void>((resolve) => (release = resolve));
        const calls: string[] = [];
        const only = node({ output: "out", concurrency: 1 }, async function only({ who }: { who: string }) {
          calls.push(who);
          if (who === "doomed") await hold;
          return who;
        });
        const graph = new Graph([only], { name: "limits-crash" });
        const id = ids("limits-crash");
        const ttl = { leaseTtlMs: 600, leaseRenewIntervalMs: 200 };
        const doomedStore = crashable(await storage.open("sync"));
        const doomed = new Runner({ checkpointer: doomedStore.checkpointer, owner: "doomed", ...ttl });
        const doomedRun = doomed.run(graph, { values: { who: "doomed" }, workflowId: id("doomed") }).catch(() => {});
        while (calls.length === 0) await tick(5);
        // The holder's process "dies": nothing it does reaches the store any more, so its permit is never renewed.
        doomedStore.crash();
        const survivor = new Runner({ checkpointer: await storage.open("sync"), owner: "survivor", ...ttl });
        const began = performance.now();
        const result = await survivor.run(graph, { values: { who: "survivor" }, workflowId: id("survivor") });
        expect(result.values.out).toBe("survivor");
        expect(calls).toEqual(["doomed", "survivor"]);
        expect(performance.now() - began).toBeLessThan(600 + 1_000);
        release();
        await doomedRun;
        await survivor.close();
      } finally {
        await storage.close();
      }
    });
  });
}
