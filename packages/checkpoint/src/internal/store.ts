/**
 * The Effect-side store over any Promise adapter: guard (setup once, close once, classified errors) plus
 * durability (sync / async background writer / exit buffering).
 */

import * as Effect from "effect/Effect";
import * as Either from "effect/Either";
import type * as Scope from "effect/Scope";
import type {
  Checkpoint,
  Checkpointer,
  ClaimOptions,
  Fence,
  Lease,
  LeaseClaim,
  ListWorkflowsOptions,
  NewWorkflow,
  RenewedLease,
  StartedWorkflow,
  StepReadOptions,
  StepRecord,
  StopRequest,
  WorkflowFinish,
  WorkflowPage,
  WorkflowRecord,
  WorkflowUpdate,
} from "../Checkpointer.js";
import type { CheckpointPolicy } from "../CheckpointPolicy.js";
import { resolvePolicy } from "../CheckpointPolicy.js";
import { CheckpointError, isCheckpointError } from "../errors.js";
import type { CheckpointStoreError, GuardedCheckpointer } from "../guard.js";
import { classifyCheckpointerError, guardCheckpointer } from "../guard.js";
import { makeBacklog } from "./backlog.js";
import { finishWorkflow, startWorkflow } from "./runWrites.js";
import { snapshotStep } from "./snapshot.js";

/** The runtime's view of a checkpointer; see `@graph/checkpoint/effect`. */
export interface CheckpointStoreService {
  readonly policy: CheckpointPolicy;
  readonly checkpointer: GuardedCheckpointer;
  readonly setup: Effect.Effect<void, CheckpointStoreError>;
  /** With a fence (child workflows: the root's), nothing is created once the guard's epoch moved on. */
  readonly createWorkflow: (
    workflow: NewWorkflow,
    fence?: Fence,
  ) => Effect.Effect<{ readonly workflow: WorkflowRecord; readonly created: boolean }, CheckpointStoreError>;
  readonly claimWorkflow: (id: string, options: ClaimOptions) => Effect.Effect<Lease, CheckpointStoreError>;
  readonly releaseWorkflow: (
    id: string,
    lease: Pick<Lease, "owner" | "epoch">,
  ) => Effect.Effect<void, CheckpointStoreError>;
  /**
   * Extends the lease; fails with `WorkflowConflictError` (reason `"lease-lost"`) once it is gone. Does not wait for
   * the workflow's queued steps (a renewal must never queue behind a slow write).
   */
  readonly renewWorkflow: (
    id: string,
    lease: Pick<Lease, "owner" | "epoch">,
    options: { readonly ttlMs: number },
  ) => Effect.Effect<RenewedLease, CheckpointStoreError>;
  /** Asks the workflow to stop, from any process; `undefined` for unknown ids. */
  readonly requestStop: (
    id: string,
    options?: { readonly info?: unknown },
  ) => Effect.Effect<WorkflowRecord | undefined, CheckpointStoreError>;
  /** The pending stop request (the per-superstep poll); does not wait for queued steps. */
  readonly getStopRequest: (id: string) => Effect.Effect<StopRequest | undefined, CheckpointStoreError>;
  readonly saveStep: (step: StepRecord, fence?: Fence) => Effect.Effect<void, CheckpointStoreError>;
  /**
   * `saveStep` without an Effect, for `async` and `exit` durability (throws a TypeError under `sync`): queues the
   * step now and returns the error `saveStep` would fail with, or undefined. Setup runs before the first write
   * if it has not run yet.
   */
  readonly saveStepNow: (step: StepRecord, fence?: Fence) => CheckpointStoreError | undefined;
  /**
   * Creates the workflow if missing, claims it and saves `steps` (written now, whatever the durability: a run's
   * inputs), in one write when the adapter has `startWorkflow`.
   */
  readonly startWorkflow: (
    workflow: NewWorkflow,
    claim: LeaseClaim,
    steps?: readonly StepRecord[],
  ) => Effect.Effect<StartedWorkflow, CheckpointStoreError>;
  /**
   * Saves `steps` (written now, whatever the durability) and applies `update`, both under `fence`, in one write when
   * the adapter has `finishWorkflow`: how a resumed run marks the workflow running together with its inputs.
   */
  readonly resumeWorkflow: (
    id: string,
    steps: readonly StepRecord[],
    update: WorkflowUpdate,
    fence: Fence | undefined,
  ) => Effect.Effect<WorkflowRecord, CheckpointStoreError>;
  /**
   * Ends a run: the workflow's steps not written yet, the final update (fenced) and the release, in one write when
   * the adapter has `finishWorkflow`. Reports an earlier failed background write of the workflow instead.
   */
  readonly finishWorkflow: (
    finish: Omit<WorkflowFinish, "steps">,
  ) => Effect.Effect<WorkflowRecord, CheckpointStoreError>;
  readonly updateWorkflow: (
    id: string,
    update: WorkflowUpdate,
    fence?: Fence,
  ) => Effect.Effect<WorkflowRecord, CheckpointStoreError>;
  readonly getWorkflow: (id: string) => Effect.Effect<WorkflowRecord | undefined, CheckpointStoreError>;
  readonly getSteps: (
    id: string,
    options?: StepReadOptions,
  ) => Effect.Effect<readonly StepRecord[], CheckpointStoreError>;
  readonly getState: (
    id: string,
    options?: { readonly throughSuperstep?: number },
  ) => Effect.Effect<Readonly<Record<string, unknown>>, CheckpointStoreError>;
  readonly getCheckpoint: (
    id: string,
    options?: { readonly superstep?: number },
  ) => Effect.Effect<Checkpoint | undefined, CheckpointStoreError>;
  readonly listWorkflows: (options?: ListWorkflowsOptions) => Effect.Effect<WorkflowPage, CheckpointStoreError>;
  readonly deleteWorkflow: (id: string) => Effect.Effect<void, CheckpointStoreError>;
  readonly flush: (workflowId?: string) => Effect.Effect<void, CheckpointStoreError>;
  readonly close: Effect.Effect<void, CheckpointStoreError>;
}

