import { MemoryCheckpointer } from "@graph/checkpoint";
import { Graph, interrupt, type NodeContext, node } from "@graph/core";
import { describe, expect, it } from "vitest";
import { Runner } from "../src/index.js";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function counted(stopAfter: number, onStop: () => void) {
  const written: { page: number; runId: string }[] = [];
  const pulled: number[] = [];
  const pages = node({ output: "page", frames: { window: 2 } }, async function* pages({ count }: { count: number }) {
    for (let i = 0; i < count; i++) {
      pulled.push(i);
      yield i;
    }
  });
  const write = node({ output: "written" }, async function write({ page }: { page: number }, ctx: NodeContext) {
    await sleep(2);
    written.push({ page, runId: ctx.runId });
    if (written.length === stopAfter) onStop();
    return page * 10;
  });
  return { graph: new Graph([pages, write]), written, pulled };
}

describe("frames: durable per-frame results", () => {
  it("a stopped pipeline resumes without re-running finished frames (memory checkpointer)", async () => {
    const checkpointer = new MemoryCheckpointer();
    const runner = new Runner({ checkpointer });
    let stop = () => {};
    const p = counted(5, () => stop());
    const handle = runner.start(p.graph, { values: { count: 12 }, workflowId: "frames-stop" });
    stop = () => void handle.stop();
    const first = await handle.result;
    expect(first.status).toBe("stopped");
    // A frame is finished when its child workflow `<id>/pages/<i>` is stored completed.
    const finished: number[] = [];
    for (let i = 0; i < 12; i++)
      if ((await checkpointer.getWorkflow(`frames-stop/pages/${i}`))?.status === "completed") finished.push(i);
    expect(finished.length).toBeGreaterThanOrEqual(4);
    const second = await runner.run(p.graph, { values: { count: 12 }, workflowId: "frames-stop" });
    expect(second.status).toBe("completed");
    expect(second.values.written).toEqual(Array.from({ length: 12 }, (_, i) => i * 10));
    const firstRun = p.written.filter((w) => w.runId === first.runId).map((w) => w.page);
    const secondRun = p.written.filter((w) => w.runId === second.runId).map((w) => w.page);
    // The frames cut off by the stop are at most the window (2).
    expect(firstRun.length - finished.length).toBeLessThanOrEqual(2);
    // No finished frame ran again; every other frame ran in the second run.
    expect(secondRun.filter((f) => finished.includes(f))).toEqual([]);
    expect([...secondRun, ...finished].sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i));
    // The generator is re-driven from the start: it yields all 12 frames again.
    expect(p.pulled.length).toBeGreaterThanOrEqual(12 + finished.length);
    await runner.close();
  });

  it("a finished pipeline is replayed from its step when the run resumes after a later pause", async () => {
    const checkpointer = new MemoryCheckpointer();
    const runner = new Runner({ checkpointer });
    const p = counted(-1, () => {});
    const total = node(
      { name: "total", output: "sum", gather: true },
      function total({ written }: { written: number[] }) {
        return written.reduce((a, b) => a + b, 0);
      },
    );
    const approve = interrupt({ name: "approve", input: "sum", response: "ok" });
    const graph = new Graph([...p.graph.nodes.values(), total, approve]);
    const first = await runner.run(graph, { values: { count: 4 }, workflowId: "frames-pause" });
    expect(first.status).toBe("paused");
    expect(first.values.sum).toBe(60);
    const second = await runner.run(graph, { values: { ok: true }, workflowId: "frames-pause" });
    expect(second.status).toBe("completed");
    expect(second.values).toMatchObject({ written: [0, 10, 20, 30], sum: 60, ok: true });
    expect(second.get("pages/written" as never)).toEqual([0, 10, 20, 30]);
    expect(p.written.map((w) => w.page).sort()).toEqual([0, 1, 2, 3]); // nothing ran twice
    await runner.close();
  });
});
