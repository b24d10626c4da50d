import { END, Graph, interrupt, node, route } from "@graph/core";

/**
 * Plan-and-execute, in the shape of the runtime's ported LangGraph.js example (runtime/test/workflows/planExecute.ts):
 * a `planner` (the model) writes `plan`; a nested `executor` loops `agent → replan → shouldEnd → agent` until the
 * plan is done, with `approveStep` pausing before each step when `approval` is on. `stopAfter` is the replanner's
 * policy: v1 finishes the whole plan (1 step left → done); v2 stops earlier (2 left → done).
 */
export function planExecute(options: {
  readonly approval: boolean;
  readonly stopAfter?: number;
  /** A replanner with other code (a closure value like `stopAfter` does not change a node's hash; its source does). */
  readonly editedReplanner?: boolean;
}) {
  const calls = { planner: 0, search: [] as string[] };
  const stopAt = options.stopAfter ?? 1;
  const later = <T>(value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), 1));

  const planner = node({ name: "planner", output: "plan" }, async ({ objective }: { objective: string }) => {
    calls.planner++;
    return later([`search ${objective} 1`, `search ${objective} 2`, `search ${objective} 3`]);
  });
  const agent = node(
    { name: "agent", output: "pastSteps" },
    async ({ plan, pastSteps, approval = "found" }: { plan: string[]; pastSteps: string[]; approval?: string }) => {
      const step = plan[0]!;
      calls.search.push(step);
      return later([...pastSteps, `${step} → ${approval}`]);
    },
  );
  const replan = node(
    { name: "replan", output: ["plan", "response"] },
    async ({ plan, pastSteps }: { plan: string[]; pastSteps: string[] }) =>
      later({ plan: plan.slice(1), response: plan.length <= stopAt ? `done: ${pastSteps.join("; ")}` : "" }),
  );
  const editedReplan = node(
    { name: "replan", output: ["plan", "response"] },
    async ({ plan, pastSteps }: { plan: string[]; pastSteps: string[] }) =>
      later({ plan: plan.slice(1), response: plan.length <= stopAt ? `finished: ${pastSteps.join(" / ")}` : "" }),
  );
  const next = options.approval ? "prepareStep" : "agent";
  const shouldEnd = route({ name: "shouldEnd", targets: [next, END] }, ({ response }: { response: string }) =>
    response ? END : next,
  );
  const prepareStep = node({ name: "prepareStep", output: "request" }, ({ plan }: { plan: string[] }) => ({
    step: plan[0],
  }));
  const approveStep = interrupt({ name: "approveStep", input: "request", response: "approval" });
  const inner: Graph = options.approval
    ? new Graph([prepareStep, approveStep, agent, options.editedReplanner ? editedReplan : replan, shouldEnd], {
        name: "executor",
        entrypoint: "prepareStep",
      })
    : new Graph([agent, replan, shouldEnd], { name: "executor", entrypoint: "agent" });
  const executor = inner.bind({ pastSteps: [] }).asNode().withOutputs({ plan: "remainingPlan" });
  return { graph: new Graph([planner, executor], { name: "planAndExecute" }), calls };
}
