import { WorkflowConflictError, type WorkflowRecord } from "@graph/checkpoint";
import * as Effect from "effect/Effect";
import type { RunResult } from "../RunResult.js";
import type { EngineHost } from "./host.js";
import type { RunError } from "./outcome.js";

/**
 * Read right after a resume's claim: the workflow as it is now must be the one `restore` read (`before`: no step
 * written since, and for a wake the same due time). Otherwise another runner resumed it in between — a human's
 * answer and a timeout racing, two schedulers firing one due time — and the restored state is stale: the run
 * gives the lease back, writes nothing else, and fails with a `WorkflowConflictError` (reason `"stale-fence"`).
 * A wake that goes on reports `TimerFired` with how late it is. A stop request read here stops the run.
 */
export function stillAsRestored(
  host: EngineHost,
  before: WorkflowRecord | undefined,
  now: WorkflowRecord | undefined,
): Effect.Effect<void, RunError> {
  const { config } = host;
  const lease = config.lease!;
  lease.sawStop(now?.stopRequested);
  const wake = config.time?.wake;
  const moved =
    now === undefined ||
    before === undefined ||
    now.stepCount !== before.stepCount ||
    now.lastSuperstep !== before.lastSuperstep ||
    (wake !== undefined && (now.wakeAt?.getTime() !== wake || (now.status !== "paused" && now.status !== "running")));
  if (!moved) {
    if (wake !== undefined) {
      const firedAt = config.shared.clock.now();
      host.event("TimerFired", { dueAt: wake, firedAt, lateMs: Math.max(0, firedAt - wake) });
    }
    return Effect.void;
  }
  const id = config.workflowId;
  const what = wake === undefined ? "resumed" : "woken for this due time";
  return Effect.ignore(lease.release).pipe(
    Effect.zipRight(
      Effect.fail(
        new WorkflowConflictError({
          workflowId: id,
          reason: "stale-fence",
          message: `Workflow '${id}' was ${what} by another runner while this call was starting (its stored history changed between reading it and taking the lease). Nothing was written.\n  How to fix: read the workflow again (runner.run with its workflowId and no values returns its state) and answer its current pause, if any.`,
        }),
      ),
    ),
  );
}

/**
 * What a root's final write stores about its pause: the earliest due time (a delayed start's start time) and the
 * event its `waitFor` waits for. Fields are left out when there is nothing to say, so a store that predates due
 * times sees the same update as before.
 */
export function timeFields(
  host: EngineHost,
  result: RunResult,
): { wakeAt?: Date; waitingFor?: { event: string; key: string } } {
  if (result.status !== "paused") return {};
  const { state, config } = host;
  const wakeAt = config.time?.startAt ?? state.wakeAt;
  const wait = state.waitingFor;
  return {
    ...(wakeAt === undefined ? {} : { wakeAt: new Date(wakeAt) }),
    ...(wait === undefined ? {} : { waitingFor: { event: wait.event, key: wait.key } }),
  };
}
