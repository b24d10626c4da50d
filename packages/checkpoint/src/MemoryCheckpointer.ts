/**
 * The in-memory checkpointer: the reference implementation of the contract, for tests and for runs that only
 * need durability within one process (pause/resume, multi-turn memory).
 *
 * It stores serialised copies, so mutating a value after saving it never changes what was stored, and values
 * that cannot be serialised are rejected before anything is written. Its rules are those of
 * `@graph/checkpoint/adapter`, shared with every other backend.
 *
 * @module
 */

// The shared rules through the public module, as any other backend would use them.
import {
  assembleCheckpoint,
  compareWorkflowPosition,
  decodeStopRequest,
  decodeWorkflowCursor,
  encodeStopRequest,
  encodeWorkflowCursor,
  encodeWorkflowUpdate,
  foldSteps,
  isReleasable,
  isStorableText,
  leaseHeldError,
  leaseLostError,
  pauseSettledError,
  requireStorableText,
  resolveDueOptions,
  resolveListLimit,
  resolveSweepLimit,
  resolveWaitingOptions,
  selectSteps,
  stopAction,
  superstepBound,
  unknownWorkflowError,
  validateClaimOptions,
  validateFence,
  validateFinish,
  validateListFilters,
  validateNewWorkflow,
  validateRenewal,
  validateStartSteps,
  validateStatusFilter,
  validateStepGroup,
} from "./adapter.js";
import type {
  Checkpoint,
  Checkpointer,
  ClaimOptions,
  DueWorkflow,
  EventWait,
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
} from "./Checkpointer.js";
import type { CheckpointPolicy } from "./CheckpointPolicy.js";
import { resolvePolicy } from "./CheckpointPolicy.js";
import { CheckpointError } from "./errors.js";
import {
  type CacheEntryWrite,
  checkCacheRead,
  checkCacheWrite,
  evictCacheEntries,
  type HeldCacheEntry,
} from "./internal/cacheEntries.js";
import { DueWatchers } from "./internal/dueWatchers.js";
import type { StoredStep, StoredWorkflow } from "./internal/memoryRecords.js";
import {
  applyUpdate,
  checkFence,
  clearTimesIfTerminal,
  encodeStep,
  readSteps,
  toLease,
  toRecord,
  writeSteps,
} from "./internal/memoryRecords.js";
import { listDueOf, listWaitingOf, nextDueOf } from "./internal/memoryTimes.js";
import { checkOptionsObject, checkSerializer } from "./internal/options.js";
import { checkGraphStructure } from "./internal/structures.js";
import type { Serializer } from "./Serializer.js";
import { defaultSerializer } from "./Serializer.js";

/**
 * Options of {@link MemoryCheckpointer}.
 *
 * @example
 * ```ts
 * const options: MemoryCheckpointerOptions = { policy: { retention: "latest" } };
 * ```
 */
export interface MemoryCheckpointerOptions {
  /** Partial policy; defaults filled by `resolvePolicy` (async + full). */
  readonly policy?: Partial<CheckpointPolicy>;
  /** How values are copied into storage. Default: {@link defaultSerializer}. */
  readonly serializer?: Serializer;
}

/** One workflow's encoded steps and the fence they are written under. */
interface EncodedGroup {
  readonly workflowId: string;
  readonly fence: Fence | undefined;
  readonly steps: readonly StoredStep[];
}

/**
 * A {@link Checkpointer} that keeps everything in process memory.
 *
 * @example
 * ```ts
 * import { MemoryCheckpointer } from "@graph/checkpoint";
 * const checkpointer = new MemoryCheckpointer({ policy: { retention: "latest" } });
 * await checkpointer.createWorkflow({ id: "chat-1", graphName: "chat", graphHash: "abc" });
 * ```
 */
export class MemoryCheckpointer implements Checkpointer {
  readonly policy: CheckpointPolicy;
  /** The serializer values are stored with (the runtime snapshots async/exit steps with it). */
  readonly serializer: Serializer;
  readonly #workflows = new Map<string, StoredWorkflow>();
  readonly #find = (id: string): StoredWorkflow | undefined => this.#workflows.get(id);
  readonly #structures = new Map<string, string>();
  readonly #cache = new Map<string, HeldCacheEntry>();
  #closed = false;
  /** Runners on this instance told of due times any of them stores (see `watchDue`). */
  readonly #dueWatchers = new DueWatchers();

