// Shared by the SQLite and PostgreSQL workloads: the 10-node chain run once per workflow id, and the hand-written
// floor that stores one row per step.
import type { Graph } from "@graph/core";
import type { Runner } from "@graph/runtime";
import { chainSteps, check } from "./graphs.js";
import type { LangGraphApp } from "./langgraph.js";

export const DURABLE_LENGTH = 10;
const steps = chainSteps(DURABLE_LENGTH);

export async function runOurs(runner: Runner, graph: Graph, runs: number, prefix: string): Promise<void> {
  let last: unknown;
  for (let i = 0; i < runs; i++)
    last = (await runner.run(graph, { values: { v0: 0 }, workflowId: `${prefix}-${i}` })).values[`v${DURABLE_LENGTH}`];
  check("ours durable chain", last, DURABLE_LENGTH);
}

export async function runLangGraph(app: LangGraphApp, runs: number, prefix: string): Promise<void> {
  let last: unknown;
  for (let i = 0; i < runs; i++)
    last = (await app.invoke({ v: 0 }, { configurable: { thread_id: `${prefix}-${i}` } }))["v"];
  check("LangGraph durable chain", last, DURABLE_LENGTH);
}

/** Where the floor writes: a workflow row at start and end, one row per step. */
export interface FloorStore {
  startWorkflow(id: string): Promise<void> | void;
  saveStep(id: string, index: number, node: string, value: string): Promise<void> | void;
  finishWorkflow(id: string): Promise<void> | void;
}

export async function runFloor(store: FloorStore, runs: number, prefix: string): Promise<void> {
  let last: unknown;
  for (let i = 0; i < runs; i++) {
    const id = `${prefix}-${i}`;
    await store.startWorkflow(id);
    const state: Record<string, number> = { v0: 0 };
    for (let s = 0; s < steps.length; s++) {
      const step = steps[s]!;
      const value = await step.fn({ [step.input]: state[step.input]! });
      state[step.output] = value;
      await store.saveStep(id, s, step.name, JSON.stringify({ [step.output]: value }));
    }
    await store.finishWorkflow(id);
    last = state[`v${DURABLE_LENGTH}`];
  }
  check("floor durable chain", last, DURABLE_LENGTH);
}
