import type { Budget, Usage } from "./NodeContext.js";
import type { PauseOf } from "./types/ports.js";

/**
 * The response key of a budget pause: resume with `{ [BUDGET_KEY]: { tokens: 1_000 } }` (the amounts to add to the
 * budget). It starts with `~`, so it can never be a value name of a graph.
 *
 * @example
 * ```ts
 * const answer = { [BUDGET_KEY]: { tokens: 1_000 } };
 * ```
 */
export const BUDGET_KEY = "~budget";

/** The fields of a {@link Budget}. */
export type BudgetField = "tokens" | "costUsd" | "calls" | "wallMs";

/**
 * What a budget pause shows: the run's totals, the budget in force and the fields it crossed.
 *
 * @example
 * ```ts
 * const value: BudgetPauseValue = { spent: { tokens: 1_020, calls: 3 }, budget: { tokens: 1_000 }, exceeded: ["tokens"] };
 * ```
 */
export interface BudgetPauseValue {
  readonly spent: Usage;
  readonly budget: Budget;
  readonly exceeded: readonly BudgetField[];
}

/**
 * A run paused because it crossed its budget (`runner.run(graph, values, { budget })`). `nodeName` is the node whose
 * step crossed it (a path inside nested graphs). Resume with the amounts to add under `responseKey`, or stop it.
 *
 * @example
 * ```ts
 * declare const pause: BudgetPause;
 * console.log(`${pause.nodeName} spent ${pause.value.spent.tokens} of ${pause.value.budget.tokens} tokens`);
 * ```
 */
export interface BudgetPause extends PauseOf<string, BudgetPauseValue, typeof BUDGET_KEY> {
  readonly reason: "budget";
}

/**
 * The run's pause as a budget pause, typed, or undefined when it is another pause (or none). Results are typed by
 * the graph's interrupts, so a budget pause — which any run with a budget may make — is read through this.
 *
 * @example
 * ```ts
 * declare const result: { readonly pause?: { readonly reason: string } | undefined };
 * const over = asBudgetPause(result.pause);
 * if (over) console.log(over.value.spent.tokens, "of", over.value.budget.tokens);
 * ```
 */
export function asBudgetPause(pause: unknown): BudgetPause | undefined {
  return typeof pause === "object" &&
    pause !== null &&
    (pause as { reason?: unknown }).reason === "budget" &&
    (pause as { responseKey?: unknown }).responseKey === BUDGET_KEY
    ? (pause as BudgetPause)
    : undefined;
}
