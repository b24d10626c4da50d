import { type Fence, type Lease, type StopRequest, WorkflowConflictError } from "@graph/checkpoint";
import type { CheckpointStoreService } from "@graph/checkpoint/effect";
import * as Effect from "effect/Effect";
import { LeaseLostError } from "../errors.js";
import type { MapFence } from "../options.js";
import type { RunControl } from "./context.js";
import { Keeper } from "./leaseKeeper.js";
import type { RunError } from "./outcome.js";

/** How the lease of a top-level run is kept: length, renewal and cross-process stop polling (all in ms). */
export interface LeaseTiming {
  readonly ttlMs: number;
  readonly renewEveryMs: number;
  readonly stopPollMs: number;
}

/**
 * The lease of one ROOT run, shared by the root and every child run under it (nested graphs and map items at any
 * depth): they all write under the root's fence, and all stop when it is lost.
 */
export class RootLease {
  readonly workflowId: string;
  readonly owner: string;
  readonly #control: RunControl;
  /** Passed with every write of the run tree; undefined until the root claimed (or with no store). */
  #fence: Fence | undefined;
  /** Set once the lease is lost: the run tree writes nothing more and fails with it. */
  #lost: LeaseLostError | undefined;
  /** The stop request the run started with (an explicit resume supersedes it): only a newer one stops the run. */
  #seenStop: number | undefined;
  /** A recovery (the `recover` run option): a stop request stored before the run began still stops it. */
  readonly #recovering: boolean;
  #keeper: Keeper | undefined;
  #store: CheckpointStoreService | undefined;
  #held: Pick<Lease, "owner" | "epoch"> | undefined;

  /** The `waitForLease` run option in ms: how long a claim waits for a held lease. Undefined: it fails at once. */
  readonly #waitMs: number | undefined;

  private constructor(
    workflowId: string,
    owner: string,
    control: RunControl,
    recovering: boolean,
    waitMs: number | undefined,
    fence: Fence | undefined,
  ) {
    this.workflowId = workflowId;
    this.owner = owner;
    this.#control = control;
    this.#recovering = recovering;
    this.#waitMs = waitMs;
    this.#fence = fence;
  }

  /** The lease of a root run of this process: claimed when the run begins (`claim`), released when it ends. */
  static claimable(
    workflowId: string,
    owner: string,
    control: RunControl,
    recovering = false,
    waitMs?: number,
  ): RootLease {
    return new RootLease(workflowId, owner, control, recovering, waitMs, undefined);
  }

  /**
   * The lease of a root another process holds, for the items of its map dispatched here: never claimed nor released
   * here, its writes carry the holder's fence (so they stop once a newer run claimed the root).
   */
  static fenced(fence: MapFence, owner: string, control: RunControl): RootLease {
    return new RootLease(fence.workflowId, owner, control, false, undefined, { epoch: fence.epoch });
  }

  /** The fence of the root's own writes; undefined until the root claimed (or with no store). */
  get fence(): Fence | undefined {
    return this.#fence;
  }

  /** The fence of the other workflows of the tree (children, map items): the root's epoch, naming the root. */
  get treeFence(): MapFence | undefined {
    const fence = this.#fence;
    return fence === undefined ? undefined : { epoch: fence.epoch, workflowId: this.workflowId };
  }

  /** The loss, once the lease is lost: the run tree writes nothing more and fails with it. */
  get lost(): LeaseLostError | undefined {
    return this.#lost;
  }

  /**
   * The stop request stored when the root run began (read with the workflow). An explicit resume supersedes it: only
   * a newer request stops the run, and the run clears it (true). A recovery carries it out instead: it stops the run
   * at its first check and is never cleared here (false).
   */
  supersede(stored: StopRequest | undefined): boolean {
    const superseded = this.#recovering ? undefined : stored;
    this.#seenStop = superseded?.requestedAt.getTime();
    return superseded !== undefined;
  }

  /** Records the loss (the first one wins) and aborts the whole run tree: running nodes see their signal abort. */
  markLost(why: string, takenBy?: string, cause?: unknown): LeaseLostError {
    if (this.#lost === undefined) {
      this.#lost = new LeaseLostError(this.workflowId, this.owner, why, takenBy, cause);
      this.#control.stop(this.#lost);
    }
    return this.#lost;
  }

