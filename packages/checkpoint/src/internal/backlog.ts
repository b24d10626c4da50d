/**
 * Steps saved but not written yet — the `async` background writer and the `exit` buffers — and the failures of
 * their writes, per workflow. The store (`store.ts`) queues steps here and waits for them before every other
 * operation on their workflow; `take` hands a workflow's unwritten steps to the final write of its run.
 */

import * as Deferred from "effect/Deferred";
import * as Effect from "effect/Effect";
import * as Either from "effect/Either";
import * as FiberId from "effect/FiberId";
import type * as Scope from "effect/Scope";
import type { Fence, StepGroup, StepRecord } from "../Checkpointer.js";
import type { Durability } from "../CheckpointPolicy.js";
import type { CheckpointStoreError, GuardedCheckpointer } from "../guard.js";

/** One saved step and the fence it was saved under. */
interface Entry {
  readonly step: StepRecord;
  readonly fence: Fence | undefined;
}

type Job = Entry;

/** Steps a final write took from the backlog; `settle` them once that write is over (whatever its outcome). */
interface Taken {
  readonly groups: readonly StepGroup[];
  /** Completes when the taken steps are settled (waiters of the workflow go on). */
  readonly done?: { readonly workflowId: string; readonly signal: Deferred.Deferred<void> } | undefined;
}

/** What the store needs from the backlog. */
export interface Backlog {
  /** Write failures not reported yet, per workflow. */
  readonly failures: Map<string, CheckpointStoreError>;
  /** Queues (async) or buffers (exit) a snapshotted step. */
  readonly add: (entry: Entry) => void;
  /** Makes every earlier step of the workflow reach the adapter (does not report failures). */
  readonly drain: (workflowId: string) => Effect.Effect<void>;
  /** True when `drain(workflowId)` has nothing to wait for (async: no step of the workflow queued or being written). */
  readonly idle: (workflowId: string) => boolean;
  /** `drain` for every workflow. */
  readonly drainAll: Effect.Effect<void>;
  /**
   * Removes the workflow's steps nobody started writing and waits for those already being written, so the caller
   * can write the rest itself, in order, in its own transaction.
   */
  readonly take: (workflowId: string) => Effect.Effect<Taken>;
  /** Marks taken steps written (or given up): waiters of the workflow go on. */
  readonly settle: (taken: Taken) => Effect.Effect<void>;
  /** Drops the buffers of workflows about to be deleted and waits for their queued writes. */
  readonly forget: (doomed: (workflowId: string) => boolean) => Effect.Effect<void>;
}

type Lift = <A>(
  operation: string,
  workflowId: string | undefined,
  run: () => Promise<A>,
) => Effect.Effect<A, CheckpointStoreError>;

/** Two fences guard writes the same way (same epoch of the same guarding workflow). */
function sameGuard(a: Fence | undefined, b: Fence | undefined): boolean {
  return a?.epoch === b?.epoch && a?.workflowId === b?.workflowId;
}

/** Consecutive entries of one workflow with the same fence become one group. */
function toGroups(entries: readonly Entry[]): StepGroup[] {
  const groups: { steps: StepRecord[]; fence: Fence | undefined }[] = [];
  for (const entry of entries) {
    const last = groups.at(-1);
    if (
      last !== undefined &&
      last.steps[0]!.workflowId === entry.step.workflowId &&
      sameGuard(last.fence, entry.fence)
    ) {
      last.steps.push(entry.step);
    } else groups.push({ steps: [entry.step], fence: entry.fence });
  }
  return groups.map((g) => (g.fence === undefined ? { steps: g.steps } : { steps: g.steps, fence: g.fence }));
}

