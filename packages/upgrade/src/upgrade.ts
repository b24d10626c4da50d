/**
 * Applying an upgrade: the runner hook `upgrades()` and the function it calls, `upgradeWorkflow`.
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { CheckpointError, type Checkpointer, type StepRecord, type WorkflowRecord } from "@graph/checkpoint";
import type { Graph } from "@graph/core";
import type { RunUpgrade } from "@graph/runtime";
import { type Compatibility, planCompatibility } from "./compatibility.js";
import { UpgradeBlockedError } from "./errors.js";
import { writeStructure } from "./internal/structures.js";

/** The reserved node name of the step a migration writes (a `.` never appears in a node name). */
export const UPGRADE_STEP = ".upgrade";

/**
 * Options of {@link upgradeWorkflow} and {@link upgrades}.
 *
 * @example
 * ```ts
 * import type { UpgradeWorkflowOptions } from "@graph/upgrade";
 * const options: UpgradeWorkflowOptions = { leaseTtlMs: 5_000 };
 * ```
 */
export interface UpgradeWorkflowOptions {
  /** How long the upgrade's own claim of the workflow lasts if this process dies mid-way (ms). Default 10 s. */
  readonly leaseTtlMs?: number;
  /** The lease owner the upgrade claims as. Default `graph-upgrade:<host>:<pid>:<random>`. */
  readonly owner?: string;
}

/**
 * Moves the stored workflow `workflowId` onto `graph`: checks it (blocked → {@link UpgradeBlockedError}, nothing
 * written: no claim, no structure record), claims it, checks it again under the claim, then writes in ONE transaction the `.upgrade` step (the migrated values), the steps that move
 * or end the pending pause, the new graph hash and pause, and gives the claim back. A crash before the commit leaves
 * the workflow as it was; after it, the hash matches and a second call does nothing: applied once.
 * Returns the report, or `undefined` for unknown ids.
 *
 * @example
 * ```ts
 * import { upgradeWorkflow } from "@graph/upgrade";
 * const report = await upgradeWorkflow(checkpointer, "post-1", v2);
 * console.log(report?.verdict, report?.migration);
 * ```
 */
