/**
 * The zombie scenario shared by the storage suite and its child process: a holder writes steps of a root
 * workflow and two child workflows (fenced by the root's lease), is frozen past its lease, another process takes
 * the workflow over and finishes it, and then the holder wakes up and tries to go on.
 */
import type { Checkpointer, Fence } from "@graph/checkpoint";
import { isWorkflowConflictError } from "@graph/checkpoint";
import { step } from "./fixtures.js";

/** The workflows of one zombie scenario. */
export interface ZombieWorkflows {
  readonly rootId: string;
  /** A nested graph's child and a map item under it. */
  readonly childIds: readonly [string, string];
}

/** The ids of a scenario rooted at `rootId`. */
export function zombieWorkflows(rootId: string): ZombieWorkflows {
  return { rootId, childIds: [`${rootId}/inner`, `${rootId}/inner/items/0`] };
}

/** What one write of a round did: `ok`, or `<tag>:<reason>` of the error. */
export type WriteOutcome = string;

function outcomeOf(error: unknown): WriteOutcome {
  if (isWorkflowConflictError(error)) return `WorkflowConflictError:${error.reason}`;
  const tagged = error as { _tag?: string; message?: string };
  return `${tagged?._tag ?? "untagged"}:${String(tagged?.message ?? error)}`;
}

async function attempt(write: () => Promise<unknown>): Promise<WriteOutcome> {
  try {
    await write();
    return "ok";
  } catch (error) {
    return outcomeOf(error);
  }
}

/**
 * One round of writes by `owner` at `epoch`: a root step, a step of each child (guarded by the root), a two-step
 * `saveSteps` of the map item when the adapter has it, and a status update of the inner child.
 */
export async function writeRound(
  checkpointer: Checkpointer,
  workflows: ZombieWorkflows,
  owner: string,
  epoch: number,
  round: number,
): Promise<WriteOutcome[]> {
  const { rootId, childIds } = workflows;
  const rootFence: Fence = { epoch };
  const childFence: Fence = { epoch, workflowId: rootId };
  const at = (id: string, superstep: number, nodeName: string) =>
    step(id, { superstep, nodeName, index: superstep, values: { [nodeName]: `${owner}-${round}` } });
  const outcomes: WriteOutcome[] = [];
  outcomes.push(await attempt(() => checkpointer.saveStep(at(rootId, round, "root"), rootFence)));
  outcomes.push(await attempt(() => checkpointer.saveStep(at(childIds[0], round, "inner"), childFence)));
  const item = [at(childIds[1], 2 * round, "item"), at(childIds[1], 2 * round + 1, "item2")];
  outcomes.push(
    await attempt(() =>
      checkpointer.saveSteps !== undefined
        ? checkpointer.saveSteps(item, childFence)
        : checkpointer.saveStep(item[0]!, childFence).then(() => checkpointer.saveStep(item[1]!, childFence)),
    ),
  );
  outcomes.push(await attempt(() => checkpointer.updateWorkflow(childIds[0], { status: "running" }, childFence)));
  return outcomes;
}

/** The takeover: `owner` claims the root, writes `round`, completes every workflow and releases the lease. */
export async function finishAsRescuer(
  checkpointer: Checkpointer,
  workflows: ZombieWorkflows,
  owner: string,
  round: number,
): Promise<number> {
  const lease = await checkpointer.claimWorkflow(workflows.rootId, { owner, ttlMs: 60_000 });
  const outcomes = await writeRound(checkpointer, workflows, owner, lease.epoch, round);
  if (outcomes.some((outcome) => outcome !== "ok"))
    throw new Error(`the rescuer's writes failed: ${outcomes.join(", ")}`);
  const fence = { epoch: lease.epoch, workflowId: workflows.rootId };
  for (const id of workflows.childIds) await checkpointer.updateWorkflow(id, { status: "completed" }, fence);
  await checkpointer.updateWorkflow(workflows.rootId, { status: "completed" }, { epoch: lease.epoch });
  await checkpointer.releaseWorkflow(workflows.rootId, lease);
  return lease.epoch;
}

/** The renewal a woken zombie attempts: `ok`, or the error's tag and reason. */
export function renewOutcome(
  checkpointer: Checkpointer,
  rootId: string,
  lease: { readonly owner: string; readonly epoch: number },
  ttlMs: number,
): Promise<WriteOutcome> {
  return attempt(() => checkpointer.renewWorkflow(rootId, lease, { ttlMs }));
}

/** Everything stored about the scenario's workflows (records and every row), for exact comparisons. */
export async function storedRows(checkpointer: Checkpointer, workflows: ZombieWorkflows) {
  return Promise.all(
    [workflows.rootId, ...workflows.childIds].map(async (id) => ({
      workflow: await checkpointer.getWorkflow(id),
      steps: await checkpointer.getSteps(id, { includeInputs: true }),
    })),
  );
}
