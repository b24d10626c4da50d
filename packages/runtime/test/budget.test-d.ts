import { asBudgetPause, BUDGET_KEY, type Budget, type BudgetPause, Graph, node, type Usage } from "@graph/core";
import { describe, expectTypeOf, test } from "vitest";
import { Runner } from "../src/index.js";

const think = node({ output: "answer" }, async ({ question }: { question: string }, ctx) => {
  ctx.usage({ tokens: 12, costUsd: 0.001 });
  // @ts-expect-error the runner measures wall time; nodes don't report it
  ctx.usage({ wallMs: 5 });
  return question;
});
const graph = new Graph([think]);
const runner = new Runner();

describe("budgets are typed", () => {
  test("a budget option, a grant under BUDGET_KEY, result.usage and the typed budget pause", async () => {
    const r = await runner.run(graph, { values: { question: "q" }, budget: { tokens: 100, costUsd: 1 } });
    expectTypeOf(r.usage).toEqualTypeOf<Usage | undefined>();
    expectTypeOf(asBudgetPause(r.pause)).toEqualTypeOf<BudgetPause | undefined>();
    const over = asBudgetPause(r.pause);
    if (over) {
      expectTypeOf(over.value.spent).toEqualTypeOf<Usage>();
      expectTypeOf(over.value.budget).toEqualTypeOf<Budget>();
      expectTypeOf(over.responseKey).toEqualTypeOf<"~budget">();
    }
    void runner.run(graph, { workflowId: "w", values: { [BUDGET_KEY]: { tokens: 1_000 } } });
    // @ts-expect-error a grant has the budget's fields
    void runner.run(graph, { workflowId: "w", values: { [BUDGET_KEY]: { tokens: "more" } } });
    // @ts-expect-error budgets are numbers
    void runner.run(graph, { values: { question: "q" }, budget: { tokens: "100" } });
  });
});
