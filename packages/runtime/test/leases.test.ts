import { type Checkpointer, type Fence, MemoryCheckpointer, type StepRecord } from "@graph/checkpoint";
import { Graph, node } from "@graph/core";
import { describe, expect, it } from "vitest";
import { type GraphEvent, isInvalidOptionError, isLeaseLostError, LeaseLostError, Runner } from "../src/index.js";

/** Resolves when the signal aborts (at once if it already has). */
function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}

/** Blocks the event loop (a node computing without awaiting). */
function block(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    /* busy on purpose */
  }
}

/** A real MemoryCheckpointer that also records the fence of every write it receives. */
function recording(): {
  cp: Checkpointer;
  writes: Array<{ op: string; workflowId: string; fence: Fence | undefined }>;
} {
  const inner = new MemoryCheckpointer();
  const writes: Array<{ op: string; workflowId: string; fence: Fence | undefined }> = [];
  const cp = {} as { -readonly [K in keyof Checkpointer]: Checkpointer[K] };
  for (const m of Object.getOwnPropertyNames(MemoryCheckpointer.prototype) as Array<keyof Checkpointer>) {
    const f = (inner as unknown as Record<string, unknown>)[m];
    if (typeof f === "function" && m !== ("constructor" as never)) (cp as Record<string, unknown>)[m] = f.bind(inner);
  }
  cp.saveStep = (step: StepRecord, fence?: Fence) => {
    writes.push({ op: "saveStep", workflowId: step.workflowId, fence });
    return inner.saveStep(step, fence);
  };
  cp.updateWorkflow = (id, update, fence) => {
    writes.push({ op: "updateWorkflow", workflowId: id, fence });
    return inner.updateWorkflow(id, update, fence);
  };
  // A run's last write: its queued steps and its final update, each under its own fence.
  cp.finishWorkflow = (finish) => {
    for (const group of finish.steps ?? [])
      for (const step of group.steps) writes.push({ op: "saveStep", workflowId: step.workflowId, fence: group.fence });
    writes.push({ op: "updateWorkflow", workflowId: finish.workflowId, fence: finish.fence });
    return inner.finishWorkflow(finish);
  };
  return { cp, writes };
}

