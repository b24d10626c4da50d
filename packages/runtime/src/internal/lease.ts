import type { Fence } from "@graph/checkpoint";
import type { CheckpointStoreService } from "@graph/checkpoint/effect";
import { Effect, Exit, Schedule, Scope } from "effect";
import type { RunError } from "./outcome.js";

/**
 * The workflow lease of one top-level run: every write of the run carries its fence, and a scoped fiber keeps
 * the lease alive until the run releases it. Child runs write under their parent's lease ({@link NO_LEASE}).
 */
export interface WorkflowLease {
  /** Passed with every write of this run; undefined when the run holds no lease of its own. */
  readonly fence: Fence | undefined;
  /** Stops renewing and gives the lease back. */
  readonly release: Effect.Effect<void, RunError>;
}

export const NO_LEASE: WorkflowLease = { fence: undefined, release: Effect.void };

export interface LeaseOptions {
  readonly owner: string;
  readonly ttlMs: number;
}

/** Claims the workflow's lease and starts renewing it every third of its time to live. */
export function claimLease(
  store: CheckpointStoreService,
  workflowId: string,
  options: LeaseOptions,
): Effect.Effect<WorkflowLease, RunError> {
  return store.claimWorkflow(workflowId, options).pipe(
    Effect.flatMap((lease) =>
      Effect.gen(function* () {
        const scope = yield* Scope.make();
        const every = Math.max(50, Math.floor(options.ttlMs / 3));
        // A failed renewal is not fatal here: the next write under a lost lease fails on its fence.
        const renew = store.claimWorkflow(workflowId, options).pipe(Effect.ignore);
        yield* renew.pipe(Effect.delay(every), Effect.repeat(Schedule.spaced(every)), Effect.forkIn(scope));
        return {
          fence: { epoch: lease.epoch },
          release: Scope.close(scope, Exit.void).pipe(Effect.zipRight(store.releaseWorkflow(workflowId, lease))),
        } satisfies WorkflowLease;
      }),
    ),
  );
}
