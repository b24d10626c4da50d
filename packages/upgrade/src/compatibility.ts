/**
 * The compatibility check: can a stored workflow continue on a new graph, and what must a migration do first?
 *
 * @module
 */
import type { Checkpointer, WorkflowStatus } from "@graph/checkpoint";
import type { Graph } from "@graph/core";
import type { GraphChange } from "./diff.js";
import { assess, type MigrationPlan } from "./internal/assess.js";
import { readStructure } from "./internal/structures.js";
import { upgradeOptionsOf } from "./migrations.js";

/**
 * - `resumable`: run it on the new graph as it is (only code changed where the workflow has not been, or nothing);
 * - `resumable-with-migration`: a registered migration moves stored values or the pending pause first;
 * - `blocked`: it can't continue; `reasons` say why and how to fix it.
 *
 * @example
 * ```ts
 * import type { Verdict } from "@graph/upgrade";
 * const gate = (v: Verdict) => v !== "blocked";
 * ```
 */
export type Verdict = "resumable" | "resumable-with-migration" | "blocked";

/**
 * The verdict for one stored workflow against a new graph, with every change found and what it means for this
 * workflow, in words.
 *
 * @example
 * ```ts
 * import { checkCompatibility } from "@graph/upgrade";
 * const report = await checkCompatibility(checkpointer, "post-1", v2);
 * if (report?.verdict === "blocked") console.error(report.blockers.join("\n"));
 * ```
 */
export interface Compatibility {
  readonly workflowId: string;
  readonly status: WorkflowStatus;
  readonly verdict: Verdict;
  /** Every finding, blocking or not, as sentences. */
  readonly reasons: readonly string[];
  /** The findings that make the verdict `blocked` (empty otherwise). */
  readonly blockers: readonly string[];
  /** What the migration does (`rename 'draft' → 'body'`, `drop the pause at 'approve'`); empty when none is needed. */
  readonly migration: readonly string[];
  readonly changes: readonly GraphChange[];
  /** The stored graph version: its hash and label (when it had one). */
  readonly from: { readonly hash: string; readonly label?: string };
  readonly to: { readonly hash: string; readonly label?: string };
}

/** A compatibility report with the migration plan `upgradeWorkflow` writes. */
export interface PlannedCompatibility extends Compatibility {
  readonly plan: MigrationPlan | undefined;
  readonly nextIndex: number;
}

/**
 * Checks the stored workflow `workflowId` against `graph` (with the migrations registered by `upgradable`). Reads
 * only. Unknown ids → `undefined`.
 *
 * @example
 * ```ts
 * import { checkCompatibility } from "@graph/upgrade";
 * const report = await checkCompatibility(checkpointer, "post-1", v2);
 * console.log(report?.verdict, report?.reasons);
 * ```
 */
export async function checkCompatibility(
  checkpointer: Checkpointer,
  workflowId: string,
  graph: Graph,
): Promise<Compatibility | undefined> {
  const planned = await planCompatibility(checkpointer, workflowId, graph);
  if (planned === undefined) return undefined;
  const { plan: _plan, nextIndex: _next, ...report } = planned;
  return report;
}

/** {@link checkCompatibility} with the plan: what `upgradeWorkflow` and the runner hook apply. */
export async function planCompatibility(
  checkpointer: Checkpointer,
  workflowId: string,
  graph: Graph,
): Promise<PlannedCompatibility | undefined> {
  const workflow = await checkpointer.getWorkflow(workflowId);
  if (workflow === undefined) return undefined;
  const { label, migrations = [] } = upgradeOptionsOf(graph);
  const to = { hash: graph.definitionHash, ...(label === undefined ? {} : { label }) };
  const base = { workflowId, status: workflow.status, to };
  if (workflow.graphHash === graph.definitionHash)
    return {
      ...base,
      verdict: "resumable",
      reasons: ["same graph version."],
      blockers: [],
      migration: [],
      changes: [],
      from: to,
      plan: undefined,
      nextIndex: 0,
    };
  const stored = await readStructure(checkpointer, workflow.graphHash);
  if (stored === undefined) {
    const blocker =
      `the structure of graph version ${workflow.graphHash.slice(0, 12)}… was not stored (the workflow was created by a runner without upgrades(), or on a checkpointer without putGraphStructure), so its changes can't be checked. ` +
      "Finish it on the old code, or resume it with force: true if you know the versions are compatible.";
    return {
      ...base,
      verdict: "blocked",
      reasons: [blocker],
      blockers: [blocker],
      migration: [],
      changes: [],
      from: { hash: workflow.graphHash },
      plan: undefined,
      nextIndex: 0,
    };
  }
  const steps = await checkpointer.getSteps(workflowId, { includeInputs: true });
  const a = assess(workflow, steps, stored, graph, migrations);
  const migrates = Object.keys(a.plan.values).length > 0 || a.plan.pause !== undefined;
  return {
    ...base,
    verdict: a.blockers.length > 0 ? "blocked" : migrates ? "resumable-with-migration" : "resumable",
    reasons: a.reasons,
    blockers: a.blockers,
    migration: a.blockers.length > 0 ? [] : a.plan.actions,
    changes: a.changes,
    from: { hash: stored.hash, ...(stored.label === undefined ? {} : { label: stored.label }) },
    plan: a.plan,
    nextIndex: a.history.nextIndex,
  };
}