export async function upgradeWorkflow(
  checkpointer: Checkpointer,
  workflowId: string,
  graph: Graph,
  options: UpgradeWorkflowOptions = {},
): Promise<Compatibility | undefined> {
  const finish = checkpointer.finishWorkflow;
  if (finish === undefined)
    throw new CheckpointError({
      message:
        "upgradeWorkflow needs a checkpointer with finishWorkflow (every adapter of this repository has it): a migration is written in one transaction, all or nothing.",
      workflowId,
      operation: "upgradeWorkflow",
    });
  // Checked before anything is written: a refused upgrade leaves the stored workflow (its lease epoch included) and
  // the store's structure records exactly as they were.
  const seen = await checkpointer.getWorkflow(workflowId);
  const checked = await planCompatibility(checkpointer, workflowId, graph);
  if (checked === undefined || checked.plan === undefined) return checked === undefined ? undefined : report(checked);
  // The plan is of the state read before and after it (nothing was written in between).
  const planFor = sameHistory(seen, await checkpointer.getWorkflow(workflowId)) ? seen : undefined;
  if (checked.verdict === "blocked") throw new UpgradeBlockedError(workflowId, checked.blockers);
  await writeStructure(checkpointer, graph);
  const owner = options.owner ?? `graph-upgrade:${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const lease = await checkpointer.claimWorkflow(workflowId, { owner, ttlMs: options.leaseTtlMs ?? 10_000 });
  const release = () => checkpointer.releaseWorkflow(workflowId, lease);
  let planned: Awaited<ReturnType<typeof planCompatibility>>;
  try {
    // Under the claim, what was checked is what is written: the same stored history keeps the plan (a migration's
    // transform runs once), anything written since is planned again.
    planned =
      planFor !== undefined && sameHistory(planFor, await checkpointer.getWorkflow(workflowId))
        ? checked
        : await planCompatibility(checkpointer, workflowId, graph);
  } catch (error) {
    await release();
    throw error;
  }
  if (planned === undefined || planned.plan === undefined) {
    await release();
    return planned === undefined ? undefined : report(planned);
  }
  // Changed between the check and the claim (another process wrote to it): refused, the claim given back.
  if (planned.verdict === "blocked") {
    await release();
    throw new UpgradeBlockedError(workflowId, planned.blockers);
  }
  const workflow = (await checkpointer.getWorkflow(workflowId))!;
  const { plan } = planned;
  const superstep = workflow.lastSuperstep + 1;
  const now = new Date();
  let index = planned.nextIndex;
  const step = (nodeName: string, extra: Partial<StepRecord>): StepRecord => ({
    workflowId,
    superstep,
    nodeName,
    index: index++,
    status: "completed",
    inputVersions: {},
    values: {},
    truncated: false,
    startedAt: now,
    completedAt: now,
    ...extra,
  });
  const steps = [step(UPGRADE_STEP, { inputVersions: plan.consumed, values: plan.values })];
  const pause = plan.pause;
  if (pause !== undefined) {
    // The old pause ends (its node gets a stopped step); a moved one starts at its new interrupt.
    if (pause.to?.nodeName !== pause.from) steps.push(step(pause.from, { status: "stopped" }));
    if (pause.to !== undefined)
      steps.push(
        step(pause.to.nodeName, { status: "paused", pause: { value: pause.value, responseKey: pause.to.responseKey } }),
      );
  }
  const fence = { epoch: lease.epoch };
  const written = finish.call(checkpointer, {
    workflowId,
    steps: [{ steps, fence }],
    update: {
      graphHash: graph.definitionHash,
      ...(pause === undefined
        ? {}
        : {
            pause:
              pause.to === undefined
                ? null
                : { nodeName: pause.to.nodeName, value: pause.value, responseKey: pause.to.responseKey },
          }),
    },
    fence,
    release: lease,
  });
  // Nothing was written when the transaction failed: give the claim back rather than let it run out.
  await written.catch(async (error: unknown) => {
    await release().catch(() => undefined);
    throw error;
  });
  return report(planned);
}

/** Whether two reads of a workflow show the same stored history (leases and timestamps aside). */
function sameHistory(a: WorkflowRecord | undefined, b: WorkflowRecord | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  const history = (w: WorkflowRecord) =>
    JSON.stringify([
      w.status,
      w.graphHash,
      w.lastSuperstep,
      w.stepCount,
      w.pause?.nodeName,
      w.pause?.responseKey,
      w.wakeAt?.getTime(),
      w.waitingFor,
      w.stopRequested?.requestedAt.getTime(),
    ]);
  return history(a) === history(b);
}

/** The report part of a plan (what callers see). */
function report(planned: NonNullable<Awaited<ReturnType<typeof planCompatibility>>>): Compatibility {
  const { plan: _plan, nextIndex: _next, ...compatibility } = planned;
  return compatibility;
}

/**
 * The runner hook: `new Runner({ checkpointer, upgrade: upgrades() })`. Before every top-level run it stores the
 * graph's structure (once per version) and, when the stored workflow was made by another version, applies
 * {@link upgradeWorkflow} — the run then resumes on the new graph, or fails with {@link UpgradeBlockedError}. A run
 * with `force: true` skips the check and the migration.
 *
 * @example
 * ```ts
 * import { MemoryCheckpointer } from "@graph/checkpoint";
 * import { Runner } from "@graph/runtime";
 * import { upgrades } from "@graph/upgrade";
 *
 * const runner = new Runner({ checkpointer: new MemoryCheckpointer(), upgrade: upgrades() });
 * ```
 */
export function upgrades(options: UpgradeWorkflowOptions = {}): RunUpgrade {
  return {
    async prepare({ graph, workflowId, checkpointer, force }) {
      const workflow = force ? undefined : await checkpointer.getWorkflow(workflowId);
      // Another version's workflow: upgradeWorkflow stores this version's structure once the upgrade is allowed
      // (a refused one writes nothing at all).
      if (workflow !== undefined && workflow.graphHash !== graph.definitionHash)
        return void (await upgradeWorkflow(checkpointer, workflowId, graph, options));
      // A new workflow, the same version, or `force: true` (the caller's own call: no check, no migration).
      await writeStructure(checkpointer, graph);
    },
  };
}
