/**
 * The storage contract every checkpointer adapter implements.
 *
 * It is Promise-based on purpose: a third party can write an adapter without knowing Effect. The runtime wraps
 * each adapter once (see `@graph/checkpoint/effect`) so `setup()` runs once, `close()` runs once and adapter
 * errors are classified into `CheckpointError`.
 *
 * @module
 */
import type { CheckpointPolicy } from "./CheckpointPolicy.js";
import type { CheckpointError } from "./errors.js";
import type { CacheEntryWrite } from "./internal/cacheEntries.js";
import type { Serializer } from "./Serializer.js";

/**
 * Status of one step (one node execution) of a workflow. `running`: an attempt of a node with `retry` started and
 * has no result yet (the record the node's result replaces; left as it is when the process died during the attempt).
 */
export type StepStatus = "completed" | "failed" | "paused" | "stopped" | "running";

/** Status of a workflow as a whole. `running` while a run holds it (or crashed holding it). */
export type WorkflowStatus = "running" | "completed" | "paused" | "stopped" | "failed";

/**
 * The reserved `nodeName` of the step that records the values a caller supplied to a run.
 * `.` can never appear in a node name, so it never collides with a real node.
 *
 * @example
 * ```ts
 * import { INPUT_STEP } from "@graph/checkpoint";
 * const inputs = steps.filter((s) => s.nodeName === INPUT_STEP);
 * ```
 */
export const INPUT_STEP = ".input";

/**
 * The string stored for the `END` routing decision (gates may not target a node named "END", so it is unambiguous).
 *
 * @example
 * ```ts
 * import { END_DECISION } from "@graph/checkpoint";
 * const ended = step.decision === END_DECISION;
 * ```
 */
export const END_DECISION = "END";

/**
 * A serialisable description of an error recorded in a step or a workflow.
 *
 * @example
 * ```ts
 * const error: StoredError = { name: "TypeError", message: "x is undefined", tag: "NodeExecutionError" };
 * ```
 */
export interface StoredError {
  readonly name: string;
  readonly message: string;
  /** The `_tag` of a tagged error, when there was one. */
  readonly tag?: string;
  readonly stack?: string;
}

/**
 * One finished node execution — the unit of durability. Workflow state is the fold of step `values` in `index`
 * order. Saved atomically; upserted on (`workflowId`, `superstep`, `nodeName`).
 *
 * Versions: the version of a value is the `index` of the step that last wrote it (inputs are written by an
 * {@link INPUT_STEP} step). Versions are therefore stable under retention that drops older steps.
 *
 * @example
 * ```ts
 * const step: StepRecord = {
 *   workflowId: "chat-1", superstep: 3, nodeName: "embed", index: 7, status: "completed",
 *   inputVersions: { text: 1 }, values: { embedding: [0.1, 0.2] }, truncated: false,
 *   startedAt: new Date(), completedAt: new Date(),
 * };
 * ```
 */
export interface StepRecord {
  readonly workflowId: string;
  /**
   * What the record is. `"input"`: an input record — the values a caller passed to a run that differed from the
   * stored state (`nodeName` is {@link INPUT_STEP}), kept for audit and for resume. Absent (or `"node"`): one
   * executed node. {@link Checkpointer.getSteps} leaves input records out unless `includeInputs: true`.
   */
  readonly kind?: StepKind;
  /** Input records only: this run started a new turn (the workflow had completed); earlier gate decisions are over. */
  readonly turnStart?: boolean;
  /** Superstep number within the workflow; keeps increasing across runs (turns) of one workflow. */
  readonly superstep: number;
  /** The node's name, or {@link INPUT_STEP} for caller-supplied values. */
  readonly nodeName: string;
  /** Position of the step in the workflow's history (unique per workflow, increasing, assigned by the runtime). */
  readonly index: number;
  readonly status: StepStatus;
  /** Version (step index) of every input the node consumed; 0 for bound values and defaults. */
  readonly inputVersions: Readonly<Record<string, number>>;
  /** The values this step wrote — its node's outputs only, never the whole state. */
  readonly values: Readonly<Record<string, unknown>>;
  /** For gates: the decision, as target names, {@link END_DECISION}, or `null` for no decision. */
  readonly decision?: string | readonly string[] | null;
  /** For GraphNodes: the child workflow id (`parent/name`, map items `parent/name/<i>`). */
  readonly childWorkflowId?: string;
  /** For interrupts that paused: what the human is asked about. */
  readonly pause?: { readonly value: unknown; readonly responseKey: string };
  /**
   * What the step spent: the usage its node reported with `ctx.usage` (a GraphNode's step: everything its child
   * runs spent), and `wallMs`, the share of the run's wall time that ended with this step. Absent when the step
   * reported nothing and the run measured nothing.
   */
  readonly usage?: UsageRecord;
  /**
   * Input records only: the run's budget from this record on — the budget a run started with, or the raised budget
   * a caller granted when a run paused for its budget. The latest input record that has one is in force.
   */
  readonly budget?: UsageRecord;
  /** A streaming node stopped with `completeOnStop` kept a partial output. */
  readonly truncated: boolean;
  readonly error?: StoredError;
  /**
   * Nodes with `retry` only: the attempt this step records — the one under way (`status: "running"`) or the one that
   * ended the step. Read back on resume so a node continues with its attempt number and retry budget.
   */
  readonly attempt?: StepAttempt;
  readonly startedAt: Date;
  readonly completedAt: Date;
}