export function makeBacklog(
  durability: Durability,
  checkpointer: GuardedCheckpointer,
  lift: Lift,
): Effect.Effect<Backlog, never, Scope.Scope> {
  return Effect.gen(function* () {
    const failures = new Map<string, CheckpointStoreError>();
    /** async: jobs nobody started writing, in save order; the completion of each workflow's last job and overall. */
    let pending: Job[] = [];
    const lastJobOf = new Map<string, Deferred.Deferred<void>>();
    /** async: the completion signal of each workflow's jobs nobody took yet (one per workflow, not per job). */
    let pendingDone = new Map<string, Deferred.Deferred<void>>();
    let lastJob: Deferred.Deferred<void> | undefined;
    /** async: completes when the writer's current batch is written. */
    let writing: Deferred.Deferred<void> | undefined;
    const wake = yield* Effect.makeLatch(false);
    // The writer is woken one turn of the event loop after the first step queued since its last batch: a run whose
    // nodes finish within that turn (fast async nodes) queues all its steps first, and they are written together,
    // or taken by the run's final write, in which case the writer is not woken at all.
    let wakeScheduled = false;
    const wakeSoon = () => {
      if (wakeScheduled) return;
      wakeScheduled = true;
      setImmediate(() => {
        wakeScheduled = false;
        if (pending.length > 0) wake.unsafeOpen();
      });
    };
    /** exit: buffered steps per workflow, in save order. */
    const buffers = new Map<string, Entry[]>();
    const exitLock = yield* Effect.makeSemaphore(1);

    const write = (step: StepRecord, fence: Fence | undefined) =>
      lift("saveStep", step.workflowId, () =>
        fence === undefined ? checkpointer.saveStep(step) : checkpointer.saveStep(step, fence),
      );

    /** Writes steps of one workflow in order: one atomic call when the adapter has `saveSteps`. */
    const writeMany = (entries: readonly Entry[]) => {
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

    /** Completes a completion signal: waiters of its workflow (and of everything, when it was the last) go on. */
    const complete = (workflowId: string, done: Deferred.Deferred<void>) => {
      if (lastJobOf.get(workflowId) === done) lastJobOf.delete(workflowId);
      if (lastJob === done) lastJob = undefined;
      return Deferred.succeed(done, undefined);
    };

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

    // One writer fiber takes everything queued at once and writes it in one transaction when the adapter can; on
    // a failure (all or none was written) it falls back to one write per workflow, so the failure is attributed.
    // A failed write is remembered for its workflow and the workflow's later queued steps are skipped (writing
    // them would leave a gap in the history).
    const runJobs = (jobs: readonly Job[]) =>
      Effect.gen(function* () {
        if (jobs.length === 0) return;
        if (yield* writeBatch(jobs)) return;
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
          i = j;
        }
      });

    if (durability === "async") {
      const takeBatch = Effect.flatMap(Deferred.make<void>(), (done) =>
        Effect.sync(() => {
          wake.unsafeClose();
          const batch = { jobs: pending, dones: pendingDone, done };
          pending = [];
          pendingDone = new Map();
          writing = done;
          return batch;
        }),
      );
      const round = wake.await.pipe(
        Effect.zipRight(takeBatch),
        Effect.flatMap(({ jobs, dones, done }) =>
          runJobs(jobs).pipe(
            Effect.zipRight(
              Effect.suspend(() => {
                if (writing === done) writing = undefined;
                return Effect.forEach(dones, ([workflowId, signal]) => complete(workflowId, signal), {
                  discard: true,
                }).pipe(Effect.zipRight(Deferred.succeed(done, undefined)));
              }),
            ),
            Effect.uninterruptible,
          ),
        ),
      );
      yield* Effect.forkScoped(Effect.forever(round));
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

    const drain = (workflowId: string): Effect.Effect<void> =>
      Effect.suspend(() => {
        if (durability === "exit") return writeBuffer(workflowId);
        const last = lastJobOf.get(workflowId);
        return last === undefined ? Effect.void : Deferred.await(last);
      });

    const drainAll: Effect.Effect<void> = Effect.suspend(() => {
      if (durability === "exit") return Effect.forEach([...buffers.keys()], writeBuffer, { discard: true });
      return lastJob === undefined ? Effect.void : Deferred.await(lastJob);
    });

    const add = (entry: Entry): void => {
      const workflowId = entry.step.workflowId;
      if (durability === "exit") {
        const buffered = buffers.get(workflowId);
        if (buffered === undefined) buffers.set(workflowId, [entry]);
        else buffered.push(entry);
        return;
      }
      let done = pendingDone.get(workflowId);
      if (done === undefined) {
        done = Deferred.unsafeMake<void>(FiberId.none);
        pendingDone.set(workflowId, done);
        lastJobOf.set(workflowId, done);
      }
      lastJob = done;
      pending.push(entry);
      wakeSoon();
    };

    const none: Taken = { groups: [] };
    const take = (workflowId: string): Effect.Effect<Taken> => {
      if (durability === "exit") {
        return exitLock.withPermits(1)(
          Effect.sync(() => {
            const buffered = buffers.get(workflowId);
            buffers.delete(workflowId);
            return buffered === undefined ? none : { groups: toGroups(buffered) };
          }),
        );
      }
      return Effect.suspend(() => {
        if (!lastJobOf.has(workflowId)) return Effect.succeed(none);
        const mine: Job[] = [];
        const rest: Job[] = [];
        for (const job of pending) (job.step.workflowId === workflowId ? mine : rest).push(job);
        pending = rest;
        const done = pendingDone.get(workflowId);
        pendingDone.delete(workflowId);
        const taken: Taken = {
          groups: mine.length === 0 ? [] : toGroups(mine),
          done: done === undefined ? undefined : { workflowId, signal: done },
        };
        // Steps of the workflow the writer already took are written first (history stays in order).
        return writing === undefined ? Effect.succeed(taken) : Effect.as(Deferred.await(writing), taken);
      });
    };

    const settle = (taken: Taken): Effect.Effect<void> =>
      Effect.suspend(() => {
        const done = taken.done;
        return done === undefined ? Effect.void : complete(done.workflowId, done.signal);
      });

    const forget = (doomed: (workflowId: string) => boolean): Effect.Effect<void> =>
      Effect.gen(function* () {
        for (const other of [...buffers.keys()]) if (doomed(other)) buffers.delete(other);
        yield* exitLock.withPermits(1)(Effect.void);
        if (durability === "async") yield* drainAll;
        for (const other of [...failures.keys()]) if (doomed(other)) failures.delete(other);
      });

    // Under exit durability a buffer being written is already out of `buffers`: only the lock knows.
    const idle = (workflowId: string): boolean => durability !== "exit" && !lastJobOf.has(workflowId);

    return { failures, add, drain, idle, drainAll, take, settle, forget };
  });
}
