/**
 * The Effect-side store over any Promise adapter: guard (setup once, close once, classified errors) plus
 * durability (sync / async background writer / exit buffering).
 */

import type { Scope } from "effect";
import { Chunk, Deferred, Effect, Either, Queue } from "effect";
import type {
  Checkpoint,
  Checkpointer,
  Fence,
  Lease,
  ListWorkflowsOptions,
  NewWorkflow,
  RenewedLease,
  StepReadOptions,
  StepRecord,
  StopRequest,
  WorkflowPage,
  WorkflowRecord,
  WorkflowUpdate,
} from "../Checkpointer.js";
import type { CheckpointPolicy } from "../CheckpointPolicy.js";
import { resolvePolicy } from "../CheckpointPolicy.js";
import { CheckpointError, isCheckpointError } from "../errors.js";
import type { CheckpointStoreError, GuardedCheckpointer } from "../guard.js";
import { classifyCheckpointerError, guardCheckpointer } from "../guard.js";
import { snapshotStep } from "./snapshot.js";

/** The runtime's view of a checkpointer; see `@graph/checkpoint/effect`. */
export interface CheckpointStoreService {
  readonly policy: CheckpointPolicy;
  readonly checkpointer: GuardedCheckpointer;
  readonly setup: Effect.Effect<void, CheckpointStoreError>;
  readonly createWorkflow: (
    workflow: NewWorkflow,
  ) => Effect.Effect<{ readonly workflow: WorkflowRecord; readonly created: boolean }, CheckpointStoreError>;
  readonly claimWorkflow: (
    id: string,
    options: { readonly owner: string; readonly ttlMs: number },
  ) => Effect.Effect<Lease, CheckpointStoreError>;
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

interface Job {
  readonly step: StepRecord;
  readonly fence: Fence | undefined;
  readonly done: Deferred.Deferred<void>;
}

/** Two fences guard writes the same way (same epoch of the same guarding workflow). */
function sameGuard(a: Fence | undefined, b: Fence | undefined): boolean {
  return a?.epoch === b?.epoch && a?.workflowId === b?.workflowId;
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
    /** Write failures not yet reported, per workflow (async and exit modes). */
    const failures = new Map<string, CheckpointStoreError>();
    /** async: the completion signal of the last queued job, per workflow and overall. */
    const lastJobOf = new Map<string, Deferred.Deferred<void>>();
    let lastJob: Deferred.Deferred<void> | undefined;
    /** exit: buffered steps per workflow, in save order. */
    const buffers = new Map<string, Array<{ readonly step: StepRecord; readonly fence: Fence | undefined }>>();
    const exitLock = yield* Effect.makeSemaphore(1);
    const queue = yield* Queue.unbounded<Job>();

    const write = (step: StepRecord, fence: Fence | undefined) =>
      lift("saveStep", step.workflowId, () =>
        fence === undefined ? checkpointer.saveStep(step) : checkpointer.saveStep(step, fence),
      );

    const takeFailure = (workflowId: string): Effect.Effect<void, CheckpointStoreError> =>
      Effect.suspend(() => {
        const failure = failures.get(workflowId);
        if (failure === undefined) return Effect.void;
        failures.delete(workflowId);
        return Effect.fail(failure);
      });

    /** Writes steps of one workflow in order: one atomic call when the adapter has `saveSteps`. */
    const writeMany = (entries: ReadonlyArray<{ readonly step: StepRecord; readonly fence: Fence | undefined }>) => {
      const first = entries[0]!;
      const sameFence = entries.every((e) => sameGuard(e.fence, first.fence));
      if (entries.length > 1 && sameFence && checkpointer.saveSteps !== undefined) {
        const steps = entries.map((e) => e.step);
        return lift("saveSteps", first.step.workflowId, () =>
          first.fence === undefined ? checkpointer.saveSteps!(steps) : checkpointer.saveSteps!(steps, first.fence),
        );
      }
      return Effect.forEach(entries, (e) => write(e.step, e.fence), { discard: true });
    };

    // async mode: one writer fiber takes jobs in order, everything queued at that moment at once, and writes each
    // workflow's run of jobs in one call (one transaction for SQL adapters). A failed write is remembered for its
    // workflow and the workflow's later queued steps are skipped (writing them would leave a gap in the history).
    const runJobs = (jobs: readonly Job[]) =>
      Effect.gen(function* () {
        // Everything queued at once, several workflows included, in one transaction when the adapter can; on a
        // failure (all or none was written) fall back to one write per workflow, so the failure is attributed.
        const batched = yield* writeBatch(jobs);
        if (batched) {
          for (const job of jobs) yield* settle(job);
          return;
        }
        let i = 0;
        while (i < jobs.length) {
          const workflowId = jobs[i]!.step.workflowId;
          let j = i + 1;
          while (j < jobs.length && jobs[j]!.step.workflowId === workflowId) j++;
          const group = jobs.slice(i, j);
          if (!failures.has(workflowId)) {
            const result = yield* Effect.either(writeMany(group));
            if (Either.isLeft(result)) failures.set(workflowId, result.left);
          }
          for (const job of group) {
            if (lastJobOf.get(workflowId) === job.done) lastJobOf.delete(workflowId);
            if (lastJob === job.done) lastJob = undefined;
            yield* Deferred.succeed(job.done, undefined);
          }
          i = j;
        }
      }).pipe(Effect.uninterruptible);

    const settle = (job: Job) =>
      Effect.suspend(() => {
        const workflowId = job.step.workflowId;
        if (lastJobOf.get(workflowId) === job.done) lastJobOf.delete(workflowId);
        if (lastJob === job.done) lastJob = undefined;
        return Deferred.succeed(job.done, undefined);
      });

    /** One `saveStepBatch` call for every workflow of `jobs`; false when not possible or it failed. */
    const writeBatch = (jobs: readonly Job[]): Effect.Effect<boolean> =>
      Effect.suspend(() => {
        if (checkpointer.saveStepBatch === undefined) return Effect.succeed(false);
        const groups = new Map<string, { steps: StepRecord[]; fence: Fence | undefined }>();
        for (const job of jobs) {
          const workflowId = job.step.workflowId;
          if (failures.has(workflowId)) return Effect.succeed(false);
          const group = groups.get(workflowId);
          if (group === undefined) groups.set(workflowId, { steps: [job.step], fence: job.fence });
          else if (!sameGuard(group.fence, job.fence)) return Effect.succeed(false);
          else group.steps.push(job.step);
        }
        if (groups.size < 2) return Effect.succeed(false);
        // Sorted by id: concurrent writers lock workflow rows in one order (no deadlock between two batches).
        const batch = [...groups.entries()]
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([, group]) =>
            group.fence === undefined ? { steps: group.steps } : { steps: group.steps, fence: group.fence },
          );
        return lift("saveStepBatch", batch[0]?.steps[0]?.workflowId, () => checkpointer.saveStepBatch!(batch)).pipe(
          Effect.as(true),
          Effect.orElseSucceed(() => false),
        );
      });