/**
 * The attempt of a node with `retry` a {@link StepRecord} records: its number (1 for the first call) and how many
 * times an attempt of this step was run again under the same number after a crash cut it short.
 *
 * @example
 * ```ts
 * const attempt: StepAttempt = { number: 2, repeats: 1 }; // attempt 2, run again once after a crash
 * ```
 */
export interface StepAttempt {
  readonly number: number;
  readonly repeats: number;
}

/**
 * Amounts a run spends, as stored on a {@link StepRecord} (`usage`, `budget`): each field a finite number ≥ 0,
 * absent when not measured or not limited.
 *
 * @example
 * ```ts
 * const spent: UsageRecord = { tokens: 1_250, costUsd: 0.004, calls: 1, wallMs: 830 };
 * ```
 */
export interface UsageRecord {
  readonly tokens?: number;
  readonly costUsd?: number;
  /** Model or API calls (each `ctx.usage` report counts one unless it says otherwise). */
  readonly calls?: number;
  readonly wallMs?: number;
}

/**
 * The kind of a {@link StepRecord}: one executed node, or an input record (the values a caller passed to a run).
 *
 * @example
 * ```ts
 * const kind: StepKind = step.nodeName === INPUT_STEP ? "input" : "node";
 * ```
 */
export type StepKind = "node" | "input";

/**
 * Options of {@link Checkpointer.getSteps}.
 *
 * @example
 * ```ts
 * const everything = await checkpointer.getSteps("wf-1", { includeInputs: true });
 * ```
 */
export interface StepReadOptions {
  /** Only steps up to this superstep (inclusive). */
  readonly throughSuperstep?: number;
  /** Also return input records (`kind: "input"`), in index order among the node steps. Default false. */
  readonly includeInputs?: boolean;
}

/**
 * An exclusive lease on a workflow. `epoch` is a fencing token: it increases on every successful claim, and a
 * write carrying an older epoch is rejected with `WorkflowConflictError`.
 *
 * @example
 * ```ts
 * const lease = await checkpointer.claimWorkflow("wf-1", { owner: "host-a:123", ttlMs: 30_000 });
 * await checkpointer.saveStep(step, { epoch: lease.epoch });
 * ```
 */
export interface Lease {
  readonly workflowId: string;
  readonly owner: string;
  readonly epoch: number;
  readonly expiresAt: Date;
}

/**
 * The stored description of a workflow.
 *
 * @example
 * ```ts
 * const wf: WorkflowRecord | undefined = await checkpointer.getWorkflow("chat-1");
 * if (wf?.status === "paused") console.log(wf.pause?.responseKey);
 * ```
 */