  /** A stop request read from storage: stops the run like a local stop, unless the run began after it. */
  sawStop(request: StopRequest | undefined): void {
    if (request === undefined || request.requestedAt.getTime() === this.#seenStop) return;
    this.#control.stop(request.info);
  }

  /**
   * A write of the run tree: nothing once the lease is lost; a fenced write (or any conflict other than a held
   * lease) means the lease is lost.
   */
  guard<A>(write: Effect.Effect<A, RunError>): Effect.Effect<A, RunError> {
    return Effect.suspend(() =>
      this.#lost !== undefined
        ? Effect.fail(this.#lost)
        : write.pipe(Effect.catchIf(isLeaseConflict, (e) => Effect.fail(this.#rejectedBy(e)))),
    );
  }

  /** `guard` for a write that already failed with `error`: the lease loss it means, if it means one. */
  rejected(error: unknown): LeaseLostError | undefined {
    return isLeaseConflict(error) ? this.#rejectedBy(error) : undefined;
  }

  #rejectedBy(e: WorkflowConflictError): LeaseLostError {
    return this.markLost(`a write of the run was rejected (${e.reason}).`, e.heldBy, e);
  }

  /**
   * Claims the lease (with `acquire` when given: a claim merged with the workflow's creation; with `ifPausedAt`
   * only while the workflow is still paused at that visit) and arms its keeper:
   * one timer, due at the first stop poll or renewal. Most runs end before it fires, so they never start a fiber;
   * a run that outlives it gets the fiber that renews the lease and polls for stop requests from then on.
   */
  claim(
    store: CheckpointStoreService,
    timing: LeaseTiming,
    warn: (message: string) => void,
    acquire?: Effect.Effect<Lease, RunError>,
    ifPausedAt?: number,
  ): Effect.Effect<void, RunError> {
    const id = this.workflowId;
    const owner = this.owner;
    // An answer that names its pause claims only while that pause is pending (see `ClaimOptions.ifPausedAt`).
    const options =
      ifPausedAt === undefined ? { owner, ttlMs: timing.ttlMs } : { owner, ttlMs: timing.ttlMs, ifPausedAt };
    const taken =
      acquire ??
      this.#waiting(
        Effect.suspend(() => store.claimWorkflow(id, options)),
        this.#waitMs,
      );
    return Effect.map(taken, (lease) => {
      this.#fence = { epoch: lease.epoch };
      this.#held = { owner, epoch: lease.epoch };
      this.#store = store;
      // The clock starts at the claim, not when the keeper first runs: nodes may run (and block) before that.
      const claimedAt = Date.now();
      this.#keeper = new Keeper(
        () => this.#keep(store, lease.epoch, timing, warn, claimedAt),
        Math.min(timing.stopPollMs, timing.renewEveryMs),
      );
    });
  }

  /**
   * `claim` retried while another holder has the lease (after a crash it stays until it expires), with backoff
   * from 25 ms to 1 s, for at most `waitMs`; the last attempt's `WorkflowConflictError` is the run's error. A stop
   * ends the wait at once.
   */
  #waiting(claim: Effect.Effect<Lease, RunError>, waitMs: number | undefined): Effect.Effect<Lease, RunError> {
    return whileHeld(claim, waitMs, this.#control);
  }

  /** Stops renewing and gives the lease back (nothing to give back once lost). */
  get release(): Effect.Effect<void, RunError> {
    return this.releaseWith((held) =>
      held === undefined ? Effect.void : this.#store!.releaseWorkflow(this.workflowId, held),
    );
  }

  /** Disarms the keeper's timer, or interrupts its fiber (and waits for it) once it started. */
  get #stopRenewing(): Effect.Effect<void> {
    return Effect.suspend(() => {
      const keeper = this.#keeper;
      this.#keeper = undefined;
      return keeper === undefined ? Effect.void : keeper.stop();
    });
  }

  /** Stops renewing, then runs the run's final write, which gives back `held` (undefined: none held, or lost). */
  releaseWith<A>(
    write: (held: Pick<Lease, "owner" | "epoch"> | undefined) => Effect.Effect<A, RunError>,
  ): Effect.Effect<A, RunError> {
    return Effect.zipRight(
      this.#stopRenewing,
      Effect.suspend(() => write(this.#lost === undefined ? this.#held : undefined)),
    );
  }

  /**
   * Runs every `stopPollMs` (first when the keeper's timer fires): polls the stop request, and renews when a renewal is due (its result carries the stop
   * request too). Waking later than the lease's TTL means the event loop was blocked (a node that never yields) or
   * the process was frozen: the lease may have been taken, so it says so and renews at once — a lost lease aborts
   * the run rather than letting two processes run the workflow.
   */
  #keep(
    store: CheckpointStoreService,
    epoch: number,
    timing: LeaseTiming,
    warn: (message: string) => void,
    claimedAt: number,
  ): Effect.Effect<void> {
    const id = this.workflowId;
    const owner = this.owner;
    return Effect.gen(this, function* () {
      let last = claimedAt;
      let renewedAt = last;
      while (this.#lost === undefined) {
        const now = Date.now();
        if (now - last > timing.ttlMs)
          warn(
            `Workflow '${id}': the lease renewal ran ${now - last} ms after the previous one, longer than the lease (leaseTtlMs ${timing.ttlMs}). ` +
              "The event loop was blocked (a node computing without awaiting) or the process was paused; another process may have taken the workflow. " +
              "Renewing now: if the lease was lost the run aborts with LeaseLostError. How to fix: make long computations yield (await) or raise leaseTtlMs.",
          );
        last = now;
        // The options check keeps renewEveryMs ≤ ttlMs / 2, so a renewal on this schedule lands well inside the lease.
        if (now - renewedAt >= timing.renewEveryMs) {
          renewedAt = now;
          const renewed = yield* Effect.either(store.renewWorkflow(id, { owner, epoch }, { ttlMs: timing.ttlMs }));
          if (renewed._tag === "Right") this.sawStop(renewed.right.stopRequested);
          else if (isLeaseConflict(renewed.left))
            this.markLost(`its renewal failed (${renewed.left.reason}).`, renewed.left.heldBy, renewed.left);
          // Other failures (storage briefly unreachable) are retried at the next tick; writes stay fenced.
        } else {
          const stop = yield* Effect.either(store.getStopRequest(id));
          if (stop._tag === "Right") this.sawStop(stop.right);
        }
        yield* Effect.sleep(Math.min(timing.stopPollMs, timing.renewEveryMs));
      }
    });
  }
}

/**
 * `attempt` (a claim, or anything that claims first, like an upgrade) retried while it fails because another holder
 * has the lease, with backoff from 25 ms to 1 s, for at most `waitMs` (undefined or 0: once); the last attempt's
 * error is the result. A stop ends the wait at once.
 */
export function whileHeld<A, E>(
  attempt: Effect.Effect<A, E>,
  waitMs: number | undefined,
  control: RunControl,
): Effect.Effect<A, E> {
  if (waitMs === undefined || waitMs <= 0) return attempt;
  const deadline = Date.now() + waitMs;
  const retry = (delay: number): Effect.Effect<A, E> =>
    attempt.pipe(
      Effect.catchIf(
        (e) => isHeld(e) && Date.now() < deadline && !control.stopRequested,
        () =>
          Effect.sleep(Math.min(delay, Math.max(0, deadline - Date.now()))).pipe(
            Effect.zipRight(Effect.suspend(() => retry(Math.min(delay * 2, 1000)))),
          ),
      ),
    );
  return retry(25);
}

/** A claim refused because another holder has the lease (live, or crashed and not yet expired). */
const isHeld = (e: unknown): e is WorkflowConflictError => WorkflowConflictError.is(e) && e.reason === "lease-held";

/** A conflict that means the lease is gone (a held lease only blocks a claim; it is not a loss). */
const isLeaseConflict = (e: unknown): e is WorkflowConflictError =>
  WorkflowConflictError.is(e) && e.reason !== "lease-held";
