import type { UsageRecord } from "@graph/checkpoint";
import type { Usage } from "@graph/core";

/** Adds a report to a total; a report without `calls` counts one call. */
export function addUsage(total: UsageRecord | undefined, spent: Omit<Usage, "wallMs">): UsageRecord {
  const calls = (total?.calls ?? 0) + (spent.calls ?? 1);
  const out: { tokens?: number; costUsd?: number; calls: number; wallMs?: number } = { ...total, calls };
  if (spent.tokens !== undefined) out.tokens = (total?.tokens ?? 0) + spent.tokens;
  if (spent.costUsd !== undefined) out.costUsd = (total?.costUsd ?? 0) + spent.costUsd;
  return out;
}