/** Options of `makeCheckpointStore`. */
export interface CheckpointStoreOptions {
  /** Overrides the adapter's policy (merged over it, then validated). Typically only `durability`. */
  readonly policy?: Partial<CheckpointPolicy>;
  /** Close the adapter when the store closes. Default true. */
  readonly closeAdapter?: boolean;
}

function closedError(operation: string, workflowId?: string): CheckpointError {
  return new CheckpointError({
    message: `CheckpointStore.${operation} was called after the store was closed. Create a new runner / store.`,
    operation,
    ...(workflowId === undefined ? {} : { workflowId }),
  });
}

export function makeCheckpointStore(
  adapter: Checkpointer,
  options: CheckpointStoreOptions = {},
): Effect.Effect<CheckpointStoreService, CheckpointError, Scope.Scope> {
  return Effect.gen(function* () {
    const policy = yield* Effect.try({
      try: () => resolvePolicy({ ...adapter.policy, ...options.policy }),
      catch: (error) =>
        isCheckpointError(error)
          ? error
          : new CheckpointError({ message: `Invalid checkpoint policy: ${String(error)}`, operation: "resolvePolicy" }),
    });
    const checkpointer = guardCheckpointer(adapter);
    const lift = <A>(operation: string, workflowId: string | undefined, run: () => Promise<A>) =>
      Effect.tryPromise({ try: run, catch: (error) => classifyCheckpointerError(error, operation, workflowId) });

    let closed = false;
    const backlog = yield* makeBacklog(policy.durability, checkpointer, lift);
    const { failures, drain, drainAll } = backlog;

    const takeFailure = (workflowId: string): Effect.Effect<void, CheckpointStoreError> =>
      Effect.suspend(() => {
        const failure = failures.get(workflowId);
        if (failure === undefined) return Effect.void;
        failures.delete(workflowId);
        return Effect.fail(failure);
      });

    const flush = (workflowId?: string): Effect.Effect<void, CheckpointStoreError> =>
      workflowId === undefined
        ? Effect.flatMap(drainAll, () =>
            Effect.suspend(() => {
              const first = failures.values().next();
              failures.clear();
              return first.done === true ? Effect.void : Effect.fail(first.value);
            }),
          )
        : Effect.zipRight(drain(workflowId), takeFailure(workflowId));

    const open = (operation: string, workflowId?: string): Effect.Effect<void, CheckpointError> =>
      Effect.suspend(() => (closed ? Effect.fail(closedError(operation, workflowId)) : Effect.void));

    /** An operation on one workflow: sees every earlier saveStep of that workflow. */
    const onWorkflow = <A>(
      operation: string,
      id: string,
      run: () => Promise<A>,
      reportFailures = false,
    ): Effect.Effect<A, CheckpointStoreError> =>
      Effect.suspend(() => {
        if (closed) return Effect.fail(closedError(operation, id));
        const call = lift(operation, id, run);
        const checked = reportFailures ? Effect.zipRight(takeFailure(id), call) : call;
        return backlog.idle(id) ? checked : Effect.zipRight(drain(id), checked);
      });

    let ready = false;
    const setup = Effect.zipRight(
      open("setup"),
      Effect.tap(
        lift("setup", undefined, () => checkpointer.setup()),
        () => {
          ready = true;
        },
      ),
    );

    const write = (step: StepRecord, fence: Fence | undefined) =>
      lift("saveStep", typeof step === "object" && step !== null ? step.workflowId : undefined, () =>
        fence === undefined ? checkpointer.saveStep(step) : checkpointer.saveStep(step, fence),
      );

    /**
     * Queues a step of an `async`/`exit` store at once: the error `saveStep` would fail with (closed store, an
     * earlier failed write of the workflow, values that cannot be stored), or undefined once queued.
     */
    const queueStep = (
      step: StepRecord,
      fence: Fence | undefined,
      workflowId: string,
    ): CheckpointStoreError | undefined => {
      if (closed) return closedError("saveStep", workflowId);
      const failure = failures.get(workflowId);
      if (failure !== undefined) {
        failures.delete(workflowId);
        return failure;
      }
      // Written later: copy the values now (and fail now when they cannot be stored).
      let snapshot: StepRecord;
      try {
        snapshot = snapshotStep(step, checkpointer.serializer);
      } catch (error) {
        return classifyCheckpointerError(error, "saveStep", workflowId);
      }
      backlog.add({ step: snapshot, fence });
      return undefined;
    };

    // The hot path of async and exit durability: everything here is synchronous once set up.
    const saveStep = (step: StepRecord, fence?: Fence): Effect.Effect<void, CheckpointStoreError> =>
      Effect.suspend(() => {
        const workflowId = typeof step === "object" && step !== null ? step.workflowId : undefined;
        if (closed) return Effect.fail(closedError("saveStep", workflowId));
        if (policy.durability === "sync" || typeof workflowId !== "string") return write(step, fence);
        // Setup failures surface at the first save rather than in the background.
        if (!ready) return Effect.zipRight(setup, saveStep(step, fence));
        const error = queueStep(step, fence, workflowId);
        return error === undefined ? Effect.void : Effect.fail(error);
      });

    const saveStepNow = (step: StepRecord, fence?: Fence): CheckpointStoreError | undefined => {
      if (policy.durability === "sync")
        throw new TypeError("CheckpointStore.saveStepNow needs durability 'async' or 'exit' (use saveStep)");
      return queueStep(step, fence, step.workflowId);
    };

    const close = yield* Effect.cached(
      Effect.gen(function* () {
        closed = true;
        const flushed = yield* Effect.either(flush());
        if (options.closeAdapter !== false) yield* lift("close", undefined, () => checkpointer.close());
        if (Either.isLeft(flushed)) return yield* Effect.fail(flushed.left);
      }),
    );

    // When the owner already called `close` it got the error itself; otherwise report it as a warning.
    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => (closed ? Effect.void : close)).pipe(
        Effect.catchAll((error) =>
          Effect.logWarning(`CheckpointStore: closing the checkpointer failed: ${error.message}`),
        ),
      ),
    );

    const finish = (end: Omit<WorkflowFinish, "steps">): Effect.Effect<WorkflowRecord, CheckpointStoreError> =>
      Effect.suspend(() => {
        const id = end.workflowId;
        if (closed) return Effect.fail(closedError("finishWorkflow", id));
        // The taken steps are settled whatever the outcome: waiters of the workflow go on.
        return Effect.flatMap(backlog.take(id), (taken) =>
          Effect.zipRight(
            takeFailure(id),
            lift("finishWorkflow", id, () =>
              finishWorkflow(checkpointer, taken.groups.length === 0 ? end : { ...end, steps: taken.groups }),
            ),
          ).pipe(Effect.ensuring(backlog.settle(taken))),
        );
      });

    const service: CheckpointStoreService = {
      policy,
      checkpointer,
      setup,
      createWorkflow: (workflow, fence) =>
        Effect.zipRight(
          open("createWorkflow", workflow?.id),
          lift("createWorkflow", workflow?.id, () =>
            fence === undefined ? checkpointer.createWorkflow(workflow) : checkpointer.createWorkflow(workflow, fence),
          ),
        ),
      claimWorkflow: (id, claim) => onWorkflow("claimWorkflow", id, () => checkpointer.claimWorkflow(id, claim)),
      releaseWorkflow: (id, lease) => onWorkflow("releaseWorkflow", id, () => checkpointer.releaseWorkflow(id, lease)),
      renewWorkflow: (id, lease, renewal) =>
        Effect.zipRight(
          open("renewWorkflow", id),
          lift("renewWorkflow", id, () => checkpointer.renewWorkflow(id, lease, renewal)),
        ),
      requestStop: (id, request) =>
        Effect.zipRight(
          open("requestStop", id),
          lift("requestStop", id, () =>
            request === undefined ? checkpointer.requestStop(id) : checkpointer.requestStop(id, request),
          ),
        ),
      getStopRequest: (id) =>
        Effect.zipRight(
          open("getStopRequest", id),
          lift("getStopRequest", id, () => checkpointer.getStopRequest(id)),
        ),
      saveStep,
      saveStepNow,
      startWorkflow: (workflow, claim, steps) =>
        Effect.zipRight(
          open("startWorkflow", workflow?.id),
          lift("startWorkflow", workflow?.id, () => startWorkflow(checkpointer, workflow, claim, steps)),
        ),
      resumeWorkflow: (id, steps, update, fence) =>
        onWorkflow(
          "updateWorkflow",
          id,
          () =>
            finishWorkflow(checkpointer, {
              workflowId: id,
              steps: steps.length === 0 ? [] : [fence === undefined ? { steps } : { steps, fence }],
              update,
              ...(fence === undefined ? {} : { fence }),
            }),
          true,
        ),
      finishWorkflow: finish,
      updateWorkflow: (id, update, fence) =>
        onWorkflow(
          "updateWorkflow",
          id,
          () =>
            fence === undefined
              ? checkpointer.updateWorkflow(id, update)
              : checkpointer.updateWorkflow(id, update, fence),
          true,
        ),
      getWorkflow: (id) => onWorkflow("getWorkflow", id, () => checkpointer.getWorkflow(id)),
      getSteps: (id, read) =>
        onWorkflow("getSteps", id, () =>
          read === undefined ? checkpointer.getSteps(id) : checkpointer.getSteps(id, read),
        ),
      getState: (id, read) =>
        onWorkflow("getState", id, () =>
          read === undefined ? checkpointer.getState(id) : checkpointer.getState(id, read),
        ),
      getCheckpoint: (id, read) =>
        onWorkflow("getCheckpoint", id, () =>
          read === undefined ? checkpointer.getCheckpoint(id) : checkpointer.getCheckpoint(id, read),
        ),
      listWorkflows: (list) =>
        Effect.zipRight(
          open("listWorkflows"),
          lift("listWorkflows", undefined, () =>
            list === undefined ? checkpointer.listWorkflows() : checkpointer.listWorkflows(list),
          ),
        ),
      deleteWorkflow: (id) =>
        Effect.gen(function* () {
          yield* open("deleteWorkflow", id);
          // Pending steps of the workflow and its children are about to be deleted anyway: drop exit buffers,
          // wait for queued async writes, and forget their failures.
          yield* backlog.forget((other) => other === id || other.startsWith(`${id}/`));
          yield* lift("deleteWorkflow", id, () => checkpointer.deleteWorkflow(id));
        }),
      flush,
      close,
    };
    return service;
  });
}
