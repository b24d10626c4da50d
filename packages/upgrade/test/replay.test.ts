import { MemoryCheckpointer } from "@graph/checkpoint";
import { Runner } from "@graph/runtime";
import { describe, expect, it } from "vitest";
import { isReplayError, replay } from "../src/index.js";
import { expectReplay } from "../src/vitest.js";
import { planExecute } from "./support/planExecute.js";

const ALL = ["search q 1 → found", "search q 2 → found", "search q 3 → found"];
const DONE = `done: ${ALL.join("; ")}`;

/** A completed plan-and-execute run (answering each approval with ok1, ok2, …), stored in memory. */
async function storedRun(approval: boolean) {
  const checkpointer = new MemoryCheckpointer();
  const runner = new Runner({ checkpointer, closeCheckpointer: false });
  const wf = planExecute({ approval });
  let result = await runner.run(wf.graph, { workflowId: "pe", values: { objective: "q" } });
  for (let i = 1; result.status === "paused" && i <= 5; i++)
    result = await runner.run(wf.graph, { workflowId: "pe", values: { approval: `ok${i}` } });
  expect(result.status).toBe("completed");
  await runner.close();
  return checkpointer;
}

describe("replay: a stored plan-and-execute run on new code, the model node mocked", () => {
  it("the same code reproduces the run: no diff; the model is not called, the tool is", async () => {
    const checkpointer = await storedRun(false);
    const same = planExecute({ approval: false });
    const replayed = await replay(checkpointer, "pe", same.graph, { mock: ["plan*"] });
    expect(replayed.same).toBe(true);
    expect(replayed.diff).toEqual({ values: [], decisions: [] });
    expect(replayed.mocked).toEqual({ planner: { recorded: 1, used: 1 } });
    expect(same.calls).toEqual({ planner: 0, search: ["search q 1", "search q 2", "search q 3"] });
    expect(replayed.result.status).toBe("completed");
    expect(replayed.result.get("executor/response")).toBe(DONE);
  });

  it("a new replanner policy: the diff names the values and the loop decisions that changed", async () => {
    const checkpointer = await storedRun(false);
    const v2 = planExecute({ approval: false, stopAfter: 2 });
    const replayed = await replay(checkpointer, "pe", v2.graph, { mock: ["planner"], ignore: ["executor/*"] });
    expect(replayed.same).toBe(false);
    const two = ALL.slice(0, 2);
    expect(replayed.diff.values).toEqual([
      { path: "pastSteps", kind: "changed", before: ALL, after: two },
      { path: "remainingPlan", kind: "changed", before: [], after: ["search q 3"] },
      { path: "response", kind: "changed", before: DONE, after: `done: ${two.join("; ")}` },
    ]);
    expect(replayed.diff.decisions).toEqual([
      { gate: "executor/shouldEnd", before: ["agent", "agent", "END"], after: ["agent", "END"] },
    ]);
    expect(v2.calls.search).toEqual(["search q 1", "search q 2"]);
  });

  it("nested nodes by glob, and the stored answers replayed through the nested interrupt", async () => {
    const checkpointer = await storedRun(true);
    const same = planExecute({ approval: true });
    const replayed = await expectReplay(checkpointer, "pe", same.graph, { mock: ["planner", "**/agent"] });
    expect(replayed.mocked).toEqual({ planner: { recorded: 1, used: 1 }, "executor/agent": { recorded: 3, used: 3 } });
    expect(same.calls).toEqual({ planner: 0, search: [] });
    expect(replayed.result.get("executor/response")).toBe("done: search q 1 → ok1; search q 2 → ok2; search q 3 → ok3");
  });

  it("expectReplay fails the test with the diff when the new code decides differently", async () => {
    const checkpointer = await storedRun(false);
    const v2 = planExecute({ approval: false, stopAfter: 2 });
    const failure = await expectReplay(checkpointer, "pe", v2.graph, { mock: ["planner"] }).catch((e: unknown) => e);
    expect((failure as Error).message).toContain("replay of 'pe' on the new graph differs from the stored run");
    expect((failure as Error).message).toContain("executor/shouldEnd");
  });

  it("a mocked node called more often than recorded is a ReplayError, not a diff", async () => {
    const checkpointer = await storedRun(false);
    // Never done: the loop asks the mocked agent a fourth time.
    const v3 = planExecute({ approval: false, stopAfter: 0 });
    const error = await replay(checkpointer, "pe", v3.graph, { mock: ["executor/agent"] }).catch((e: unknown) => e);
    expect(isReplayError(error)).toBe(true);
    expect((error as Error).message).toContain(
      "Node 'executor/agent' is mocked but the stored run has no recorded output left for call 4 (it recorded 3)",
    );
  });

  it("an unknown stored workflow is a ReplayError", async () => {
    const error = await replay(new MemoryCheckpointer(), "nope", planExecute({ approval: false }).graph).catch(
      (e: unknown) => e,
    );
    expect(isReplayError(error)).toBe(true);
    expect((error as Error).message).toBe(
      "replay: no stored workflow 'nope'. Pass the id of a workflow in this checkpointer.",
    );
  });
});
