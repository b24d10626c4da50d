import { INPUT_STEP, type StepRecord, type UsageRecord } from "@graph/checkpoint";
import type { BudgetField, Usage } from "@graph/core";

/** The fields of a usage total, in the order they are shown. */
export const USAGE_FIELDS: readonly BudgetField[] = ["tokens", "costUsd", "calls", "wallMs"];

type Mutable = { -readonly [K in BudgetField]?: number };

/** Adds a `ctx.usage` report to a node's total; a report without `calls` counts one call. */
export function addUsage(total: UsageRecord | undefined, spent: Omit<Usage, "wallMs">): UsageRecord {
  const out: Mutable = { ...total, calls: (total?.calls ?? 0) + (spent.calls ?? 1) };
  if (spent.tokens !== undefined) out.tokens = (total?.tokens ?? 0) + spent.tokens;
  if (spent.costUsd !== undefined) out.costUsd = (total?.costUsd ?? 0) + spent.costUsd;
  return out;
}

/** `a + b`, field by field (a field absent from both stays absent). */
export function sumUsage(a: UsageRecord | undefined, b: UsageRecord | undefined): UsageRecord | undefined {
  if (b === undefined) return a;
  if (a === undefined) return b;
  const out: Mutable = {};
  for (const k of USAGE_FIELDS) if (a[k] !== undefined || b[k] !== undefined) out[k] = (a[k] ?? 0) + (b[k] ?? 0);
  return out;
}

/** What a workflow's stored steps of its current turn spent (after its last input record that started a turn). */
export function turnUsage(steps: readonly StepRecord[]): UsageRecord | undefined {
  let total: UsageRecord | undefined;
  let turn = -1;
  for (const s of steps) if (s.nodeName === INPUT_STEP && s.turnStart === true && s.index > turn) turn = s.index;
  for (const s of steps) if (s.index > turn) total = sumUsage(total, s.usage);
  return total;
}
