/**
 * The first and the last write of a run — `startWorkflow` (create + claim) and `finishWorkflow` (last steps +
 * final status + release) — through the adapter's merged method when it has one, else as the separate calls.
 */
import type {
  LeaseClaim,
  NewWorkflow,
  StartedWorkflow,
  StepGroup,
  StepRecord,
  WorkflowFinish,
  WorkflowRecord,
} from "../Checkpointer.js";
import type { GuardedCheckpointer } from "../guard.js";

/**
 * Creates the workflow if missing, claims it and saves `steps` under the new lease: one call when the adapter can,
 * one per part otherwise.
 */
export async function startWorkflow(
  checkpointer: GuardedCheckpointer,
  workflow: NewWorkflow,
  claim: LeaseClaim,
  steps: readonly StepRecord[] = [],
): Promise<StartedWorkflow> {
  if (checkpointer.startWorkflow !== undefined)
    return steps.length === 0
      ? checkpointer.startWorkflow(workflow, claim)
      : checkpointer.startWorkflow(workflow, claim, steps);
  const created = await checkpointer.createWorkflow(workflow);
  const lease = await checkpointer.claimWorkflow(workflow.id, claim);
  if (steps.length > 0) await saveGroup(checkpointer, { steps, fence: { epoch: lease.epoch } });
  return { ...created, lease };
}

/** One workflow's steps under one fence: in one call when the adapter can. */
async function saveGroup(checkpointer: GuardedCheckpointer, { steps, fence }: StepGroup): Promise<void> {
  if (steps.length > 1 && checkpointer.saveSteps !== undefined) {
    await (fence === undefined ? checkpointer.saveSteps(steps) : checkpointer.saveSteps(steps, fence));
    return;
  }
  for (const step of steps)
    await (fence === undefined ? checkpointer.saveStep(step) : checkpointer.saveStep(step, fence));
}

/** Writes the steps, the final update and the release: one call when the adapter can, in order otherwise. */
export async function finishWorkflow(
  checkpointer: GuardedCheckpointer,
  finish: WorkflowFinish,
): Promise<WorkflowRecord> {
  if (checkpointer.finishWorkflow !== undefined) return checkpointer.finishWorkflow(finish);
  const groups = finish.steps ?? [];
  if (groups.length > 1 && checkpointer.saveStepBatch !== undefined) await checkpointer.saveStepBatch(groups);
  else for (const group of groups) await saveGroup(checkpointer, group);
  const id = finish.workflowId;
  const record = await (finish.fence === undefined
    ? checkpointer.updateWorkflow(id, finish.update)
    : checkpointer.updateWorkflow(id, finish.update, finish.fence));
  if (finish.release !== undefined) await checkpointer.releaseWorkflow(id, finish.release);
  return record;
}
