import { type Fence, INPUT_STEP, type StepRecord, type UsageRecord, type WorkflowRecord } from "@graph/checkpoint";
import type { CheckpointStoreService } from "@graph/checkpoint/effect";
import * as Effect from "effect/Effect";
import { VersionMismatchError } from "../errors.js";
import type { RunResult } from "../RunResult.js";
import { refusedWhenSettled, staleAnswer } from "./answering.js";
import { Attempts } from "./attempts.js";
import { deepEqual } from "./equal.js";
import { foldSteps } from "./fold.js";
import type { EngineHost } from "./host.js";
import { restoreNested, stepRecord } from "./journalRecords.js";
import { stillAsRestored, timeFields } from "./journalTime.js";
import { budgetInForce, countUsage } from "./journalUsage.js";
import { type Execution, type Outcome, type RunError, toStoredError } from "./outcome.js";
import { responseKeys } from "./responseKeys.js";

/**
 * A run's durable record: restores state from the workflow's steps, writes the input step, one step per finished
 * node (in the order nodes finished) and the workflow's final status, all under the run's lease. Without a store
 * it only merges the caller's values and numbers the steps.
 */
export class Journal {
  readonly #host: EngineHost;
  readonly #store: CheckpointStoreService | undefined;
  #workflow: WorkflowRecord | undefined;
  #paused: ReadonlyMap<string, string> = new Map();
  /** The fence of this run's writes: the root's epoch (child runs name the root as the guarding workflow). */
  #fence: Fence | undefined;
  #forked: StepRecord[] = [];
  #inputStep: StepRecord | undefined;
  #newTurn = true;
  #parentVersionsSeen: Record<string, number> | undefined;
  /** The restored history's replayed events, told once the run holds the workflow (`replay()`). */
  #replay: (() => void) | undefined;
  readonly #inline: boolean;
  /** The first failed inline save: the run fails with it. */
  #writeError: RunError | undefined;
  /** The budget stored by the workflow's latest input record that has one. */
  #storedBudget: UsageRecord | undefined;
  /** A root run that paused: the workflow's `lastSuperstep` as its final write stored it (the pause's visit). */
  #visit: number | undefined;

  /** The attempts of the run's nodes with `retry`, stored as steps of their own under the run's lease. */
  readonly attempts: Attempts;

