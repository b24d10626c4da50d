import { INPUT_STEP, isInputRecord, MemoryCheckpointer } from "@graph/checkpoint";
import { Graph, node } from "@graph/core";
import { describe, expect, it } from "vitest";
import { Runner } from "../src/index.js";

describe("input records: a distinct, documented record kind", () => {
  it("getSteps() gives one record per executed node; input records (with a real turn boundary) only on request", async () => {
    const cp = new MemoryCheckpointer();
    const runner = new Runner({ checkpointer: cp });
    const double = node({ name: "double", output: "y" }, ({ x }: { x: number }) => x * 2);
    const g = new Graph([double]);
    await runner.run(g, { workflowId: "turns", values: { x: 1 } });
    await runner.run(g, { workflowId: "turns", values: { x: 2 } });
    expect((await cp.getSteps("turns")).map((s) => [s.nodeName, s.values])).toEqual([
      ["double", { y: 2 }],
      ["double", { y: 4 }],
    ]);
    const all = await cp.getSteps("turns", { includeInputs: true });
    expect(all.map((s) => [s.kind ?? "node", s.turnStart ?? false, s.values])).toEqual([
      ["input", true, { x: 1 }],
      ["node", false, { y: 2 }],
      ["input", true, { x: 2 }],
      ["node", false, { y: 4 }],
    ]);
    expect(all.filter(isInputRecord)).toHaveLength(2);
    await runner.close();
  });

  it("an input record written by an older version (decision ['turn']) reads back as turnStart", async () => {
    const cp = new MemoryCheckpointer();
    await cp.createWorkflow({ id: "old", graphName: "g", graphHash: "h" });
    const at = new Date(0);
    await cp.saveStep({
      workflowId: "old",
      superstep: 1,
      nodeName: INPUT_STEP,
      index: 1,
      status: "completed",
      inputVersions: {},
      values: { x: 1 },
      decision: ["turn"],
      truncated: false,
      startedAt: at,
      completedAt: at,
    });
    const [record] = await cp.getSteps("old", { includeInputs: true });
    expect(record).toMatchObject({ kind: "input", turnStart: true, values: { x: 1 } });
    expect(record!.decision).toBeUndefined();
  });
});
