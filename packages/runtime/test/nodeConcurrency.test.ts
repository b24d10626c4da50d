// `node({ concurrency })`: a limit on one node's calls across every run of a runner — plain, or per key of the
// inputs — with waiting calls visible (`NodeWaiting`) and stoppable.
import { Graph, node } from "@graph/core";
import { describe, expect, it } from "vitest";
import { type GraphEvent, isNodeExecutionError, Runner } from "../src/index.js";

function tracker() {
  const running = new Map<string, number>();
  const peak = new Map<string, number>();
  return {
    enter(key: string) {
      const now = (running.get(key) ?? 0) + 1;
      running.set(key, now);
      peak.set(key, Math.max(peak.get(key) ?? 0, now));
    },
    leave(key: string) {
      running.set(key, running.get(key)! - 1);
    },
    peak: (key: string) => peak.get(key) ?? 0,
  };
}

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("node concurrency", () => {
  it("at most 2 calls of a limited node at once across 8 concurrent runs, the waits reported", async () => {
    const t = tracker();
    const call = node({ output: "reply", concurrency: 2 }, async function callModel({ prompt }: { prompt: string }) {
      t.enter("all");
      await tick(5);
      t.leave("all");
      return `re: ${prompt}`;
    });
    const graph = new Graph([call], { name: "ask" });
    const runner = new Runner();
    const waits: Extract<GraphEvent, { type: "NodeWaiting" }>[] = [];
    const handles = Array.from({ length: 8 }, (_, i) => runner.start(graph, { values: { prompt: `p${i}` } }));
    const replies = await Promise.all(
      handles.map(async (h) => {
        for await (const e of h.events) if (e.type === "NodeWaiting") waits.push(e);
        return (await h.result).values.reply;
      }),
    );
    expect(replies).toEqual(Array.from({ length: 8 }, (_, i) => `re: p${i}`));
    expect(t.peak("all")).toBe(2);
    expect(waits).toHaveLength(6);
    expect(waits[0]).toMatchObject({
      type: "NodeWaiting",
      nodeName: "callModel",
      limitKind: "concurrency",
      where: "runner",
      key: "",
      limit: 2,
      active: 2,
      queued: 1,
    });
    expect(waits.map((w) => w.queued)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("a limit per key: one call per tenant at a time, tenants in parallel", async () => {
    const t = tracker();
    const reply = node(
      { output: "reply", concurrency: { key: ({ tenantId }) => tenantId, limit: 1 } },
      async function reply({ tenantId, ticket }: { tenantId: string; ticket: number }) {
        t.enter(tenantId);
        t.enter("all");
        await tick(3);
        t.leave(tenantId);
        t.leave("all");
        return `${tenantId}#${ticket}`;
      },
    );
    const perTicket = new Graph([reply], { name: "reply-one" });
    const graph = new Graph([perTicket.asNode({ name: "replies" }).mapOver("ticket")], { name: "inbox" });
    const runner = new Runner();
    const [a, b] = await Promise.all([
      runner.run(graph, { values: { tenantId: "acme", ticket: [1, 2, 3, 4, 5, 6] } }),
      runner.run(graph, { values: { tenantId: "globex", ticket: [1, 2] } }),
    ]);
    expect(a.values.reply).toEqual(["acme#1", "acme#2", "acme#3", "acme#4", "acme#5", "acme#6"]);
    expect(b.values.reply).toEqual(["globex#1", "globex#2"]);
    expect(t.peak("acme")).toBe(1);
    expect(t.peak("globex")).toBe(1);
    expect(t.peak("all")).toBe(2);
  });

  it("a key function that throws fails the node with its error", async () => {
    const reply = node(
      {
        output: "reply",
        concurrency: {
          key: ({ tenantId }) => {
            if (tenantId === "") throw new Error("no tenant on this ticket");
            return tenantId;
          },
          limit: 1,
        },
      },
      async function reply({ tenantId }: { tenantId: string }) {
        return `hi ${tenantId}`;
      },
    );
    const result = await new Runner().run(new Graph([reply], { name: "keyless" }), { values: { tenantId: "" } }).then(
      (r) => r,
      (e: unknown) => e,
    );
    expect(isNodeExecutionError(result)).toBe(true);
    expect((result as Error).message).toContain("no tenant on this ticket");
  });

  it("a run waiting for a permit can be stopped; the holder finishes and the next caller gets the permit", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    const slow = node({ output: "out", concurrency: 1 }, async function slow({ n }: { n: number }) {
      calls++;
      if (n === 0) await gate;
      return n;
    });
    const graph = new Graph([slow], { name: "one-at-a-time" });
    const runner = new Runner();
    const holder = runner.start(graph, { values: { n: 0 }, workflowId: "holder" });
    await tick(5);
    const waiter = runner.start(graph, { values: { n: 1 }, workflowId: "waiter" });
    await tick(5);
    expect(await runner.stop("waiter", { reason: "not needed" })).toBe(true);
    expect((await waiter.result).status).toBe("stopped");
    expect(calls).toBe(1);
    release();
    expect((await holder.result).values.out).toBe(0);
    expect((await runner.run(graph, { values: { n: 2 } })).values.out).toBe(2);
    expect(calls).toBe(2);
  });

  it("a rate limit in one runner: at most 3 calls start in any 200 ms, per scope shared by two nodes", async () => {
    const starts: number[] = [];
    const limit = { scope: "provider", limit: 3, per: "200ms" } as const;
    const ask = node({ output: "a", rateLimit: limit }, async function ask({ n }: { n: number }) {
      starts.push(performance.now());
      return n;
    });
    const check = node({ output: "c", rateLimit: limit }, async function check({ n }: { n: number }) {
      starts.push(performance.now());
      return -n;
    });
    const graph = new Graph([ask, check], { name: "rated" });
    const runner = new Runner();
    const began = performance.now();
    const results = await Promise.all(Array.from({ length: 4 }, (_, n) => runner.run(graph, { values: { n } })));
    expect(results.map((r) => [r.values.a, r.values.c])).toEqual([
      [0, -0],
      [1, -1],
      [2, -2],
      [3, -3],
    ]);
    starts.sort((x, y) => x - y);
    expect(starts).toHaveLength(8);
    // A window apart, less the lag between a permit and the call's start (15% allowed: a loaded 2-core machine).
    for (let i = 0; i + 3 < starts.length; i++) expect(starts[i + 3]! - starts[i]!).toBeGreaterThanOrEqual(170);
    expect(performance.now() - began).toBeGreaterThanOrEqual(400 - 5);
  });
});
