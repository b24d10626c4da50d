import { type Checkpointer, MemoryCheckpointer } from "@graph/checkpoint";
import { Graph, node } from "@graph/core";
import { describe, expect, it } from "vitest";
import { Runner } from "../src/index.js";

/** A real MemoryCheckpointer that counts lease renewals and stop polls, and wakes waiters after each. */
function counting(): { cp: Checkpointer; calls: { renew: number; poll: number }; after: (n: number) => Promise<void> } {
  const inner = new MemoryCheckpointer();
  const calls = { renew: 0, poll: 0 };
  const waiters: Array<{ n: number; wake: () => void }> = [];
  const tick = () => {
    for (const w of waiters.splice(0)) {
      if (calls.renew + calls.poll >= w.n) w.wake();
      else waiters.push(w);
    }
  };
  const cp = {} as { -readonly [K in keyof Checkpointer]: Checkpointer[K] };
  for (const m of Object.getOwnPropertyNames(MemoryCheckpointer.prototype) as Array<keyof Checkpointer>) {
    const f = (inner as unknown as Record<string, unknown>)[m];
    if (typeof f === "function" && m !== ("constructor" as never)) (cp as Record<string, unknown>)[m] = f.bind(inner);
  }
  cp.renewWorkflow = async (id, lease, options) => {
    const renewed = await inner.renewWorkflow(id, lease, options);
    calls.renew++;
    tick();
    return renewed;
  };
  cp.getStopRequest = async (id) => {
    const request = await inner.getStopRequest(id);
    calls.poll++;
    tick();
    return request;
  };
  /** Resolves once renewals and polls together reached `n`. */
  const after = (n: number) =>
    new Promise<void>((wake) => {
      waiters.push({ n, wake });
      tick();
    });
  return { cp, calls, after };
}

describe("lease keeper", () => {
  it("a run that ends before its first stop poll never renews nor polls", async () => {
    const { cp, calls } = counting();
    const runner = new Runner({ checkpointer: cp, leaseTtlMs: 60_000, stopPollIntervalMs: 30_000 });
    const a = node({ name: "a", output: "x" }, async ({ v }: { v: number }) => v + 1);
    const b = node({ name: "b", output: "y" }, async ({ x }: { x: number }) => x + 1);
    for (let i = 0; i < 20; i++) {
      const result = await runner.run(new Graph([a, b]), { values: { v: i }, workflowId: `short-${i}` });
      expect(result.values.y).toBe(i + 2);
    }
    expect(calls).toEqual({ renew: 0, poll: 0 });
    expect((await cp.getWorkflow("short-19"))?.lease).toBeUndefined();
    await runner.close();
  });

  it("a run that outlives it polls for stops and renews its lease under its epoch, then releases it", async () => {
    const { cp, calls, after } = counting();
    const runner = new Runner({
      checkpointer: cp,
      leaseTtlMs: 300,
      leaseRenewIntervalMs: 100,
      stopPollIntervalMs: 20,
    });
    let seen: { renew: number; poll: number } | undefined;
    const wait = node({ name: "wait", output: "done" }, async () => {
      // Renewals come every 100 ms and polls every 20 ms in between: 8 ticks include a renewal.
      await after(8);
      seen = { ...calls };
      return true;
    });
    const result = await runner.run(new Graph([wait]), { values: {}, workflowId: "long" });
    expect(result.status).toBe("completed");
    expect(seen!.renew).toBeGreaterThanOrEqual(1);
    expect(seen!.poll).toBeGreaterThanOrEqual(1);
    const workflow = (await cp.getWorkflow("long"))!;
    expect(workflow.status).toBe("completed");
    expect(workflow.lease).toBeUndefined();
    await runner.close();
  });
});