  constructor(host: EngineHost) {
    this.#host = host;
    this.#store = host.config.shared.store;
    this.#inline = this.#store === undefined || this.#store.policy.durability !== "sync";
    const store = this.#store;
    this.attempts = new Attempts(store === undefined ? undefined : (step) => this.#saveStep(store, step));
  }

  /** Nodes paused in the stored history, with the response key each asked for (empty: new; undefined: no store). */
  get paused(): ReadonlyMap<string, string> | undefined {
    return this.#store === undefined ? undefined : this.#paused;
  }

  /** The visit of the pause this root run stored (undefined: it did not pause, or nothing is stored). */
  get visit(): number | undefined {
    return this.#visit;
  }

  /** The stored workflow as it was before this run (undefined: new, or no store). */
  get workflow(): WorkflowRecord | undefined {
    return this.#workflow;
  }

  /**
   * A run that would only repeat a finished workflow: a top-level run of a `completed` workflow that brings no new
   * values (nothing differs from its stored state), no fork and no forced graph change. It returns the stored
   * result and runs nothing: a status check or a retry has no side effects (new values start the next turn).
   */
  get settled(): boolean {
    const { config } = this.#host;
    return (
      this.#workflow?.status === "completed" &&
      this.#inputStep === undefined &&
      !config.isChild &&
      !config.force &&
      config.checkpoint === undefined
    );
  }

  /**
   * Emits the replayed RouteDecision / NodeEnd events of the restored history, once. `begin` calls it when the run
   * holds the workflow (a run that fails to claim it tells nothing); the engine for a settled rerun.
   */
  replay(): void {
    const replay = this.#replay;
    this.#replay = undefined;
    replay?.();
  }

  /** Without a store: the caller's values are the run's input step. */
  mergeInputs(): void {
    this.#inputStep = this.#mergeInputs();
  }

  /** Loads the workflow (if any): checks the graph version, folds its steps into state, merges the caller's values. */
  restore(): Effect.Effect<void, RunError> {
    const store = this.#store;
    if (store === undefined) return Effect.sync(() => this.mergeInputs());
    const { config, graph } = this.#host;
    const id = config.workflowId;
    return store.getWorkflow(id).pipe(
      Effect.flatMap((workflow): Effect.Effect<{ steps: readonly StepRecord[]; turn: boolean }, RunError> => {
        this.#workflow = workflow;
        // An answer naming a pause already settled is refused before its steps are read or anything is written.
        const stale = staleAnswer(id, config.answering, config.values, workflow);
        if (stale !== undefined) return Effect.fail(stale);
        if (workflow !== undefined && workflow.graphHash !== graph.definitionHash && !config.force)
          return Effect.fail(new VersionMismatchError(id, workflow.graphHash, graph.definitionHash));
        if (workflow !== undefined)
          return store
            .getSteps(id, { includeInputs: true })
            .pipe(Effect.map((steps) => ({ steps, turn: workflow.status === "completed" })));
        const cp = config.checkpoint;
        this.#forked = cp === undefined ? [] : cp.steps.map((s) => ({ ...s, workflowId: id }));
        return Effect.succeed({ steps: this.#forked, turn: false });
      }),
      Effect.flatMap(({ steps, turn }) => {
        const folded = foldSteps(this.#host, steps, turn);
        this.#parentVersionsSeen = folded.parentVersionsSeen;
        this.#newTurn = folded.newTurn;
        this.#paused = folded.paused;
        this.#replay = folded.replay;
        this.#storedBudget = folded.budget;
        if (this.#workflow !== undefined) this.attempts.restore(steps);
        this.#inputStep = this.#mergeInputs();
        // A run that goes on with its turn starts from what the turn's stored steps spent; a new turn from zero.
        if (this.#inputStep?.turnStart !== true && folded.turnUsage !== undefined) {
          this.#host.state.usage = folded.turnUsage;
          config.meter.add(folded.turnUsage, `${id}/${this.#workflow?.pause?.nodeName ?? ""}`);
        }
        return restoreNested(this.#host, store, folded.replayedGraphNodes);
      }),
    );
  }

  /**
   * Creates or claims the workflow and writes the forked history and the input step. A root run's first steps are
   * written with its claim (a new workflow: in the same write as its creation; a resumed one: with its `running`
   * update), whatever the durability: a run's inputs are durable before its first node starts. A child run's are
   * queued like its other steps (its parent re-supplies them after a crash), and its record is created under the
   * root's fence, so a run that lost its root's lease creates nothing.
   */
  begin(): Effect.Effect<void, RunError> {
    const store = this.#store;
    if (store === undefined) return Effect.void;
    const { config, graph } = this.#host;
    const id = config.workflowId;
    const lease = config.lease;
    const startAt = config.time?.startAt;
    const newWorkflow = {
      id,
      graphName: graph.name ?? "graph",
      graphHash: graph.definitionHash,
      ...(config.parentWorkflowId === undefined ? {} : { parentId: config.parentWorkflowId }),
      ...(startAt === undefined ? {} : { wakeAt: new Date(startAt) }),
    };
    const first = this.#inputStep === undefined ? this.#forked : [...this.#forked, this.#inputStep];
    if (config.isChild) {
      this.replay();
      this.#fence = lease?.treeFence;
      const create: Effect.Effect<unknown, RunError> =
        this.#workflow !== undefined ? Effect.void : this.#guard(store.createWorkflow(newWorkflow, this.#fence));
      return create.pipe(
        Effect.zipRight(
          Effect.suspend(() =>
            Effect.forEach(first, (s) => this.#guard(store.saveStep(s, this.#fence)), { discard: true }),
          ),
        ),
      );
    }
    if (lease === undefined) return Effect.sync(() => this.replay());
    // A new root workflow is created and claimed in one write, its first steps with it.
    const createAndClaim = this.#workflow === undefined;
    // A stop request stored before this run began is superseded by it (an explicit resume), unless it is a recovery.
    const clearStop = lease.supersede(this.#workflow?.stopRequested);
    const claim = lease
      .claim(
        store,
        config.shared.lease,
        (message) => this.#host.event("Warning", { message }),
        createAndClaim
          ? Effect.map(
              store.startWorkflow(newWorkflow, { owner: lease.owner, ttlMs: config.shared.lease.ttlMs }, first),
              (started) => started.lease,
            )
          : undefined,
        config.answering?.visit,
      )
      .pipe(
        (claimed) => refusedWhenSettled(claimed, store, id, config.answering, config.values),
        // A stop asked for after restore read the workflow stops the run before any node; and a workflow that
        // another runner resumed in between is left to it (see `stillAsRestored`). A workflow this run creates skips the
        // read (a round trip per run): a request racing its creation is seen at the first stop poll.
        Effect.zipRight(
          createAndClaim
            ? Effect.void
            : Effect.flatMap(store.getWorkflow(id), (now) => stillAsRestored(this.#host, this.#workflow, now)),
        ),
      );
    return claim.pipe(
      Effect.tap(() => {
        this.#fence = lease.fence;
        this.replay();
      }),
      // A workflow created just now is already "running" with no pause or error, and has its first steps: done.
      Effect.zipRight(
        Effect.suspend(
          (): Effect.Effect<unknown, RunError> =>
            createAndClaim
              ? Effect.void
              : this.#guard(
                  store.resumeWorkflow(
                    id,
                    first,
                    {
                      status: "running",
                      pause: null,
                      error: null,
                      ...(config.force ? { graphHash: graph.definitionHash } : {}),
                      ...(clearStop ? { stopRequested: null } : {}),
                      // Resumed: what it waited for is over (the run stores its next due time when it pauses again).
                      ...(this.#workflow?.wakeAt === undefined ? {} : { wakeAt: null }),
                      ...(this.#workflow?.waitingFor === undefined ? {} : { waitingFor: null }),
                    },
                    this.#fence,
                  ),
                ),
        ),
      ),
    );
  }

  /**
   * Whether `record` saves without an Effect (no store, or one that queues steps: durability `async` or `exit`):
   * a superstep of plain async nodes then awaits their promises directly.
   */
  get inline(): boolean {
    return this.#inline;
  }

  /**
   * Numbers a finished node's step; with a store, saves it right away (siblings done before a crash stay done).
   * Returns undefined when done inline; a failed inline save also ends the run at its next superstep.
   */
  record(ex: Execution, o: Outcome): Effect.Effect<void, RunError> | undefined {
    const state = this.#host.state;
    o.index = state.nextIndex++;
    const usage =
      ex.usage === undefined && ex.childUsage === undefined && !this.#host.config.meter.timed
        ? undefined
        : countUsage(this.#host, ex);
    const store = this.#store;
    if (store === undefined) return undefined;
    const superstep = state.superstep;
    const save = this.#saveStep(store, stepRecord(this.#host.config.workflowId, superstep, ex, o, usage));
    const saved = () => this.#host.event("CheckpointSaved", { superstep, nodeName: ex.node.name });
    if (save === undefined) saved();
    // Inline, `save` is the failed write; otherwise the write itself.
    return save === undefined || this.#inline ? save : save.pipe(Effect.tap(saved));
  }

  /**
   * Saves a step: queued (undefined when done) or as an Effect the caller waits for (durability `sync`). A failed
   * queued save also ends the run: a caller that ignores the result (plain nodes awaited directly) stops at the next
   * superstep, and `finish` fails.
   */
  #saveStep(store: CheckpointStoreService, step: StepRecord): Effect.Effect<void, RunError> | undefined {
    if (!this.#inline) return this.#guard(store.saveStep(step, this.#fence));
    const error = this.#saveNow(store, step);
    if (error === undefined) return undefined;
    this.#writeError ??= error;
    this.#host.state.failure ??= error;
    return Effect.fail(error);
  }

  /** `lease.guard` of an inline save. */
  #saveNow(store: CheckpointStoreService, step: StepRecord): RunError | undefined {
    const lease = this.#host.config.lease;
    if (lease?.lost !== undefined) return lease.lost;
    const error = store.saveStepNow(step, this.#fence);
    if (error === undefined || lease === undefined) return error;
    return lease.rejected(error) ?? error;
  }

  /** Writes the workflow's final status, flushes (top-level runs) and gives the lease back. */
  finish(result: RunResult): Effect.Effect<void, RunError> {
    const store = this.#store;
    if (store === undefined) return Effect.void;
    const { config } = this.#host;
    const id = config.workflowId;
    const lease = config.lease;
    if (lease?.lost !== undefined) return Effect.fail(lease.lost);
    if (this.#writeError !== undefined) return Effect.fail(this.#writeError);
    const update = {
      // The root's final update also marks a stop request handled (the stop it asked for happened, or came too late).
      ...(config.isChild ? {} : { stopRequested: null }),
      status: result.status,
      pause:
        result.pause === undefined
          ? null
          : { nodeName: result.pause.nodeName, value: result.pause.value, responseKey: result.pause.responseKey },
      error: result.error === undefined ? null : toStoredError(result.error),
      // What the pause waits for, stored in the same fenced write as the pause (only the root's record is listed).
      ...(config.isChild ? {} : timeFields(this.#host, result)),
    };
    // A root run's last queued steps, final status and lease release go in one write.
    const write: Effect.Effect<unknown, RunError> =
      config.isChild || lease === undefined
        ? this.#guard(store.updateWorkflow(id, update, this.#fence)).pipe(
            Effect.zipRight(config.isChild ? Effect.void : this.#guard(store.flush(id))),
          )
        : lease.releaseWith((release) =>
            this.#guard(
              store.finishWorkflow({
                workflowId: id,
                update,
                ...(this.#fence === undefined ? {} : { fence: this.#fence }),
                ...(release === undefined ? {} : { release }),
              }),
            ).pipe(
              Effect.tap((stored) => {
                // The pause's visit: the stored position an answer names to be taken only while it is pending.
                if (stored.status === "paused") this.#visit = stored.lastSuperstep;
              }),
            ),
          );
    const dueAt = update.wakeAt?.getTime();
    const waiting = config.isChild ? undefined : (update.waitingFor ?? undefined);
    return write.pipe(
      // Stored: the runner's scheduler arms for it (a timer is only the reminder; the due time is in the store).
      Effect.tap(() => {
        if (dueAt !== undefined) config.shared.onDue(dueAt);
        if (waiting !== undefined) config.shared.onWaiting(id, waiting);
      }),
      // A child that finished while its root lost the lease fails too: its parent must not record it.
      Effect.zipRight(Effect.suspend(() => (lease?.lost === undefined ? Effect.void : Effect.fail(lease.lost)))),
    );
  }

  /** On a typed failure or interruption: flush what was saved, mark the workflow failed, give the lease back. */
  abandon(): Effect.Effect<void> {
    const store = this.#store;
    const { config } = this.#host;
    const lease = config.lease;
    if (store === undefined || config.isChild || lease === undefined) return Effect.void;
    // A caller that never claimed (it lost the race, or failed before claiming: another graph version, missing
    // inputs) writes nothing at all: the workflow belongs to whoever holds it, or stays as it was.
    const fence = this.#fence;
    if (fence === undefined) return Effect.void;
    // A run that lost its lease writes nothing more: the new holder owns the workflow.
    if (lease.lost !== undefined) return Effect.ignore(lease.release);
    const id = config.workflowId;
    return this.#guard(store.flush(id)).pipe(
      Effect.zipRight(this.#guard(store.updateWorkflow(id, { status: "failed" }, fence))),
      Effect.ignore,
      Effect.zipRight(Effect.ignore(lease.release)),
    );
  }

  /** A write under the root's lease (as is without a lease: no store, or before the claim). */
  #guard<A>(write: Effect.Effect<A, RunError>): Effect.Effect<A, RunError> {
    const lease = this.#host.config.lease;
    return lease === undefined ? write : lease.guard(write);
  }

  /** Writes caller values that differ from state as one input step; returns it (or undefined when nothing changed). */
  #mergeInputs(): StepRecord | undefined {
    const { config, graph, state } = this.#host;
    const changed: Record<string, unknown> = {};
    const answers = responseKeys(graph);
    const parent = config.parentVersions;
    const recorded = this.#parentVersionsSeen;
    let any = false;
    // A new call of a nested run with its own loop state records its start, so a restore resets that state there.
    const reset = config.isChild && this.#newTurn ? graph.privateState : [];
    let newVersions = reset.length > 0;
    for (const k in config.values) {
      const v = config.values[k];
      // A child takes only what its parent changed since it last started: its own state wins over old news
      // (a seed its loop rewrote since stays as it is). Without a stored history everything is new. Its own loop
      // state, mapped in by the parent, was reset for this call: the parent's value seeds it again.
      if (parent !== undefined && recorded !== undefined && !reset.includes(k)) {
        if (recorded[k] === parent[k]) continue;
        newVersions = true;
      }
      const slot = state.values.get(k);
      // An answer to an interrupt is always new, even when equal to the last one (every visit needs its own).
      if (slot !== undefined && !answers.has(k) && deepEqual(slot.value, v)) continue;
      changed[k] = v;
      any = true;
    }
    if (parent !== undefined && recorded === undefined) newVersions = true;
    const budget = config.isChild ? undefined : budgetInForce(this.#host, this.#storedBudget);
    if (!any && !newVersions && budget === undefined) return undefined;
    const index = state.nextIndex++;
    state.superstep++; // the input step gets its own superstep so it never replaces an earlier one
    for (const k in changed) state.write(k, changed[k], index, INPUT_STEP);
    if (this.#store === undefined) return undefined;
    const now = new Date();
    return {
      workflowId: config.workflowId,
      superstep: state.superstep,
      nodeName: INPUT_STEP,
      index,
      status: "completed",
      // For a child run: the parent's versions of what it passed in (compared at the next start).
      inputVersions: parent ?? {},
      values: changed,
      kind: "input",
      // Marks the start of a turn: on restore, only gate decisions and runs after it belong to the current turn.
      ...(this.#newTurn ? { turnStart: true } : {}),
      ...(budget === undefined ? {} : { budget }),
      truncated: false,
      startedAt: now,
      completedAt: now,
    };
  }
}
