/**
 * The first and the last write of a run, each one script: `startWorkflow` (create if missing, claim, save the start's
 * steps under the new lease) and `finishWorkflow` (the last steps, the final update and the release, all or none).
 * Both are checked and serialised before the script runs, so a refused call writes nothing.
 */
import type {
  CheckpointPolicy,
  LeaseClaim,
  NewWorkflow,
  StartedWorkflow,
  StepRecord,
  WorkflowFinish,
  WorkflowRecord,
} from "@graph/checkpoint";
import { CheckpointError } from "@graph/checkpoint";
import {
  encodeWorkflowUpdate,
  leaseHeldError,
  validateClaimOptions,
  validateFinish,
  validateNewWorkflow,
  validateStartSteps,
} from "@graph/checkpoint/adapter";
import type { IndexContext } from "./indexes.js";
import { rootOf } from "./keys.js";
import type { WorkflowOperations } from "./operations.js";
import { timeWrite } from "./operations.js";
import { decodeWorkflow, hashFromPairs } from "./records.js";
import { rejected, stepArgs, updateArgs } from "./replies.js";
import type { StatusIndex } from "./statuses.js";
import type { TimeIndex } from "./times.js";

/** `createWorkflow` + `claimWorkflow` + the steps, in one script (see `Checkpointer.startWorkflow`). */
export async function startWorkflow(
  context: IndexContext,
  operations: WorkflowOperations,
  policy: CheckpointPolicy,
  workflow: NewWorkflow,
  claim: LeaseClaim,
  steps: readonly StepRecord[] | undefined,
): Promise<StartedWorkflow> {
  const operation = "startWorkflow";
  validateNewWorkflow(workflow, operation);
  const id = workflow.id;
  validateClaimOptions(id, claim);
  const start = validateStartSteps(id, steps);
  const args = start.length === 0 ? [] : stepArgs(start, undefined, context.serializer, operation).args;
  const keys = context.keys.workflow(id);
  const wakeAt = workflow.wakeAt?.getTime();
  const reply = await operations.times.around(id, { wakeAt }, async () => {
    const started = (await context.scripts.graphStart(
      keys.workflow,
      keys.steps,
      keys.order,
      workflow.graphName,
      workflow.graphHash,
      workflow.parentId ?? "",
      workflow.parentId === undefined ? "0" : "1",
      claim.owner,
      String(claim.ttlMs),
      policy.retention,
      String(policy.window ?? 0),
      wakeAt === undefined ? "" : String(wakeAt),
      ...args,
    )) as unknown[];
    if (started[0] === "held") throw leaseHeldError(id, String(started[1]), new Date(Number(started[2])));
    if (started[0] !== "ok") rejected(started, id, operation, undefined);
    return [started, false] as const;
  });
  const [, created, epoch, expiresAt, record] = reply;
  const hash = hashFromPairs(record);
  await operations.index(id, hash);
  return {
    workflow: decodeWorkflow(id, hash, context.serializer, operation),
    created: Number(created) === 1,
    lease: { workflowId: id, owner: claim.owner, epoch: Number(epoch), expiresAt: new Date(Number(expiresAt)) },
  };
}

/**
 * The groups' steps, the fenced update and the release, in one script (see `Checkpointer.finishWorkflow`). One script
 * reaches one hash slot: the groups must be of the finished workflow's tree (its root and the root's children), which
 * is what a run's last write holds.
 */
export async function finishWorkflow(
  context: IndexContext,
  times: TimeIndex,
  statuses: StatusIndex,
  policy: CheckpointPolicy,
  finish: WorkflowFinish,
): Promise<WorkflowRecord> {
  const operation = "finishWorkflow";
  const { workflowId: id, guardId, groups } = validateFinish(finish);
  const changes = encodeWorkflowUpdate(id, finish.update, context.serializer, operation);
  const encoded = groups.map((group) => ({
    ...stepArgs(group.steps, group.fence, context.serializer, operation),
    fence: group.fence,
  }));
  const stranger = encoded.find((group) => rootOf(group.workflowId) !== rootOf(id));
  if (stranger !== undefined) {
    throw new CheckpointError({
      message:
        `${operation}('${id}'): the steps of '${stranger.workflowId}' cannot be written with it on Redis: one ` +
        `script reaches one hash slot, the one of the tree of '${rootOf(id)}'. Pass only steps of that tree, and ` +
        "save the others with saveSteps.",
      workflowId: id,
      operation,
      path: "steps",
    });
  }
  const release = finish.release;
  const keys = [context.keys.workflow(id).workflow, context.keys.workflow(guardId ?? id).workflow];
  const args = [
    finish.fence === undefined ? "" : String(finish.fence.epoch),
    release === undefined ? "" : release.owner,
    release === undefined ? "" : String(release.epoch),
    policy.retention,
    String(policy.window ?? 0),
    ...updateArgs(changes),
  ];
  for (const group of encoded) {
    const target = context.keys.workflow(group.workflowId);
    keys.push(
      target.workflow,
      target.steps,
      target.order,
      context.keys.workflow(group.guardId ?? group.workflowId).workflow,
    );
    args.push(group.fence === undefined ? "" : String(group.fence.epoch), String(group.args.length / 4), ...group.args);
  }
  const write = () =>
    times.around(id, timeWrite(changes), async () => {
      const finished = (await context.scripts.graphFinish(keys.length, ...keys, ...args)) as unknown[];
      if (finished[0] === "group") {
        const group = encoded[Number(finished[1]) - 1]!;
        rejected(finished.slice(2), group.workflowId, operation, group.fence);
      }
      if (finished[0] !== "ok") rejected(finished, id, operation, finish.fence);
      return [finished, Number(finished[2]) === 1] as const;
    });
  const reply = await statuses.around(id, changes.status, write, (done) => hashFromPairs(done[1]));
  return decodeWorkflow(id, hashFromPairs(reply[1]), context.serializer, operation);
}
