/**
 * Between the operations and the scripts: the arguments a script gets for steps and for an update, and the error of
 * the contract for a script's rejection reply.
 */
import type { Fence, Serializer, StepRecord } from "@graph/checkpoint";
import { CheckpointError } from "@graph/checkpoint";
import type { EncodedWorkflowUpdate } from "@graph/checkpoint/adapter";
import { staleFenceError, unknownWorkflowError, validateStepGroup } from "@graph/checkpoint/adapter";
import { stepField } from "./keys.js";
import { encodeStep } from "./records.js";

/**
 * Validates one workflow's steps (see `validateStepGroup`) and encodes them as script arguments (per step: field,
 * index, superstep, encoded step), before any script runs: a value that cannot be stored leaves nothing behind.
 */
export function stepArgs(
  steps: readonly StepRecord[],
  fence: Fence | undefined,
  serializer: Serializer,
  operation: string,
): { readonly workflowId: string; readonly guardId: string | undefined; readonly args: string[] } {
  const group = validateStepGroup(steps, fence, operation);
  const args: string[] = [];
  for (const step of steps) {
    args.push(
      stepField(step.superstep, step.nodeName),
      String(step.index),
      String(step.superstep),
      encodeStep(step, serializer, operation),
    );
  }
  return { ...group, args };
}

/** An encoded update as script arguments: fields to set n, fields to delete m, n field/value pairs, m fields. */
export function updateArgs(update: EncodedWorkflowUpdate): string[] {
  const sets: string[] = [];
  const deletes: string[] = [];
  const field = (name: string, value: string | null | undefined): void => {
    if (value === null) deletes.push(name);
    else if (value !== undefined) sets.push(name, value);
  };
  field("st", update.status);
  field("gh", update.graphHash);
  field("pa", update.pause);
  field("sr", update.stopRequested);
  field("er", update.error);
  field("wa", update.wakeAt === undefined || update.wakeAt === null ? update.wakeAt : String(update.wakeAt));
  field("we", update.waitingFor === undefined ? undefined : (update.waitingFor?.event ?? null));
  field("wk", update.waitingFor === undefined ? undefined : (update.waitingFor?.key ?? null));
  return [String(sets.length / 2), String(deletes.length), ...sets, ...deletes];
}

/**
 * Turns a script's rejection reply into the error of the contract: `id` is the written workflow, `fence` what guarded
 * the write (its `workflowId`, default `id`, names the guard).
 */
export function rejected(reply: unknown[], id: string, operation: string, fence: Fence | undefined): never {
  const guard = fence?.workflowId ?? id;
  if (reply[0] === "conflict") {
    const [, epoch, owner, expiresAt] = reply as string[];
    throw staleFenceError(
      guard,
      operation,
      fence?.epoch ?? 0,
      {
        epoch: Number(epoch),
        ...(owner === "" || owner === undefined ? {} : { owner, expiresAt: new Date(Number(expiresAt)) }),
      },
      id,
    );
  }
  if (reply[0] === "missing") throw unknownWorkflowError(reply[1] === "guard" ? guard : id, operation);
  throw new CheckpointError({
    message: `${operation}('${id}'): unexpected reply from Redis: ${JSON.stringify(reply)}.`,
    workflowId: id,
    operation,
  });
}