    if (policy.durability === "async") {
      const takeBatch = Effect.flatMap(Queue.take(queue), (head) =>
        Effect.map(Queue.takeAll(queue), (rest) => [head, ...Chunk.toReadonlyArray(rest)]),
      );
      yield* Effect.forkScoped(Effect.forever(Effect.flatMap(takeBatch, runJobs)));
    }

    /** exit mode: writes one workflow's buffer in order; a failure is remembered and the rest dropped. */
    const writeBuffer = (workflowId: string): Effect.Effect<void> =>
      exitLock.withPermits(1)(
        Effect.gen(function* () {
          const buffered = buffers.get(workflowId);
          if (buffered === undefined) return;
          buffers.delete(workflowId);
          const result = yield* Effect.either(writeMany(buffered));
          if (Either.isLeft(result)) failures.set(workflowId, result.left);
        }),
      );

    /** Makes every earlier saveStep of the workflow reach the adapter (does not report failures). */
    const drain = (workflowId: string): Effect.Effect<void> =>
      Effect.suspend(() => {
        if (policy.durability === "exit") return writeBuffer(workflowId);
        const pending = lastJobOf.get(workflowId);
        return pending === undefined ? Effect.void : Deferred.await(pending);
      });

    const drainAll: Effect.Effect<void> = Effect.suspend(() => {
      if (policy.durability === "exit") {
        return Effect.forEach([...buffers.keys()], writeBuffer, { discard: true });
      }
      return lastJob === undefined ? Effect.void : Deferred.await(lastJob);
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
    const onWorkflow = <A>(operation: string, id: string, run: () => Promise<A>, reportFailures = false) =>
      Effect.gen(function* () {
        yield* open(operation, id);
        yield* drain(id);
        if (reportFailures) yield* takeFailure(id);
        return yield* lift(operation, id, run);
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

    const saveStep = (step: StepRecord, fence?: Fence): Effect.Effect<void, CheckpointStoreError> =>
      Effect.gen(function* () {
        const workflowId = typeof step === "object" && step !== null ? step.workflowId : undefined;
        yield* open("saveStep", workflowId);
        if (policy.durability === "sync" || typeof workflowId !== "string") return yield* write(step, fence);
        // Setup failures surface at the first save rather than in the background.
        if (!ready) yield* setup;
        yield* takeFailure(workflowId);
        // Written later: copy the values now (and fail now when they cannot be stored).
        step = yield* Effect.try({
          try: () => snapshotStep(step, checkpointer.serializer),
          catch: (error) => classifyCheckpointerError(error, "saveStep", workflowId),
        });
        if (policy.durability === "exit") {
          const buffered = buffers.get(workflowId);
          if (buffered === undefined) buffers.set(workflowId, [{ step, fence }]);
          else buffered.push({ step, fence });
          return;
        }
        const done = yield* Deferred.make<void>();
        lastJobOf.set(workflowId, done);
        lastJob = done;
        yield* Queue.offer(queue, { step, fence, done });
      });

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

    const service: CheckpointStoreService = {
      policy,
      checkpointer,
      setup,
      createWorkflow: (workflow) =>
        Effect.zipRight(
          open("createWorkflow", workflow?.id),
          lift("createWorkflow", workflow?.id, () => checkpointer.createWorkflow(workflow)),
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
          const doomed = (other: string) => other === id || other.startsWith(`${id}/`);
          for (const other of [...buffers.keys()]) if (doomed(other)) buffers.delete(other);
          yield* exitLock.withPermits(1)(Effect.void);
          if (policy.durability === "async") yield* drainAll;
          for (const other of [...failures.keys()]) if (doomed(other)) failures.delete(other);
          yield* lift("deleteWorkflow", id, () => checkpointer.deleteWorkflow(id));
        }),
      flush,
      close,
    };
    return service;
  });
}