export interface WorkflowRecord {
  readonly id: string;
  readonly status: WorkflowStatus;
  readonly graphName: string;
  /** `definitionHash` of the graph that created it; a different graph → `VersionMismatchError` unless forced. */
  readonly graphHash: string;
  /** For child workflows of nested graphs. */
  readonly parentId?: string;
  readonly pause?: { readonly nodeName: string; readonly value: unknown; readonly responseKey: string };
  readonly error?: StoredError;
  /** Last superstep written, or -1 if none. */
  readonly lastSuperstep: number;
  /** Number of stored steps. */
  readonly stepCount: number;
  readonly lease?: Lease;
  /**
   * A stop asked for with {@link Checkpointer.requestStop} and not yet handled: the run holding the workflow stops
   * at its next superstep or lease renewal. Absent when nobody asked.
   */
  readonly stopRequested?: StopRequest;
  /**
   * When the workflow is due: the wake-up time of a sleep, the deadline of a timed pause, or the start time of a
   * delayed start. Absent when nothing is due. Listed by {@link Checkpointer.listDue}.
   *
   * Only a `paused` or `running` workflow has one: the store clears it (and {@link WorkflowRecord.waitingFor}) itself
   * when the workflow becomes `completed`, `failed` or `stopped` — by an update, a finish or a stop request — and
   * an update that sets it on a workflow that already ended stores nothing. Any other change is the runtime's
   * (it sends `wakeAt: null` when a workflow resumes).
   */
  readonly wakeAt?: Date;
  /**
   * The event a `waitFor` pause waits for, found by {@link Checkpointer.listWaiting} while the workflow is
   * `paused`. Absent otherwise; cleared with the due time on a terminal status (see {@link WorkflowRecord.wakeAt}).
   */
  readonly waitingFor?: EventWait;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/**
 * What a paused workflow waits for: an event name and the canonical key of the values it must match (the runtime
 * builds the key; the store only compares it for equality).
 *
 * @example
 * ```ts
 * const wait: EventWait = { event: "ticket.replied", key: '{"ticketId":"T-1"}' };
 * ```
 */
export interface EventWait {
  readonly event: string;
  readonly key: string;
}

/**
 * A workflow with a due time, as {@link Checkpointer.listDue} returns it.
 *
 * @example
 * ```ts
 * declare const checkpointer: Checkpointer;
 * const due: readonly DueWorkflow[] = await checkpointer.listDue({ before: new Date(), limit: 10 });
 * ```
 */
export interface DueWorkflow {
  readonly id: string;
  readonly wakeAt: Date;
}

/**
 * A durable stop request (see {@link Checkpointer.requestStop}). `requestedAt` is the storage's clock and identifies
 * the request: a run compares it with the request it saw when it began.
 *
 * @example
 * ```ts
 * const stop: StopRequest | undefined = await checkpointer.getStopRequest("wf-1");
 * if (stop !== undefined) console.log("stop asked at", stop.requestedAt, "because", stop.info);
 * ```
 */
export interface StopRequest {
  /** What the caller passed (stored with the checkpointer's serializer). */
  readonly info?: unknown;
  readonly requestedAt: Date;
}

/**
 * The result of {@link Checkpointer.renewWorkflow}: the extended lease, plus the workflow's pending stop request,
 * so one renewal is also the holder's cross-process stop poll.
 *
 * @example
 * ```ts
 * const renewed = await checkpointer.renewWorkflow("wf-1", lease, { ttlMs: 30_000 });
 * if (renewed.stopRequested !== undefined) abortTheRun(renewed.stopRequested.info);
 * ```
 */
export interface RenewedLease extends Lease {
  readonly stopRequested?: StopRequest;
}

/**
 * Workflow state at some superstep: the fold of its steps, with each value's version (the index of the step that
 * wrote it). Pass it as `checkpoint` with a new `workflowId` to fork.
 *
 * @example
 * ```ts
 * const cp = await checkpointer.getCheckpoint("wf-1", { superstep: 4 });
 * await runner.run(graph, { workflowId: "wf-1-fork", checkpoint: cp });
 * ```
 */
export interface Checkpoint {
  readonly workflowId: string;
  /** The last superstep included (-1 for an empty workflow). */
  readonly superstep: number;
  readonly values: Readonly<Record<string, unknown>>;
  readonly versions: Readonly<Record<string, number>>;
  readonly steps: readonly StepRecord[];
}

/**
 * Input to {@link Checkpointer.createWorkflow}.
 *
 * @example
 * ```ts
 * await checkpointer.createWorkflow({ id: "wf-1", graphName: "rag", graphHash: graph.definitionHash });
 * ```
 */
export interface NewWorkflow {
  readonly id: string;
  readonly graphName: string;
  readonly graphHash: string;
  readonly parentId?: string;
  /**
   * A delayed start: the workflow is created `paused` with this due time (see {@link WorkflowRecord.wakeAt}).
   * Ignored when the workflow already exists.
   */
  readonly wakeAt?: Date;
}

/**
 * Fields {@link Checkpointer.updateWorkflow} may change. `pause`/`error` set to `null` clear them.
 *
 * @example
 * ```ts
 * await checkpointer.updateWorkflow("wf-1", { status: "completed", pause: null }, { epoch: lease.epoch });
 * ```
 */
export interface WorkflowUpdate {
  readonly status?: WorkflowStatus;
  readonly graphHash?: string;
  readonly pause?: WorkflowRecord["pause"] | null;
  readonly error?: StoredError | null;
  /** `null` clears the stop request (a run that stopped because of it, or a resume that supersedes it). */
  readonly stopRequested?: null;
  /**
   * Sets (a valid `Date`) or clears (`null`) the due time; written in the same fenced write as the status and pause.
   * Ignored (cleared) when the status after the update is `completed`, `failed` or `stopped`.
   */
  readonly wakeAt?: Date | null;
  /**
   * Sets or clears the event a `waitFor` pause waits for; fenced and cleared like `wakeAt`. The event and the key
   * are non-empty text of at most 256 and 1024 UTF-8 bytes.
   */
  readonly waitingFor?: EventWait | null;
}

/**
 * A fencing token passed with writes. When given, the write is rejected with `WorkflowConflictError` (reason
 * `"stale-fence"`) if the current lease epoch of the guarding workflow is different (someone else claimed it
 * since), in the same transaction / script as the write, so nothing is written.
 *
 * The guarding workflow is `workflowId`, default the written workflow itself. Child workflows (a nested graph's
 * `parent/name`, a map item's `parent/name/<i>`) are never claimed: they are covered by the lease of their ROOT
 * workflow, so their writes carry `{ epoch: rootLease.epoch, workflowId: rootId }`. `workflowId` must be the
 * written workflow or one of its ancestors (a prefix of its id followed by `/`); anything else is a
 * `CheckpointError`.
 *
 * @example
 * ```ts
 * await checkpointer.saveStep(step, { epoch: lease.epoch });
 * // a nested graph's step, guarded by the root's lease:
 * await checkpointer.saveStep(childStep, { epoch: lease.epoch, workflowId: lease.workflowId });
 * ```
 */
export interface Fence {
  readonly epoch: number;
  /** The workflow whose lease epoch guards this write. Default: the written workflow. */
  readonly workflowId?: string;
}

/**
 * Options of {@link Checkpointer.listWorkflows}. Ordered by `createdAt` then `id`; `cursor` is opaque.
 *
 * @example
 * ```ts
 * const page = await checkpointer.listWorkflows({ status: "paused", limit: 20 });
 * const next = page.nextCursor ? await checkpointer.listWorkflows({ limit: 20, cursor: page.nextCursor }) : undefined;
 * ```
 */
export interface ListWorkflowsOptions {
  readonly status?: WorkflowStatus;
  readonly limit?: number;
  readonly cursor?: string;
  /** Only top-level workflows (no `parentId`). Default false. */
  readonly rootsOnly?: boolean;
  /** Only workflows of this graph (its `graphName`). Read from an index: the cost follows the page, not the store. */
  readonly graph?: string;
  /**
   * Only workflows whose id starts with this text (compared verbatim, code unit by code unit: `%` and `_` are
   * ordinary characters). Read as a key range of the ids.
   */
  readonly idPrefix?: string;
}

/**
 * Steps of one workflow and the fence they are written under, for {@link Checkpointer.saveStepBatch}.
 *
 * @example
 * ```ts
 * await checkpointer.saveStepBatch?.([{ steps: [stepA], fence: { epoch: 3 } }, { steps: [childStep] }]);
 * ```
 */
export interface StepGroup {
  readonly steps: readonly StepRecord[];
  readonly fence?: Fence;
}

/**
 * The lease a run asks for in {@link Checkpointer.startWorkflow}.
 *
 * @example
 * ```ts
 * const claim: LeaseClaim = { owner: "host-a:123", ttlMs: 30_000 };
 * ```
 */
export interface LeaseClaim {
  readonly owner: string;
  readonly ttlMs: number;
}

/**
 * Options of {@link Checkpointer.claimWorkflow}: the lease asked for and, for a claim that answers a pause, the
 * pause it answers.
 *
 * `ifPausedAt` makes the claim conditional on the pause still being pending: it is taken only while the workflow is
 * `paused` and its `lastSuperstep` is this number (the value it had when it paused there — a pause's visit), checked
 * in the same statement / script as the claim. Every resume moves it on (its claim sets `running`, its steps raise
 * `lastSuperstep`), so of several answers to one pause exactly one is claimed; the others fail with
 * `WorkflowConflictError` (reason `"pause-settled"`) and write nothing — not even the epoch moves. A workflow that
 * is no longer paused there is `"pause-settled"` even while someone holds its lease; one still paused there with a
 * live lease of another owner is `"lease-held"` as usual.
 *
 * @example
 * ```ts
 * const wf = await checkpointer.getWorkflow("wf-1");
 * const lease = await checkpointer.claimWorkflow("wf-1", { owner: "me", ttlMs: 30_000, ifPausedAt: wf!.lastSuperstep });
 * ```
 */
export interface ClaimOptions extends LeaseClaim {
  readonly ifPausedAt?: number;
}

/**
 * The result of {@link Checkpointer.startWorkflow}: the stored workflow (as created — before the start's steps —, or
 * as it was before the claim),
 * whether it was created now, and the lease taken.
 *
 * @example
 * ```ts
 * const { workflow, created, lease } = await checkpointer.startWorkflow!(newWorkflow, { owner: "me", ttlMs: 30_000 });
 * ```
 */
export interface StartedWorkflow {
  readonly workflow: WorkflowRecord;
  readonly created: boolean;
  readonly lease: Lease;
}

/**
 * The end of a run for {@link Checkpointer.finishWorkflow}: steps still to be saved, the workflow's final update
 * (fenced) and the lease to give back, written together.
 *
 * @example
 * ```ts
 * await checkpointer.finishWorkflow?.({
 *   workflowId: "wf-1",
 *   steps: [{ steps: [lastStep], fence: { epoch: lease.epoch } }],
 *   update: { status: "completed", pause: null, error: null },
 *   fence: { epoch: lease.epoch },
 *   release: { owner: lease.owner, epoch: lease.epoch },
 * });
 * ```
 */
export interface WorkflowFinish {
  readonly workflowId: string;
  /** Steps written first, in order (groups of one workflow each, as in {@link Checkpointer.saveStepBatch}). */
  readonly steps?: readonly StepGroup[];
  readonly update: WorkflowUpdate;
  /** Guards the update (the steps carry their own fences). */
  readonly fence?: Fence;
  /** Gives this lease up after the update (ignored for a stale epoch, like {@link Checkpointer.releaseWorkflow}). */
  readonly release?: Pick<Lease, "owner" | "epoch">;
}

/**
 * One page of {@link Checkpointer.listWorkflows}.
 *
 * @example
 * ```ts
 * const { workflows, nextCursor } = await checkpointer.listWorkflows({ limit: 10 });
 * ```
 */
export interface WorkflowPage {
  readonly workflows: readonly WorkflowRecord[];
  readonly nextCursor?: string;
  /**
   * Stored workflows of this page that could not be read (a corrupt row), left out of `workflows` — one per row,
   * with the `CheckpointError` saying what is wrong. Absent when every row was readable. Paging continues past them.
   */
  readonly skipped?: readonly SkippedWorkflow[];
}

/**
 * A workflow `listWorkflows` could not read: its id and why.
 *
 * @example
 * ```ts
 * const page = await checkpointer.listWorkflows();
 * for (const { id, error } of page.skipped ?? []) console.warn(`workflow ${id} is unreadable: ${error.message}`);
 * ```
 */
export interface SkippedWorkflow {
  readonly id: string;
  readonly error: CheckpointError;
}

/**
 * The adapter contract. Implementations: `MemoryCheckpointer`, `SqliteCheckpointer`, `PostgresCheckpointer`,
 * `RedisCheckpointer`, each built on the shared rules of `@graph/checkpoint/adapter`.
 * Every implementation must pass `@graph/checkpoint-conformance`.
 *
 * Rules every adapter keeps:
 * - `saveStep` is atomic: after a crash a step is either fully there or absent.
 * - A value that cannot be serialised → `CheckpointError` naming workflow, node and value path; nothing written.
 * - `claimWorkflow` is exclusive across processes: while an unexpired lease is held by another owner it throws
 *   `WorkflowConflictError`; claiming by the same owner renews; an expired lease can be taken (epoch + 1).
 *   With `ifPausedAt` it is also a compare-and-set on the pause: a workflow no longer paused at that visit is
 *   refused (reason `"pause-settled"`) in the same statement / script, nothing written.
 * - A fenced write (`createWorkflow`, `saveStep`, `saveSteps`, `saveStepBatch`, `updateWorkflow`, `finishWorkflow`)
 *   checks the guarding workflow's epoch
 *   (the written one, or for a child workflow its root: {@link Fence.workflowId}) in the same transaction / script
 *   as the write: a stale epoch writes nothing.
 * - `renewWorkflow` never takes a lease back: once released or claimed by another owner it fails with reason
 *   `"lease-lost"`.
 * - Unknown workflow ids: getters return `undefined` / empty; writers throw `CheckpointError`.
 * - `wakeAt` and `waitingFor` are written with the status, in the same fenced write; a `completed`, `failed` or
 *   `stopped` workflow has neither; `listDue`, `nextDue` and `listWaiting` read an index, `deleteWorkflow` cleans it.
 *
 * @example
 * ```ts
 * const cp: Checkpointer = new MemoryCheckpointer();
 * await cp.setup();
 * await cp.createWorkflow({ id: "wf-1", graphName: "g", graphHash: "abc" });
 * const lease = await cp.claimWorkflow("wf-1", { owner: "me", ttlMs: 30_000 });
 * ```
 */
export interface Checkpointer {
  /**
   * The adapter's policy, when it has one. Adapters apply `retention` and `ttlMs`; the runtime's guard
   * (`@graph/checkpoint/effect`) applies `durability`.
   */
  readonly policy?: CheckpointPolicy;
  /**
   * Optional: the serializer the adapter stores values with. With `async` and `exit` durability the runtime's
   * store uses it to snapshot a step's values when the step ends, so a later mutation cannot change what is
   * stored and an unsaveable value fails at the step that produced it.
   */
  readonly serializer?: Serializer;
  /** Create tables / run migrations. Idempotent; safe when two processes call it at once. */
  setup(): Promise<void>;
  /**
   * Create the workflow if it does not exist. Returns the stored record and whether it was created now.
   *
   * With a `fence` (how the runtime creates child workflows: `{ epoch: rootLease.epoch, workflowId: rootId }`) the
   * guarding workflow's lease epoch is checked in the same transaction / script as the insert: a stale epoch (the
   * root was claimed by another run since) creates nothing and fails with `WorkflowConflictError` (reason
   * `"stale-fence"`), so a frozen former holder cannot leave child records behind after a takeover. The guard
   * must exist (unknown guard → `CheckpointError`); a fence naming the workflow itself is checked against its
   * record when it exists (and a missing one is an unknown guard).
   */
  createWorkflow(
    workflow: NewWorkflow,
    fence?: Fence,
  ): Promise<{ readonly workflow: WorkflowRecord; readonly created: boolean }>;
  /**
   * Take (or renew, for the same owner) the exclusive lease; with `ifPausedAt`, only while the workflow is still
   * paused where the caller saw it (see {@link ClaimOptions}).
   */
  claimWorkflow(id: string, options: ClaimOptions): Promise<Lease>;
  /** Give the lease up. A release by a stale epoch is ignored. */
  releaseWorkflow(id: string, lease: Pick<Lease, "owner" | "epoch">): Promise<void>;
  /**
   * Extends the holder's lease to now + `ttlMs`, only while the stored lease still has this `owner` and `epoch`
   * (an expired lease nobody took since is fine). After a release, another claim or a `requestStop` that ended the
   * workflow it fails with `WorkflowConflictError` whose `reason` is `"lease-lost"`: unlike `claimWorkflow`, it
   * never takes a lease back. The result carries the workflow's pending stop request, so a renewal is also the
   * cross-process stop poll. Unknown ids → `CheckpointError`.
   */
  renewWorkflow(
    id: string,
    lease: Pick<Lease, "owner" | "epoch">,
    options: { readonly ttlMs: number },
  ): Promise<RenewedLease>;
  /**
   * Asks the workflow to stop, from any process. Atomically:
   * - a live lease (someone runs it): records `stopRequested` (the first request is kept); the holder sees it at
   *   its next superstep or renewal and stops;
   * - no live lease and status `running` or `paused` (not started yet, paused, or its holder died): status becomes
   *   `stopped`, `stopRequested` is recorded, the lease is dropped and the epoch increases (a frozen former holder
   *   can write nothing afterwards); nothing runs;
   * - `completed`, `failed` or `stopped` without a live lease: nothing changes.
   * Returns the workflow record after the change; `undefined` for unknown ids.
   */
  requestStop(id: string, options?: { readonly info?: unknown }): Promise<WorkflowRecord | undefined>;
  /** The pending stop request, or `undefined` (none, or unknown id). One small read: meant for every superstep. */
  getStopRequest(id: string): Promise<StopRequest | undefined>;
  /** Atomically upsert one step (on workflowId + superstep + nodeName) and apply the retention policy. */
  saveStep(step: StepRecord, fence?: Fence): Promise<void>;
  /**
   * Optional: saves several steps of ONE workflow atomically (all or none), in order, with one fence. The store's
   * `async` and `exit` durability use it to write a run's queued steps in one transaction; adapters without it
   * get one `saveStep` per step.
   */
  saveSteps?(steps: readonly StepRecord[], fence?: Fence): Promise<void>;
  /**
   * Optional: saves steps of several workflows in one transaction (all or none), each group of one workflow with
   * its own fence. The `async` durability writer uses it to commit everything queued at once (a map's child
   * workflows included) in one transaction instead of one per workflow.
   */
  saveStepBatch?(groups: readonly StepGroup[]): Promise<void>;
  /**
   * Optional: `createWorkflow` then `claimWorkflow`, in one transaction / script (a new workflow is inserted with its
   * lease already taken, at epoch 1). Fails like `claimWorkflow` when another owner holds the lease; the workflow
   * stays created then. The runtime uses it to start a run with one write instead of two; without it the two calls
   * are made one after the other.
   *
   * `steps` (steps of `workflow.id`: the run's input record, a fork's copied history) are saved in the same
   * transaction, fenced by the lease just taken: a run's inputs are durable before its first node starts, whatever
   * the durability mode, and a crash right after the start never leaves a workflow without them. When the claim
   * fails nothing of them is written. Without the method the runtime calls `createWorkflow`, `claimWorkflow` and
   * `saveSteps` one after the other; the conformance kit requires it (every backend of this repository has it).
   */
  startWorkflow?(workflow: NewWorkflow, claim: LeaseClaim, steps?: readonly StepRecord[]): Promise<StartedWorkflow>;
  /**
   * Optional: `saveStepBatch(finish.steps)`, `updateWorkflow(id, update, fence)` and `releaseWorkflow(id, release)`
   * in one transaction (all or none: a stale fence anywhere writes nothing). Returns the updated record. The runtime
   * ends a run with it (its last queued steps, final status and lease release in one write); without it the calls
   * are made one after the other. The conformance kit requires it.
   */
  finishWorkflow?(finish: WorkflowFinish): Promise<WorkflowRecord>;
  updateWorkflow(id: string, update: WorkflowUpdate, fence?: Fence): Promise<WorkflowRecord>;
  getWorkflow(id: string): Promise<WorkflowRecord | undefined>;
  /** Node steps in `index` order: one record per executed node (input records only with `includeInputs: true`). */
  getSteps(id: string, options?: StepReadOptions): Promise<readonly StepRecord[]>;
  /** The fold of step values (only `completed` steps and steps that wrote values) in index order. */
  getState(id: string, options?: { readonly throughSuperstep?: number }): Promise<Readonly<Record<string, unknown>>>;
  /** State + versions + steps through a superstep (default: the latest). `undefined` for unknown ids. */
  getCheckpoint(id: string, options?: { readonly superstep?: number }): Promise<Checkpoint | undefined>;
  listWorkflows(options?: ListWorkflowsOptions): Promise<WorkflowPage>;
  /**
   * Workflows whose `wakeAt` is at or before `before` and whose status is `paused` or `running` (a running one may
   * belong to a process that died), earliest first (ties by id), at most `limit` (default 100). Read from an index.
   * (An adapter written for an earlier contract lacks it: the runtime's guard then fails the call with a
   * `CheckpointError` naming the method.)
   */
  listDue(options: { readonly before: Date; readonly limit?: number }): Promise<readonly DueWorkflow[]>;
  /** The earliest `wakeAt` of any paused or running workflow, or `undefined`: what an in-process timer arms for. */
  nextDue(): Promise<Date | undefined>;
  /**
   * Optional: tells `onDue` about due times as they are stored — by any process on this storage, this one included —
   * so a runner that is idle (or armed for a later time) wakes a workflow another process paused without waiting
   * for its next re-read of {@link Checkpointer.nextDue}. Called with the stored `wakeAt` after the write that
   * stored it committed; it may come more than once, late, or (when the store's connection was lost) not at all:
   * it is a hint, the store stays the truth. Resolves once listening, with the function that stops listening.
   * PostgreSQL uses `LISTEN/NOTIFY`, Redis pub/sub, the memory store its own listeners; without it a runner only
   * re-reads `nextDue` (every `duePollIntervalMs`).
   */
  watchDue?(onDue: (at: Date) => void): Promise<() => Promise<void>>;
  /**
   * Ids of the paused workflows waiting for `wait` (same event, same key, compared verbatim), oldest first (by
   * `createdAt`, ties by id), at most `limit` (100).
   */
  listWaiting(wait: EventWait, options?: { readonly limit?: number }): Promise<readonly string[]>;
  /**
   * Optional: stores the structure of a graph (a JSON text: nodes, inputs, outputs, gate targets, hashes) under its
   * definition hash, once — a later call with the same hash keeps the first text. Content-addressed, so it needs no
   * change to the workflow record; `@graph/upgrade` writes it when a workflow is created and reads it back to tell
   * whether a stored workflow can continue on a new graph. Every adapter in this repository implements it.
   */
  putGraphStructure?(hash: string, structure: string): Promise<void>;
  /** Optional: the text {@link Checkpointer.putGraphStructure} stored under `hash`, or `undefined`. */
  getGraphStructure?(hash: string): Promise<string | undefined>;
  /**
   * Optional: the node-result cache's entry under `key` (a sha256 hex digest), as the text `writeCacheEntry` stored,
   * or `undefined` when there is none or it expired at or before `now` (an expired entry is removed). A hit
   * records `now` as the entry's last use (what eviction orders by). Shared by every process on the store; the
   * runtime's `checkpointerCache` builds a `NodeCache` on it. Every adapter in this repository implements it.
   */
  readCacheEntry?(key: string, now: number): Promise<string | undefined>;
  /**
   * Optional: stores (or replaces) a node-cache entry, then removes expired entries and, with `maxEntries`, the least
   * recently used ones beyond it (see {@link CacheEntryWrite}). Concurrent writers of one key: the last write wins.
   */
  writeCacheEntry?(key: string, value: string, write: CacheEntryWrite): Promise<void>;
  /** Delete the workflow, its steps and its child workflows (ids starting with `id + "/"`). */
  deleteWorkflow(id: string): Promise<void>;
  /**
   * Optional: one batch of retention housekeeping — deletes up to `limit` (default 200) root workflows not updated
   * for the policy's `ttlMs` (with their children), never one running under a live lease, oldest update first, in
   * short writes; returns how many root workflows it deleted (`0` without a `ttlMs`). A caller repeats it until it
   * returns less than `limit`. Runs never call it: the runner's housekeeping timer does, under a store-wide lease
   * so one process sweeps at a time. Every adapter in this repository implements it.
   */
  sweepExpired?(options?: { readonly limit?: number }): Promise<number>;
  /** Release resources. Idempotent. Flushes anything pending. */
  close(): Promise<void>;
}
