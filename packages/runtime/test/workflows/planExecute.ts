import type { Checkpointer } from "@graph/checkpoint";
import { END, Graph, interrupt, node, route } from "@graph/core";
import { expect } from "vitest";
import { Runner } from "../../src/index.js";

/**
 * Plan-and-execute (ported from the LangGraph.js example), with async stand-ins for the model and the search tool:
 * a planner writes `plan`; a nested executor loops `agent → replan → shouldEnd → agent` until the plan is done.
 * The inner replanner rewrites `plan`, the parent's value, which is what a resume must not undo.
 * With `approval`, each step waits for a human (`approveStep`) before the agent runs it. With `entrypoint: false` the
 * executor names no entrypoint: `plan` and `pastSteps` are accumulators (each writer reads them), so the loop starts
 * at the gate's target that reads only those — `agent`, or `prepareStep` with approvals — and runs the same way.
 */
export function planExecute(options: { approval: boolean; entrypoint?: boolean }) {
  const named = options.entrypoint ?? true;
  const toolCalls: string[] = [];
  let stopBeforeStep: ((step: string) => void) | undefined;
  const later = <T>(value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), 2));

  const planner = node({ name: "planner", output: "plan" }, async ({ objective }: { objective: string }) =>
    later([`search ${objective} 1`, `search ${objective} 2`, `search ${objective} 3`]),
  );
  const agent = node(
    { name: "agent", output: "pastSteps" },
    async ({ plan, pastSteps }: { plan: string[]; pastSteps: string[]; approval?: string }) => {
      const step = plan[0]!;
      stopBeforeStep?.(step);
      toolCalls.push(step);
      return later([...pastSteps, `${step} → found`]);
    },
  );
  const agentWithApproval = node(
    { name: "agent", output: "pastSteps" },
    async ({ plan, pastSteps, approval }: { plan: string[]; pastSteps: string[]; approval: string }) => {
      const step = plan[0]!;
      toolCalls.push(step);
      return later([...pastSteps, `${step} → ${approval}`]);
    },
  );
  const replan = node(
    { name: "replan", output: ["plan", "response"] },
    async ({ plan, pastSteps }: { plan: string[]; pastSteps: string[] }) =>
      later({ plan: plan.slice(1), response: plan.length <= 1 ? `done: ${pastSteps.join("; ")}` : "" }),
  );
  const shouldEnd = route(
    { name: "shouldEnd", targets: [options.approval ? "prepareStep" : "agent", END] },
    ({ response }: { response: string }) => (response ? END : options.approval ? "prepareStep" : "agent"),
  );
  const prepareStep = node({ name: "prepareStep", output: "request" }, ({ plan }: { plan: string[] }) => ({
    step: plan[0],
  }));
  const approveStep = interrupt({ name: "approveStep", input: "request", response: "approval" });
  // Two different graphs behind one name: typed as a plain Graph (a union of typed graphs has no callable bind).
  const inner: Graph = options.approval
    ? new Graph([prepareStep, approveStep, agentWithApproval, replan, shouldEnd], {
        name: "executor",
        ...(named ? { entrypoint: "prepareStep" } : {}),
      })
    : new Graph([agent, replan, shouldEnd], { name: "executor", ...(named ? { entrypoint: "agent" } : {}) });
  // The executor also outputs its rewritten plan; renamed so it does not clash with the planner's.
  const executor = inner.bind({ pastSteps: [] }).asNode().withOutputs({ plan: "remainingPlan" });
  const graph = new Graph([planner, executor], { name: "planAndExecute" });
  return {
    graph,
    toolCalls,
    /** Calls `fn` right before the agent runs `step` (once). */
    beforeStep(step: string, fn: () => void) {
      stopBeforeStep = (s) => {
        if (s !== step) return;
        stopBeforeStep = undefined;
        fn();
      };
    },
  };
}

/** Stopped during the second step and resumed with `{}`: step one's search does not run again. */
export async function resumeAfterStop(
  checkpointer: Checkpointer,
  workflowId: string,
  entrypoint = true,
): Promise<void> {
  const runner = new Runner({ checkpointer });
  try {
    const wf = planExecute({ approval: false, entrypoint });
    wf.beforeStep("search q 2", () => void runner.stop(workflowId));
    const stopped = await runner.run(wf.graph, { workflowId, values: { objective: "q" } });
    expect(stopped.status).toBe("stopped");
    expect(wf.toolCalls).toEqual(["search q 1", "search q 2"]);
    const resumed = await runner.run(wf.graph, { workflowId, values: {} });
    expect(resumed.status).toBe("completed");
    // Step 1 ran once; step 2 again (its first call was cut off by the stop); step 3 once.
    expect(wf.toolCalls).toEqual(["search q 1", "search q 2", "search q 2", "search q 3"]);
    expect(resumed.get("executor/response")).toBe("done: search q 1 → found; search q 2 → found; search q 3 → found");
  } finally {
    await runner.close();
  }
}

/** Paused before each step for an approval; every answer continues where the loop is, never from step one. */
export async function resumeAfterPause(
  checkpointer: Checkpointer,
  workflowId: string,
  entrypoint = true,
): Promise<void> {
  const runner = new Runner({ checkpointer });
  try {
    const wf = planExecute({ approval: true, entrypoint });
    let result = await runner.run(wf.graph, { workflowId, values: { objective: "q" } });
    const asked: unknown[] = [];
    while (result.status === "paused") {
      asked.push(result.pause?.value);
      if (asked.length > 5) break;
      result = await runner.run(wf.graph, { workflowId, values: { approval: `ok${asked.length}` } });
    }
    expect(asked).toEqual([{ step: "search q 1" }, { step: "search q 2" }, { step: "search q 3" }]);
    expect(result.status).toBe("completed");
    expect(wf.toolCalls).toEqual(["search q 1", "search q 2", "search q 3"]);
    expect(result.get("executor/response")).toBe("done: search q 1 → ok1; search q 2 → ok2; search q 3 → ok3");
  } finally {
    await runner.close();
  }
}
