import type { UsageRecord } from "@graph/checkpoint";
import type { BudgetField, BudgetPauseValue } from "@graph/core";
import { sumUsage, USAGE_FIELDS } from "./usage.js";

/**
 * What a run tree spends, shared by the root run and every child run of its process (nested graphs, map items
 * run here), and the budget it is held to. Steps add to it as they are recorded (a step's usage is counted
 * once, with the step that stores it); child runs add what their stored steps of the current turn spent when they
 * resume (see `Journal`), so a resumed tree starts from its stored totals.
 */
export class Meter {
  #limit: UsageRecord | undefined;
  spent: UsageRecord | undefined;
  /** The fields over the limit, kept up to date as steps are counted (the engine reads it every superstep). */
  #over: BudgetField[] | undefined;
  /** Whether steps get a share of the wall time (a `wallMs` limit). */
  timed: boolean;
  /** When the wall time was last attributed to a step (epoch ms); only measured under a `wallMs` budget. */
  #mark: number;
  /** The node whose step first crossed the budget in this run (a path inside nested graphs). */
  crossedBy: string | undefined;

  constructor(limit: UsageRecord | undefined, now: number) {
    this.#limit = limit;
    this.spent = undefined;
    this.#over = undefined;
    this.timed = limit?.wallMs !== undefined;
    this.#mark = now;
    this.crossedBy = undefined;
  }

  /** The budget in force: the run's `budget` option, else the latest stored one, raised by grants. */
  get limit(): UsageRecord | undefined {
    return this.#limit;
  }

  set limit(limit: UsageRecord | undefined) {
    this.#limit = limit;
    this.timed = limit?.wallMs !== undefined;
    this.#over = this.#compare();
  }

  /** The wall time since the last step that took a share (the run's time partitioned among its steps). */
  wallShare(now: number): number {
    const share = Math.max(0, now - this.#mark);
    this.#mark = now;
    return share;
  }

  /** Counts a recorded step's usage; `path` names its node for the pause. */
  add(usage: UsageRecord | undefined, path: string): void {
    if (usage === undefined) return;
    this.spent = sumUsage(this.spent, usage);
    if (this.#limit === undefined) return;
    this.#over = this.#compare();
    if (this.crossedBy === undefined && this.#over !== undefined) this.crossedBy = path;
  }

  /** The budget fields the totals crossed (strictly above the limit), or undefined. */
  exceeded(): BudgetField[] | undefined {
    return this.#over;
  }

  #compare(): BudgetField[] | undefined {
    const limit = this.#limit;
    if (limit === undefined || this.spent === undefined) return undefined;
    let over: BudgetField[] | undefined;
    for (const k of USAGE_FIELDS) {
      const max = limit[k];
      if (max !== undefined && (this.spent[k] ?? 0) > max) (over ??= []).push(k);
    }
    return over;
  }

  /** The value of a budget pause: totals, budget and what was crossed. */
  pauseValue(exceeded: readonly BudgetField[]): BudgetPauseValue {
    return { spent: { ...this.spent }, budget: { ...this.#limit }, exceeded };
  }

  /** Raises the budget by a grant (a field with no limit stays unlimited). */
  grant(more: UsageRecord): UsageRecord | undefined {
    const limit = this.#limit;
    if (limit === undefined) return undefined;
    const out: { -readonly [K in BudgetField]?: number } = { ...limit };
    for (const k of USAGE_FIELDS) if (out[k] !== undefined && more[k] !== undefined) out[k] = out[k]! + more[k]!;
    this.limit = out;
    this.crossedBy = undefined;
    return out;
  }
}
