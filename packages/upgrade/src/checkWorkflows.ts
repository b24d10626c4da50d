/**
 * `checkWorkflows`: the verdict of every unfinished workflow of a store against a new graph — what the
 * `upgrade-check` CLI prints.
 *
 * @module
 */
import type { Checkpointer } from "@graph/checkpoint";
import type { Graph } from "@graph/core";
import { type Compatibility, checkCompatibility } from "./compatibility.js";
import { upgradeOptionsOf } from "./migrations.js";

/**
 * The report of {@link checkWorkflows}.
 *
 * @example
 * ```ts
 * import type { UpgradeReport } from "@graph/upgrade";
 * const ok = (r: UpgradeReport) => r.summary.blocked === 0;
 * ```
 */
export interface UpgradeReport {
  readonly graph: { readonly name: string; readonly hash: string; readonly label?: string };
  /** Every unfinished top-level workflow of the graph's name, oldest first. */
  readonly workflows: readonly Compatibility[];
  /** Unfinished workflows of other graphs (by graph name), not checked. */
  readonly otherGraphs: number;
  /** Workflows the store could not read (corrupt rows), with why. */
  readonly unreadable: ReadonlyArray<{ readonly id: string; readonly error: string }>;
  readonly summary: {
    readonly resumable: number;
    readonly "resumable-with-migration": number;
    readonly blocked: number;
  };
}

/**
 * Checks every workflow of `graph`'s name that is not `completed` (top-level ones: nested runs follow their root)
 * against `graph`. Reads only; nothing is migrated.
 *
 * @example
 * ```ts
 * import { checkWorkflows } from "@graph/upgrade";
 * const report = await checkWorkflows(checkpointer, v2);
 * if (report.summary.blocked > 0) process.exitCode = 1;
 * ```
 */
export async function checkWorkflows(checkpointer: Checkpointer, graph: Graph): Promise<UpgradeReport> {
  const name = graph.name ?? "graph";
  const label = upgradeOptionsOf(graph).label;
  const workflows: Compatibility[] = [];
  const unreadable: Array<{ id: string; error: string }> = [];
  let otherGraphs = 0;
  let cursor: string | undefined;
  do {
    const page = await checkpointer.listWorkflows({
      rootsOnly: true,
      limit: 200,
      ...(cursor === undefined ? {} : { cursor }),
    });
    for (const skipped of page.skipped ?? []) unreadable.push({ id: skipped.id, error: skipped.error.message });
    for (const wf of page.workflows) {
      if (wf.status === "completed") continue;
      if (wf.graphName !== name) {
        otherGraphs++;
        continue;
      }
      const report = await checkCompatibility(checkpointer, wf.id, graph);
      if (report !== undefined) workflows.push(report);
    }
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  const count = (v: Compatibility["verdict"]) => workflows.filter((w) => w.verdict === v).length;
  return {
    graph: { name, hash: graph.definitionHash, ...(label === undefined ? {} : { label }) },
    workflows,
    otherGraphs,
    unreadable,
    summary: {
      resumable: count("resumable"),
      "resumable-with-migration": count("resumable-with-migration"),
      blocked: count("blocked"),
    },
  };
}
