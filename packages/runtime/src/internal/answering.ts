/**
 * Answers that name the pause they answer (the `answering` run option): taken only while that pause is pending.
 * The restore read refuses an answer whose pause is already settled; the claim compares the pause again in the
 * same store write that takes the workflow (`ifPausedAt`), so of several answers racing for one pause exactly one
 * is taken and the others write nothing.
 */
import { WorkflowConflictError, type WorkflowRecord } from "@graph/checkpoint";
import type { CheckpointStoreService } from "@graph/checkpoint/effect";
import * as Effect from "effect/Effect";
import { UnexpectedAnswerError } from "../errors.js";
import type { PauseRef } from "../options.js";
import { fail } from "./options.js";
import type { RunError } from "./outcome.js";

/** A pause named with `answering` (checked by the options: it has a visit). */
export interface NamedPause {
  readonly nodeName: string;
  readonly visit: number;
}

/** The `answering` option as checked by `checkRunOptions` (undefined when not given). */
export function namedPause(ref: PauseRef | undefined): NamedPause | undefined {
  return ref === undefined ? undefined : { nodeName: ref.nodeName, visit: ref.visit as number };
}

/** Without a checkpointer nothing tells which pause is pending: naming one is a mistake, said at once. */
export function refuseAnsweringWithoutStore(where: string, ref: PauseRef | undefined, hasStore: boolean): void {
  if (ref !== undefined && !hasStore)
    fail(where, "answering", ref, "used with a checkpointer (the pending pause is read from the store)");
}

/** Whether `workflow` (as read) is still paused at `pause`. */
function isPausedAt(workflow: WorkflowRecord | undefined, pause: NamedPause): boolean {
  return (
    workflow?.status === "paused" &&
    workflow.pause?.nodeName === pause.nodeName &&
    workflow.lastSuperstep === pause.visit
  );
}

/** A claim the store refused because the named pause was settled in the meantime. */
const isPauseSettled = (error: unknown): boolean => WorkflowConflictError.is(error) && error.reason === "pause-settled";

/** The refusal of an answer whose pause the restore read shows settled (undefined: none named, or still pending). */
export function staleAnswer(
  workflowId: string,
  pause: NamedPause | undefined,
  values: Readonly<Record<string, unknown>>,
  workflow: WorkflowRecord | undefined,
): UnexpectedAnswerError | undefined {
  return pause === undefined || isPausedAt(workflow, pause)
    ? undefined
    : stalePauseError(workflowId, pause, values, workflow);
}

/**
 * The claim of an answer, with the store's `"pause-settled"` refusal (the pause was settled between the restore
 * read and the claim: another answer, an event, a timeout) turned into the caller's `UnexpectedAnswerError`.
 */
export function refusedWhenSettled<A>(
  claim: Effect.Effect<A, RunError>,
  store: CheckpointStoreService,
  workflowId: string,
  pause: NamedPause | undefined,
  values: Readonly<Record<string, unknown>>,
): Effect.Effect<A, RunError> {
  if (pause === undefined) return claim;
  return Effect.catchIf(claim, isPauseSettled, () =>
    Effect.flatMap(
      Effect.orElseSucceed(store.getWorkflow(workflowId), () => undefined),
      (now) => Effect.fail(stalePauseError(workflowId, pause, values, now)),
    ),
  );
}

/** The refusal of an answer whose pause is no longer pending: what it named, what the workflow is now, what to do. */
function stalePauseError(
  workflowId: string,
  pause: NamedPause,
  values: Readonly<Record<string, unknown>>,
  now: WorkflowRecord | undefined,
): UnexpectedAnswerError {
  const state =
    now === undefined
      ? "no such workflow is stored"
      : now.status === "paused" && now.pause !== undefined
        ? `it is paused at '${now.pause.nodeName}' (visit ${now.lastSuperstep})`
        : `it is ${now.status}`;
  const pending = now?.status === "paused" && now.pause !== undefined ? [now.pause.responseKey] : [];
  return new UnexpectedAnswerError(
    `Workflow '${workflowId}' got an answer to the pause at '${pause.nodeName}' (visit ${pause.visit}), but that pause is no longer pending: ${state}. ` +
      "Another answer, an event, a timeout or a stop settled it first. The answer was refused and nothing was saved.\n" +
      `  How to fix: read the workflow again (runner.run(graph, { workflowId: '${workflowId}' }) with no values returns its state) and answer its current pause, if any, naming that result.pause.`,
    workflowId,
    Object.keys(values),
    pending,
  );
}
