import { MemoryCheckpointer } from "@graph/checkpoint";
import { describe, expect, it } from "vitest";
import { Runner } from "../src/index.js";
import { planExecute, resumeAfterPause, resumeAfterStop } from "./workflows/planExecute.js";

// The same scenarios run on SQLite and PostgreSQL in planExecute.*.int.test.ts.
describe("plan-and-execute: resuming a nested loop continues it (MemoryCheckpointer)", () => {
  it("after a stop during the second step", () => resumeAfterStop(new MemoryCheckpointer(), "pe-stop"));
  it("after each pause for an approval", () => resumeAfterPause(new MemoryCheckpointer(), "pe-pause"));
  it("after a stop, with an executor that names no entrypoint", () =>
    resumeAfterStop(new MemoryCheckpointer(), "pe-stop-unnamed", false));
  it("after each pause, with an executor that names no entrypoint", () =>
    resumeAfterPause(new MemoryCheckpointer(), "pe-pause-unnamed", false));
});

describe("plan-and-execute without the executor's entrypoint", () => {
  it("the executor's loop starts at the gate's target that reads only accumulators, with no tie", () => {
    for (const approval of [false, true]) {
      const { graph } = planExecute({ approval, entrypoint: false });
      const executor = graph.nodes.get("executor");
      if (executor?.kind !== "graph") throw new Error("executor is a GraphNode");
      const inner = executor.graph;
      expect(inner.entrypoint).toEqual([]);
      expect(inner.analysis.loopEntries("replan")).toEqual([approval ? "prepareStep" : "agent"]);
      expect(inner.warnings).toEqual([]);
    }
  });
});

describe("plan-and-execute: a new parent value restarts the child's loop", () => {
  it("a new objective makes the planner write a new plan, and the executor starts over from it", async () => {
    const runner = new Runner({ checkpointer: new MemoryCheckpointer() });
    const wf = planExecute({ approval: false });
    await runner.run(wf.graph, { workflowId: "pe-turns", values: { objective: "q" } });
    const second = await runner.run(wf.graph, { workflowId: "pe-turns", values: { objective: "r" } });
    expect(second.status).toBe("completed");
    expect(wf.toolCalls).toEqual(["search q 1", "search q 2", "search q 3", "search r 1", "search r 2", "search r 3"]);
    // Same objective again: nothing changed, nothing runs.
    await runner.run(wf.graph, { workflowId: "pe-turns", values: { objective: "r" } });
    expect(wf.toolCalls).toHaveLength(6);
    await runner.close();
  });
});
