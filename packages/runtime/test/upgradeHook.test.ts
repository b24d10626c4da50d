import { MemoryCheckpointer } from "@graph/checkpoint";
import { Graph, node } from "@graph/core";
import { describe, expect, it } from "vitest";
import { Runner, type RunUpgrade } from "../src/index.js";

const double = node({ name: "double", output: "y" }, ({ x }: { x: number }) => x * 2);
const graph = new Graph([double], { name: "g" });

describe("the upgrade hook (RunnerOptions.upgrade)", () => {
  it("is called once before each top-level run, with the graph, the run's id (a generated one too) and the checkpointer", async () => {
    const checkpointer = new MemoryCheckpointer();
    const seen: Array<{ graph: Graph; workflowId: string; stored: boolean; force: boolean }> = [];
    const upgrade: RunUpgrade = {
      async prepare(context) {
        seen.push({
          graph: context.graph,
          workflowId: context.workflowId,
          stored: (await context.checkpointer.getWorkflow(context.workflowId)) !== undefined,
          force: context.force,
        });
      },
    };
    const runner = new Runner({ checkpointer, upgrade });
    const first = await runner.run(graph, { workflowId: "w", values: { x: 2 } });
    const second = await runner.run(graph, { values: { x: 3 }, force: true });
    expect([first.values["y"], second.values["y"]]).toEqual([4, 6]);
    expect(seen).toEqual([
      { graph, workflowId: "w", stored: false, force: false },
      { graph, workflowId: second.workflowId, stored: false, force: true },
    ]);
    await runner.close();
  });

  it("a rejection fails the run with that error before anything is stored", async () => {
    const checkpointer = new MemoryCheckpointer();
    const refusal = new Error("not this version");
    const runner = new Runner({
      checkpointer,
      closeCheckpointer: false,
      upgrade: { prepare: () => Promise.reject(refusal) },
    });
    await expect(runner.run(graph, { workflowId: "w", values: { x: 2 } })).rejects.toBe(refusal);
    expect(await checkpointer.getWorkflow("w")).toBeUndefined();
    await runner.close();
  });

  it("needs a { prepare } object and a checkpointer", () => {
    expect(() => new Runner({ upgrade: { prepare: async () => undefined } })).toThrow("new Runner(): option 'upgrade'");
    expect(() => new Runner({ checkpointer: new MemoryCheckpointer(), upgrade: {} as unknown as RunUpgrade })).toThrow(
      "a { prepare(context) } object (upgrades() of @graph/upgrade) with a checkpointer",
    );
  });
});
