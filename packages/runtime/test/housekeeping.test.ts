// Retention housekeeping in the runner: never in a run, a timer that sweeps in batches, one sweeper per store
// through a lease, and the option checks.
import { MemoryCheckpointer } from "@graph/checkpoint";
import { Graph, node } from "@graph/core";
import { describe, expect, it } from "vitest";
import { isInvalidOptionError, Runner } from "../src/index.js";

const graph = new Graph([node({ name: "inc", inputs: ["x"], output: "y" }, async ({ x }: { x: number }) => x + 1)], {
  name: "hk",
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function expired(checkpointer: MemoryCheckpointer, ids: readonly string[]): Promise<void> {
  for (const id of ids) {
    await checkpointer.createWorkflow({ id, graphName: "old", graphHash: "h" });
    await checkpointer.updateWorkflow(id, { status: "completed" });
  }
}

describe("runner housekeeping", () => {
  it("a run never sweeps; runner.sweepExpired deletes every expired workflow in batches", async () => {
    const checkpointer = new MemoryCheckpointer({ policy: { ttlMs: 300 } });
    const runner = new Runner({ checkpointer, housekeeping: { intervalMs: 60_000, batchSize: 2 } });
    // The store is set up by the first run (the memory store also prunes in its setup).
    await runner.run(graph, { workflowId: "first", values: { x: 0 } });
    await expired(checkpointer, ["a", "b", "c", "d", "e"]);
    await sleep(350);
    const result = await runner.run(graph, { workflowId: "fresh", values: { x: 1 } });
    expect(result.values["y"]).toBe(2);
    expect(await checkpointer.getWorkflow("a")).toBeDefined();
    // 2 + 2 + 2 (with "first"): the fourth batch finds fewer than it may delete and ends the sweep.
    expect(await runner.sweepExpired()).toEqual({ deleted: 6, batches: 4 });
    for (const id of ["a", "b", "c", "d", "e"]) expect(await checkpointer.getWorkflow(id)).toBeUndefined();
    expect(await checkpointer.getWorkflow("fresh")).toBeDefined();
    await runner.close();
  });

  it("the timer sweeps on its own", async () => {
    const checkpointer = new MemoryCheckpointer({ policy: { ttlMs: 20 } });
    const runner = new Runner({ checkpointer, housekeeping: { intervalMs: 100 } });
    await expired(checkpointer, ["t1", "t2"]);
    const deadline = Date.now() + 5_000;
    while ((await checkpointer.getWorkflow("t2")) !== undefined && Date.now() < deadline) await sleep(50);
    expect(await checkpointer.getWorkflow("t1")).toBeUndefined();
    expect(await checkpointer.getWorkflow("t2")).toBeUndefined();
    await runner.close();
  });

  it("one sweeper per store: while another holds the sweeper lease, a sweep does nothing", async () => {
    const checkpointer = new MemoryCheckpointer({ policy: { ttlMs: 20 } });
    const runner = new Runner({ checkpointer, housekeeping: false });
    await runner.run(graph, { workflowId: "first", values: { x: 0 } });
    await checkpointer.deleteWorkflow("first");
    await expired(checkpointer, ["x"]);
    await sleep(40);
    // What another process's sweeper holds.
    await checkpointer.createWorkflow({
      id: "~permits/sweeper",
      graphName: "~permit",
      graphHash: "-",
      parentId: "~permits",
    });
    await checkpointer.claimWorkflow("~permits/sweeper", { owner: "other-process#sweeper", ttlMs: 60_000 });
    expect(await runner.sweepExpired()).toBeUndefined();
    expect(await checkpointer.getWorkflow("x")).toBeDefined();
    await checkpointer.releaseWorkflow("~permits/sweeper", { owner: "other-process#sweeper", epoch: 1 });
    expect(await runner.sweepExpired()).toEqual({ deleted: 1, batches: 1 });
    // The lease record is a child of the permits' root: no listing of roots shows it, and retention never takes it.
    expect((await checkpointer.listWorkflows({ rootsOnly: true })).workflows.map((w) => w.id)).toEqual([]);
    await runner.close();
  });

  it("without a ttlMs policy there is nothing to sweep", async () => {
    const runner = new Runner({ checkpointer: new MemoryCheckpointer() });
    expect(await runner.sweepExpired()).toBeUndefined();
    await runner.close();
    await expect(runner.sweepExpired()).rejects.toThrow("runner.sweepExpired() was called after runner.close()");
  });

  it.each([
    [{ every: 5 }, "housekeeping.every"],
    [{ intervalMs: 10 }, "housekeeping.intervalMs"],
    [{ batchSize: 0 }, "housekeeping.batchSize"],
    [{ batchSize: 1.5 }, "housekeeping.batchSize"],
    [true, "housekeeping"],
  ])("refuses housekeeping %j", (housekeeping, path) => {
    let error: unknown;
    try {
      new Runner({ checkpointer: new MemoryCheckpointer(), housekeeping: housekeeping as never });
    } catch (caught) {
      error = caught;
    }
    expect(isInvalidOptionError(error)).toBe(true);
    expect((error as Error).message).toContain(path);
  });
});
