import type { UsageRecord } from "@graph/checkpoint";
import type { EngineHost } from "./host.js";
import type { Execution, Outcome } from "./outcome.js";
import { sumUsage } from "./usage.js";

/**
 * Counts a finished node's usage (and, under a `wallMs` budget, its share of the wall time) in its run's totals and
 * the tree's meter; returns what its step stores: its own reports, its child runs' total (a GraphNode) and its wall
 * share. Child runs of this process counted their steps in the meter as they went, so only the rest is new there.
 */
export function countUsage(host: EngineHost, ex: Execution): UsageRecord | undefined {
  const { config, state } = host;
  const meter = config.meter;
  const own = meter.timed ? sumUsage(ex.usage, { wallMs: meter.wallShare(Date.now()) }) : ex.usage;
  const usage = sumUsage(own, ex.childUsage);
  meter.add(ex.childCounted ? own : usage, `${config.workflowId}/${ex.node.name}`);
  state.usage = sumUsage(state.usage, usage);
  return usage;
}

/**
 * A completed GraphNode's step stores what its child runs spent. `counted`: the tree's meter already counted it
 * (child runs of this process); items another process ran are counted when their totals arrive here.
 */
export function rollUp(ex: Execution, o: Outcome, usage: UsageRecord | undefined, counted: boolean): Outcome {
  if (o.kind === "completed" && usage !== undefined) {
    ex.childUsage = usage;
    ex.childCounted = counted;
  }
  return o;
}

/**
 * A root run's budget: the `budget` option, else the stored one, raised by a grant (the answer to a budget pause).
 * Sets the meter's limit; returns the budget to store on the run's input record when the caller changed it.
 */
export function budgetInForce(host: EngineHost, stored: UsageRecord | undefined): UsageRecord | undefined {
  const { config } = host;
  const meter = config.meter;
  const asked = config.budget;
  if (asked?.given === undefined) meter.limit = stored;
  if (asked === undefined) return undefined;
  if (asked.grant === undefined) return asked.given;
  const raised = meter.grant(asked.grant);
  if (raised === undefined)
    host.event("Warning", {
      message: `Workflow '${config.workflowId}' has no budget: the grant ${JSON.stringify(asked.grant)} is ignored. Pass a budget with the run's options ({ budget: { tokens: 50_000 } }) to limit it.`,
    });
  return raised ?? asked.given;
}