describe("leases", () => {
  it("every write of child workflows (nested graph, map items, two levels deep) carries the root's fence", async () => {
    const { cp, writes } = recording();
    const double = node({ name: "double", output: "y" }, ({ x }: { x: number }) => x * 2);
    const inner = new Graph([double], { name: "inner" });
    const middle = new Graph([inner.asNode().mapOver("x")], { name: "middle" });
    const runner = new Runner({ checkpointer: cp, owner: "me" });
    const r = await runner.run(new Graph([middle.asNode()]), { values: { x: [1, 2, 3] }, workflowId: "root" });
    expect(r.values["y"]).toEqual([2, 4, 6]);
    const epoch =
      (await cp.getWorkflow("root"))!.lease?.epoch ?? writes.find((w) => w.workflowId === "root")!.fence!.epoch;
    const children = writes.filter((w) => w.workflowId !== "root");
    const ids = new Set(children.map((w) => w.workflowId));
    for (const id of ["root/middle", "root/middle/inner/0", "root/middle/inner/1", "root/middle/inner/2"])
      expect(ids.has(id)).toBe(true);
    expect(children.filter((w) => w.op === "saveStep" && w.workflowId.startsWith("root/middle/inner/")).length).toBe(6);
    for (const w of children) expect(w.fence).toEqual({ epoch, workflowId: "root" });
    for (const w of writes.filter((w) => w.workflowId === "root")) expect(w.fence).toEqual({ epoch });
    await runner.close();
  });

  it("a takeover while a node runs: the renewal fails, the node's signal aborts, the run fails with LeaseLostError and writes nothing more", async () => {
    const cp = new MemoryCheckpointer();
    const events: GraphEvent[] = [];
    const runner = new Runner({
      checkpointer: cp,
      owner: "holder",
      leaseTtlMs: 200,
      leaseRenewIntervalMs: 50,
      eventProcessors: [{ onEvent: (e) => void events.push(e) }],
    });
    let reason: unknown;
    let stepsAtTakeover = -1;
    const first = node({ name: "first", output: "a" }, () => 1);
    const slow = node({ name: "slow", output: "b" }, async ({ a }: { a: number }, ctx) => {
      block(300); // longer than the lease: another process may take the workflow meanwhile
      await cp.claimWorkflow("wf-lost", { owner: "thief", ttlMs: 60_000 });
      stepsAtTakeover = (await cp.getSteps("wf-lost", { includeInputs: true })).length;
      await aborted(ctx.signal);
      reason = ctx.signal.reason;
      return a;
    });
    const after = node({ name: "after", output: "c" }, ({ b }: { b: number }) => b);
    const error = await runner.run(new Graph([first, slow, after]), { values: {}, workflowId: "wf-lost" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isLeaseLostError(error)).toBe(true);
    const lost = error as LeaseLostError;
    expect(lost).toBeInstanceOf(LeaseLostError);
    expect(lost.workflowId).toBe("wf-lost");
    expect(lost.owner).toBe("holder");
    expect(lost.takenBy).toBe("thief");
    expect(lost.message).toContain("lost its lease");
    expect(lost.message).toContain("leaseTtlMs");
    expect(reason).toBe(lost);
    expect(stepsAtTakeover).toBeGreaterThanOrEqual(0);
    expect((await cp.getSteps("wf-lost", { includeInputs: true })).length).toBe(stepsAtTakeover);
    const wf = (await cp.getWorkflow("wf-lost"))!;
    expect(wf.status).toBe("running");
    expect(wf.lease?.owner).toBe("thief");
    const late = events.filter((e) => e.type === "Warning" && e.message.includes("longer than the lease"));
    expect(late.length).toBeGreaterThanOrEqual(1);
    expect(events.some((e) => e.type === "RunEnd" && e.status === "completed")).toBe(false);
    await runner.close();
  });

  it("a node that blocks past the lease and returns: its fenced step is rejected and the run fails with LeaseLostError", async () => {
    const cp = new MemoryCheckpointer();
    const runner = new Runner({ checkpointer: cp, owner: "holder", leaseTtlMs: 100, leaseRenewIntervalMs: 30 });
    const blocker = node({ name: "blocker", output: "b" }, async () => {
      block(200);
      await cp.claimWorkflow("wf-fenced", { owner: "thief", ttlMs: 60_000 });
      return 1;
    });
    const error = await runner.run(new Graph([blocker]), { workflowId: "wf-fenced" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isLeaseLostError(error)).toBe(true);
    expect(await cp.getSteps("wf-fenced", { includeInputs: true })).toEqual([]);
    expect((await cp.getWorkflow("wf-fenced"))!.status).toBe("running");
    await runner.close();
  });

  it("runner.stop from another Runner on the same store stops the run within the stop poll interval", async () => {
    const cp = new MemoryCheckpointer();
    const holder = new Runner({ checkpointer: cp, owner: "a", stopPollIntervalMs: 50 });
    const other = new Runner({ checkpointer: cp, owner: "b" });
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    let reason: unknown;
    const wait = node({ name: "wait", output: "x", inputs: [] }, async (_: Record<string, never>, ctx) => {
      started();
      await aborted(ctx.signal);
      reason = ctx.signal.reason;
      return 1;
    });
    const result = holder.run(new Graph([wait]), { workflowId: "wf-stop" });
    await running;
    const t0 = Date.now();
    expect(await other.stop("wf-stop", { why: "cancelled" })).toBe(true);
    const r = await result;
    const latency = Date.now() - t0;
    expect(r.status).toBe("stopped");
    expect(reason).toEqual({ why: "cancelled" });
    expect(latency).toBeLessThan(2_000);
    const wf = (await cp.getWorkflow("wf-stop"))!;
    expect(wf.status).toBe("stopped");
    expect(wf.stopRequested).toBeUndefined();
    // An explicit resume runs again (the old request is handled).
    let calls = 0;
    const quick = node({ name: "quick", output: "x" }, () => ++calls);
    const again = await holder.run(new Graph([quick]), { workflowId: "wf-stop", force: true });
    expect(again.status).toBe("completed");
    expect(calls).toBe(1);
    await holder.close();
    await other.close();
  });

  it("a stop asked for while nobody runs the workflow ends it stopped; an explicit resume clears the request and runs", async () => {
    const cp = new MemoryCheckpointer();
    const runner = new Runner({ checkpointer: cp });
    let calls = 0;
    const ask = node({ name: "ask", output: "answer" }, () => ++calls);
    const graph = new Graph([ask]);
    await cp.createWorkflow({ id: "wf-idle", graphName: "graph", graphHash: graph.definitionHash });
    expect(await runner.stop("wf-idle", "no longer needed")).toBe(true);
    const stopped = (await cp.getWorkflow("wf-idle"))!;
    expect(stopped.status).toBe("stopped");
    expect(stopped.stopRequested?.info).toBe("no longer needed");
    expect(await runner.stop("unknown-id")).toBe(false);
    const r = await runner.run(graph, { workflowId: "wf-idle" });
    expect(r.status).toBe("completed");
    expect(calls).toBe(1);
    expect((await cp.getWorkflow("wf-idle"))!.stopRequested).toBeUndefined();
    await runner.close();
  });

  it("ctx.idempotencyKey is the same when a step runs again and differs for every other step", async () => {
    const cp = new MemoryCheckpointer();
    const runner = new Runner({ checkpointer: cp });
    const keys: string[] = [];
    let fail = true;
    const pay = node({ name: "pay", output: "paid" }, ({ amount }: { amount: number }, ctx) => {
      keys.push(ctx.idempotencyKey);
      if (fail) throw new Error("process died");
      return amount;
    });
    const graph = new Graph([pay]);
    await runner.run(graph, { values: { amount: 5 }, workflowId: "wf-key", errorHandling: "continue" });
    fail = false;
    await runner.run(graph, { workflowId: "wf-key" });
    expect(keys.length).toBe(2);
    expect(keys[1]).toBe(keys[0]);
    await runner.run(graph, { values: { amount: 6 }, workflowId: "wf-key" });
    expect(keys.length).toBe(3);
    expect(keys[2]).not.toBe(keys[0]);
    expect(keys[0]!.startsWith("wf-key:pay:")).toBe(true);
    await runner.close();
  });

  it("rejects lease options that cannot work, naming the option", () => {
    const bad = (options: object): unknown => {
      try {
        new Runner(options);
      } catch (e) {
        return e;
      }
      return undefined;
    };
    const tooSlow = bad({ leaseTtlMs: 1000, leaseRenewIntervalMs: 600 });
    expect(isInvalidOptionError(tooSlow)).toBe(true);
    expect((tooSlow as Error).message).toContain("at most half of 'leaseTtlMs' (1000 ms)");
    expect((tooSlow as { option: string }).option).toBe("leaseRenewIntervalMs");
    expect(isInvalidOptionError(bad({ stopPollIntervalMs: 0 }))).toBe(true);
    expect(isInvalidOptionError(bad({ leaseTtlMs: -5 }))).toBe(true);
    expect(bad({ leaseTtlMs: 1000, leaseRenewIntervalMs: 500, stopPollIntervalMs: 100 })).toBeUndefined();
  });
});