  constructor(options: MemoryCheckpointerOptions = {}) {
    checkOptionsObject(options, "MemoryCheckpointer", "{ policy?, serializer? }");
    this.policy = resolvePolicy(options.policy);
    this.serializer = checkSerializer(options.serializer, "MemoryCheckpointer");
  }

  async setup(): Promise<void> {
    this.#open("setup");
    this.pruneExpired();
  }

  async createWorkflow(
    workflow: NewWorkflow,
    fence?: Fence,
  ): Promise<{ readonly workflow: WorkflowRecord; readonly created: boolean }> {
    this.#open("createWorkflow");
    validateNewWorkflow(workflow, "createWorkflow");
    const guardId = validateFence(workflow.id, fence, "createWorkflow");
    const existing = this.#workflows.get(workflow.id);
    if (guardId !== undefined) {
      // Checked before anything is created: a zombie of a taken-over root leaves no child record behind.
      const guard = guardId === workflow.id ? existing : this.#workflows.get(guardId);
      if (guard === undefined) throw unknownWorkflowError(guardId, "createWorkflow");
      checkFence(guard, { epoch: fence!.epoch }, "createWorkflow", this.#find, workflow.id);
    }
    if (existing !== undefined)
      return { workflow: toRecord(existing, this.serializer, "createWorkflow"), created: false };
    const created = this.#insert(workflow);
    this.#told(created);
    return { workflow: toRecord(created, this.serializer, "createWorkflow"), created: true };
  }

  /**
   * `createWorkflow` + `claimWorkflow` + the steps, saved under the new lease. Everything is checked first (claim,
   * steps and their values), so a refused start leaves nothing behind but what the contract allows (a workflow
   * created whose claim was refused cannot happen here: a new workflow has no holder).
   */
  async startWorkflow(
    workflow: NewWorkflow,
    claim: LeaseClaim,
    steps?: readonly StepRecord[],
  ): Promise<StartedWorkflow> {
    this.#open("startWorkflow");
    validateNewWorkflow(workflow, "startWorkflow");
    const id = workflow.id;
    validateClaimOptions(id, claim);
    const encoded = validateStartSteps(id, steps).map((step) => encodeStep(step, this.serializer, "startWorkflow"));
    const existing = this.#workflows.get(id);
    const before = existing === undefined ? undefined : toRecord(existing, this.serializer, "startWorkflow");
    const stored = existing ?? this.#insert(workflow);
    const lease = this.#claim(stored, claim);
    if (encoded.length > 0) writeSteps(stored, encoded, this.policy);
    if (existing === undefined) this.#told(stored);
    // As created (with its lease, before the steps), or as it was before the claim.
    return {
      workflow: before ?? toRecord(stored, this.serializer, "startWorkflow"),
      created: before === undefined,
      lease,
    };
  }

  async claimWorkflow(id: string, options: ClaimOptions): Promise<Lease> {
    this.#open("claimWorkflow");
    requireStorableText(id, "claimWorkflow");
    validateClaimOptions(id, options);
    const workflow = this.#require(id, "claimWorkflow");
    // The pause is compared before the lease: a settled pause is settled whoever holds the workflow now.
    const at = options.ifPausedAt;
    if (at !== undefined && (workflow.status !== "paused" || workflow.lastSuperstep !== at))
      throw pauseSettledError(id, at, workflow);
    return this.#claim(workflow, options);
  }

  async releaseWorkflow(id: string, lease: Pick<Lease, "owner" | "epoch">): Promise<void> {
    this.#open("releaseWorkflow");
    if (!isReleasable(id, lease)) return;
    const workflow = this.#workflows.get(id);
    if (workflow !== undefined) this.#release(workflow, lease);
  }

  async renewWorkflow(
    id: string,
    lease: Pick<Lease, "owner" | "epoch">,
    options: { readonly ttlMs: number },
  ): Promise<RenewedLease> {
    this.#open("renewWorkflow");
    requireStorableText(id, "renewWorkflow");
    validateRenewal(id, lease, options);
    const workflow = this.#require(id, "renewWorkflow");
    const current = workflow.lease;
    if (current === undefined || current.owner !== lease.owner || current.epoch !== lease.epoch) {
      throw leaseLostError(id, lease, {
        epoch: workflow.epoch,
        ...(current === undefined ? {} : { owner: current.owner, expiresAt: new Date(current.expiresAt) }),
      });
    }
    workflow.lease = { ...current, expiresAt: Date.now() + Math.ceil(options.ttlMs) };
    const stop = this.#stopRequest(workflow, "renewWorkflow");
    return { ...toLease(id, workflow.lease), ...(stop === undefined ? {} : { stopRequested: stop }) };
  }

  async requestStop(id: string, options: { readonly info?: unknown } = {}): Promise<WorkflowRecord | undefined> {
    this.#open("requestStop");
    const workflow = this.#workflows.get(id);
    if (workflow === undefined) return undefined;
    const now = Date.now();
    const action = stopAction(workflow.status, workflow.lease !== undefined && workflow.lease.expiresAt > now);
    if (action === "none") return toRecord(workflow, this.serializer, "requestStop");
    workflow.stopText ??= encodeStopRequest(this.serializer, id, options?.info, now, "requestStop");
    if (action === "stop") {
      workflow.status = "stopped";
      workflow.lease = undefined;
      workflow.epoch += 1;
      clearTimesIfTerminal(workflow);
    }
    workflow.updatedAt = now;
    return toRecord(workflow, this.serializer, "requestStop");
  }

  async getStopRequest(id: string): Promise<StopRequest | undefined> {
    this.#open("getStopRequest");
    const workflow = this.#workflows.get(id);
    return workflow === undefined ? undefined : this.#stopRequest(workflow, "getStopRequest");
  }

  async saveStep(step: StepRecord, fence?: Fence): Promise<void> {
    this.#open("saveStep");
    const group = this.#encodeGroup([step], fence, "saveStep");
    const workflow = this.#require(group.workflowId, "saveStep");
    checkFence(workflow, fence, "saveStep", this.#find);
    writeSteps(workflow, group.steps, this.policy);
  }

  async updateWorkflow(id: string, update: WorkflowUpdate, fence?: Fence): Promise<WorkflowRecord> {
    this.#open("updateWorkflow");
    requireStorableText(id, "updateWorkflow");
    validateFence(id, fence, "updateWorkflow");
    const changes = encodeWorkflowUpdate(id, update, this.serializer, "updateWorkflow");
    const workflow = this.#require(id, "updateWorkflow");
    checkFence(workflow, fence, "updateWorkflow", this.#find);
    applyUpdate(workflow, changes);
    if (update.wakeAt instanceof Date) this.#told(workflow);
    return toRecord(workflow, this.serializer, "updateWorkflow");
  }

  /** The groups' steps, the fenced update and the release, all or none: every check runs before the first change. */
  async finishWorkflow(finish: WorkflowFinish): Promise<WorkflowRecord> {
    const operation = "finishWorkflow";
    this.#open(operation);
    const { workflowId: id, groups } = validateFinish(finish);
    const changes = encodeWorkflowUpdate(id, finish.update, this.serializer, operation);
    const encoded = groups.map((group) => this.#encodeGroup(group.steps, group.fence, operation));
    const targets = encoded.map((group) => {
      const workflow = this.#require(group.workflowId, operation);
      checkFence(workflow, group.fence, operation, this.#find);
      return workflow;
    });
    const workflow = this.#require(id, operation);
    checkFence(workflow, finish.fence, operation, this.#find);
    for (const [i, group] of encoded.entries()) writeSteps(targets[i]!, group.steps, this.policy);
    applyUpdate(workflow, changes);
    if (finish.update.wakeAt instanceof Date) this.#told(workflow);
    if (finish.release !== undefined) this.#release(workflow, finish.release);
    return toRecord(workflow, this.serializer, operation);
  }

  async getWorkflow(id: string): Promise<WorkflowRecord | undefined> {
    this.#open("getWorkflow");
    const workflow = this.#workflows.get(id);
    return workflow === undefined ? undefined : toRecord(workflow, this.serializer, "getWorkflow");
  }

  async getSteps(id: string, options: StepReadOptions = {}): Promise<readonly StepRecord[]> {
    this.#open("getSteps");
    const read = this.#read(id, options?.throughSuperstep, "getSteps");
    return read === undefined ? [] : selectSteps(read.steps, options);
  }

  async getState(
    id: string,
    options: { readonly throughSuperstep?: number } = {},
  ): Promise<Readonly<Record<string, unknown>>> {
    this.#open("getState");
    const read = this.#read(id, options?.throughSuperstep, "getState");
    return read === undefined ? {} : foldSteps(read.steps).values;
  }

  async getCheckpoint(id: string, options: { readonly superstep?: number } = {}): Promise<Checkpoint | undefined> {
    this.#open("getCheckpoint");
    const read = this.#read(id, options?.superstep, "getCheckpoint");
    return read === undefined ? undefined : assembleCheckpoint(id, read.lastSuperstep, read.steps, read.bound);
  }

  async listWorkflows(options: ListWorkflowsOptions = {}): Promise<WorkflowPage> {
    this.#open("listWorkflows");
    const opts = options ?? {};
    const limit = resolveListLimit(opts.limit);
    const after = opts.cursor === undefined ? undefined : decodeWorkflowCursor(opts.cursor);
    validateStatusFilter(opts.status);
    validateListFilters(opts);
    const matching = [...this.#workflows.values()]
      .filter(
        (workflow) =>
          (opts.status === undefined || workflow.status === opts.status) &&
          (opts.graph === undefined || workflow.graphName === opts.graph) &&
          (opts.idPrefix === undefined || workflow.id.startsWith(opts.idPrefix)) &&
          (opts.rootsOnly !== true || workflow.parentId === undefined),
      )
      .map((workflow) => ({ workflow, position: { createdAt: new Date(workflow.createdAt), id: workflow.id } }))
      .filter((entry) => after === undefined || compareWorkflowPosition(entry.position, after) > 0)
      .sort((a, b) => compareWorkflowPosition(a.position, b.position));
    const page = matching.slice(0, limit);
    const last = page[page.length - 1];
    return {
      workflows: page.map((entry) => toRecord(entry.workflow, this.serializer, "listWorkflows")),
      ...(matching.length > limit && last !== undefined ? { nextCursor: encodeWorkflowCursor(last.position) } : {}),
    };
  }

  async listDue(options: { readonly before: Date; readonly limit?: number }): Promise<readonly DueWorkflow[]> {
    this.#open("listDue");
    const { before, limit } = resolveDueOptions(options);
    return listDueOf(this.#workflows.values(), before, limit);
  }

  async nextDue(): Promise<Date | undefined> {
    this.#open("nextDue");
    return nextDueOf(this.#workflows.values());
  }

  /** Tells `onDue` of every due time stored on this instance (by any runner using it) from now on. */
  async watchDue(onDue: (at: Date) => void): Promise<() => Promise<void>> {
    this.#open("watchDue");
    if (typeof onDue !== "function")
      throw new CheckpointError({
        message: "MemoryCheckpointer.watchDue(onDue): onDue must be a function (at: Date) => void.",
        operation: "watchDue",
      });
    const remove = this.#dueWatchers.add(onDue);
    return async () => remove();
  }

  /** A due time was just stored on `workflow`: tell the watchers. */
  #told(workflow: StoredWorkflow): void {
    if (workflow.wakeAt !== undefined) this.#dueWatchers.notify(workflow.wakeAt);
  }

  async listWaiting(wait: EventWait, options?: { readonly limit?: number }): Promise<readonly string[]> {
    this.#open("listWaiting");
    const checked = resolveWaitingOptions(wait, options);
    return listWaitingOf(this.#workflows.values(), checked.wait, checked.limit);
  }

  async putGraphStructure(hash: string, structure: string): Promise<void> {
    this.#open("putGraphStructure");
    checkGraphStructure(hash, structure, "MemoryCheckpointer.putGraphStructure");
    if (!this.#structures.has(hash)) this.#structures.set(hash, structure);
  }

  async getGraphStructure(hash: string): Promise<string | undefined> {
    this.#open("getGraphStructure");
    return this.#structures.get(hash);
  }

  async readCacheEntry(key: string, now: number): Promise<string | undefined> {
    this.#open("readCacheEntry");
    checkCacheRead(key, now, "MemoryCheckpointer.readCacheEntry");
    const entry = this.#cache.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt !== undefined && entry.expiresAt <= now) {
      this.#cache.delete(key);
      return undefined;
    }
    entry.usedAt = now;
    return entry.value;
  }

  async writeCacheEntry(key: string, value: string, write: CacheEntryWrite): Promise<void> {
    this.#open("writeCacheEntry");
    checkCacheWrite(key, value, write, "MemoryCheckpointer.writeCacheEntry");
    this.#cache.set(key, { value, expiresAt: write.expiresAt, usedAt: write.now });
    evictCacheEntries(this.#cache, write.now, write.maxEntries);
  }

  async deleteWorkflow(id: string): Promise<void> {
    this.#open("deleteWorkflow");
    this.#delete(id);
  }

  async close(): Promise<void> {
    this.#closed = true;
  }

  /**
   * Deletes root workflows (and their children) not updated for `policy.ttlMs`, unless they are running under a
   * live lease. Runs on `setup()` (and from the runner's housekeeping through `sweepExpired`, never in a run);
   * returns the number of root workflows deleted.
   */
  pruneExpired(now: number = Date.now(), limit = Number.POSITIVE_INFINITY): number {
    const ttlMs = this.policy.ttlMs;
    if (ttlMs === undefined) return 0;
    const expired = [...this.#workflows.values()]
      .filter(
        (workflow) =>
          workflow.parentId === undefined &&
          now - workflow.updatedAt >= ttlMs &&
          !(workflow.status === "running" && workflow.lease !== undefined && workflow.lease.expiresAt > now),
      )
      .sort((a, b) => a.updatedAt - b.updatedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, limit);
    for (const workflow of expired) this.#delete(workflow.id);
    return expired.length;
  }

  /** One batch of retention housekeeping (see `Checkpointer.sweepExpired`). */
  async sweepExpired(options?: { readonly limit?: number }): Promise<number> {
    this.#open("sweepExpired");
    return this.pruneExpired(Date.now(), resolveSweepLimit(options));
  }

  /** A new workflow: `running`, or `paused` until its `wakeAt` for a delayed start. */
  #insert(workflow: NewWorkflow): StoredWorkflow {
    const now = Date.now();
    const stored: StoredWorkflow = {
      id: workflow.id,
      graphName: workflow.graphName,
      graphHash: workflow.graphHash,
      parentId: workflow.parentId,
      status: workflow.wakeAt === undefined ? "running" : "paused",
      wakeAt: workflow.wakeAt?.getTime(),
      waitingFor: undefined,
      pauseText: undefined,
      errorText: undefined,
      stopText: undefined,
      lastSuperstep: -1,
      epoch: 0,
      lease: undefined,
      createdAt: now,
      updatedAt: now,
      steps: new Map(),
    };
    this.#workflows.set(workflow.id, stored);
    return stored;
  }

  /**
   * Takes or renews the lease. The lease's owner claiming again keeps the epoch, even just after expiry: nobody
   * claimed in between (a claim would have changed the owner), so its in-flight fenced writes stay valid. Anything
   * else gets a new epoch.
   */
  #claim(workflow: StoredWorkflow, claim: LeaseClaim): Lease {
    const now = Date.now();
    const current = workflow.lease;
    if (current !== undefined && current.expiresAt > now && current.owner !== claim.owner) {
      throw leaseHeldError(workflow.id, current.owner, new Date(current.expiresAt));
    }
    if (current?.owner !== claim.owner) workflow.epoch += 1;
    workflow.lease = { owner: claim.owner, epoch: workflow.epoch, expiresAt: now + claim.ttlMs };
    return toLease(workflow.id, workflow.lease);
  }

  #release(workflow: StoredWorkflow, lease: Pick<Lease, "owner" | "epoch">): void {
    const current = workflow.lease;
    if (current?.owner === lease.owner && current.epoch === lease.epoch) workflow.lease = undefined;
  }

  /** Validates and serialises one workflow's steps: nothing is stored yet. */
  #encodeGroup(steps: readonly StepRecord[], fence: Fence | undefined, operation: string): EncodedGroup {
    const { workflowId } = validateStepGroup(steps, fence, operation);
    return { workflowId, fence, steps: steps.map((step) => encodeStep(step, this.serializer, operation)) };
  }

  /** The steps through a bound, with the last superstep; `undefined` for an unknown (or unstorable) id. */
  #read(id: string, through: number | undefined, operation: string) {
    if (!isStorableText(id)) return undefined;
    const bound = superstepBound(through, operation, id);
    const workflow = this.#workflows.get(id);
    if (workflow === undefined) return undefined;
    const steps = readSteps(workflow, bound, this.serializer, operation);
    return { lastSuperstep: workflow.lastSuperstep, bound, steps };
  }

  #delete(id: string): void {
    this.#workflows.delete(id);
    const prefix = `${id}/`;
    for (const other of [...this.#workflows.keys()]) {
      if (other.startsWith(prefix)) this.#workflows.delete(other);
    }
  }

  #open(operation: string): void {
    if (this.#closed) {
      throw new CheckpointError({
        message: `MemoryCheckpointer.${operation}() was called after close(). Create a new checkpointer instead.`,
        operation,
      });
    }
  }

  #require(id: string, operation: string): StoredWorkflow {
    const workflow = this.#workflows.get(id);
    if (workflow === undefined) throw unknownWorkflowError(id, operation);
    return workflow;
  }

  #stopRequest(workflow: StoredWorkflow, operation: string): StopRequest | undefined {
    return workflow.stopText === undefined
      ? undefined
      : decodeStopRequest(this.serializer, workflow.id, workflow.stopText, operation);
  }
}
