import { MemoryCheckpointer } from "@graph/checkpoint";
import { Graph, node } from "@graph/core";
import { describe, expect, it } from "vitest";
import { type GraphEvent, Runner } from "../src/index.js";

/** `a → b`; b fails on its first call, so the workflow is left with a's step stored and b to run. */
function twoSteps() {
  const calls = { a: 0, b: 0 };
  const a = node({ name: "a", output: "x" }, ({ n }: { n: number }) => {
    calls.a++;
    return n + 1;
  });
  const b = node({ name: "b", output: "y" }, ({ x }: { x: number }) => {
    calls.b++;
    if (calls.b === 1) throw new Error("first try fails");
    return x * 10;
  });
  return { graph: new Graph([a, b], { name: "two-steps" }), calls };
}

/** A workflow with history, then a "crashed" holder's lease on it that nobody releases (it expires after `ttlMs`). */
async function crashedHolder(ttlMs: number) {
  const checkpointer = new MemoryCheckpointer();
  const { graph, calls } = twoSteps();
  const events: GraphEvent[] = [];
  const runner = new Runner({
    checkpointer,
    leaseTtlMs: 2_000,
    eventProcessors: [{ onEvent: (e) => void events.push(e) }],
  });
  const first = await runner.run(graph, { values: { n: 1 }, workflowId: "wf", errorHandling: "continue" });
  expect(first.status).toBe("failed");
  await checkpointer.claimWorkflow("wf", { owner: "dead-host:1", ttlMs });
  events.length = 0;
  return { runner, graph, calls, events, checkpointer };
}

describe("run(graph, { workflowId, waitForLease })", () => {
  it("without it, a held lease fails at once with WorkflowConflictError, and no replayed NodeEnd is told", async () => {
    const { runner, graph, events, calls } = await crashedHolder(5_000);
    const t0 = Date.now();
    await expect(runner.run(graph, { workflowId: "wf" })).rejects.toMatchObject({
      _tag: "WorkflowConflictError",
      reason: "lease-held",
      heldBy: "dead-host:1",
    });
    expect(Date.now() - t0).toBeLessThan(500);
    expect(events.filter((e) => e.type === "NodeEnd")).toEqual([]);
    expect(calls).toEqual({ a: 1, b: 1 });
    await runner.close();
  });

  it("waitForLease: true waits for the crashed holder's lease to expire, then resumes (a replayed, b run)", async () => {
    const { runner, graph, events, calls, checkpointer } = await crashedHolder(400);
    const t0 = Date.now();
    const result = await runner.run(graph, { workflowId: "wf", waitForLease: true });
    const waited = Date.now() - t0;
    expect(result.status).toBe("completed");
    expect(result.values).toEqual({ x: 2, y: 20 });
    expect(calls).toEqual({ a: 1, b: 2 });
    expect(waited).toBeGreaterThanOrEqual(300);
    expect(waited).toBeLessThan(2_000);
    const ends = events.filter((e) => e.type === "NodeEnd").map((e) => [e.nodeName, e.replayed]);
    expect(ends).toEqual([
      ["a", true],
      ["b", false],
    ]);
    const wf = await checkpointer.getWorkflow("wf");
    expect(wf?.status).toBe("completed");
    expect(wf?.lease).toBeUndefined();
    await runner.close();
  });

  it("waitForLease: ms gives up after that long with the same WorkflowConflictError, having told no replayed NodeEnd", async () => {
    const { runner, graph, events, calls } = await crashedHolder(5_000);
    const t0 = Date.now();
    await expect(runner.run(graph, { workflowId: "wf", waitForLease: 300 })).rejects.toMatchObject({
      _tag: "WorkflowConflictError",
      reason: "lease-held",
      heldBy: "dead-host:1",
      workflowId: "wf",
    });
    const waited = Date.now() - t0;
    expect(waited).toBeGreaterThanOrEqual(290);
    expect(waited).toBeLessThan(1_500);
    expect(events.filter((e) => e.type === "NodeEnd" || e.type === "RouteDecision")).toEqual([]);
    expect(calls).toEqual({ a: 1, b: 1 });
    await runner.close();
  });

  it("a stop ends the wait at once", async () => {
    const { runner, graph } = await crashedHolder(5_000);
    const controller = new AbortController();
    const t0 = Date.now();
    const run = runner.run(graph, { workflowId: "wf", waitForLease: 4_000, signal: controller.signal });
    setTimeout(() => controller.abort("enough"), 100);
    await expect(run).rejects.toMatchObject({ _tag: "WorkflowConflictError", reason: "lease-held" });
    expect(Date.now() - t0).toBeLessThan(2_000);
    await runner.close();
  });

  it("rejects a bad waitForLease with InvalidOptionError", async () => {
    const runner = new Runner({ checkpointer: new MemoryCheckpointer() });
    const { graph } = twoSteps();
    await expect(runner.run(graph, { values: { n: 1 }, waitForLease: -1 })).rejects.toMatchObject({
      _tag: "InvalidOptionError",
      option: "waitForLease",
    });
    await runner.close();
  });
});
