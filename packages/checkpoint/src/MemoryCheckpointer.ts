/**
 * The in-memory checkpointer: the reference implementation of the contract, for tests and for runs that only
 * need durability within one process (pause/resume, multi-turn memory).
 *
 * It stores serialised copies, so mutating a value after saving it never changes what was stored, and values
 * that cannot be serialised are rejected before anything is written.
 *
 * @module
 */
import type {
  Checkpoint,
  Checkpointer,
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
  StoredError,
  WorkflowPage,
  WorkflowRecord,
  WorkflowStatus,
  WorkflowUpdate,
} from "./Checkpointer.js";
import type { CheckpointPolicy } from "./CheckpointPolicy.js";
import { resolvePolicy } from "./CheckpointPolicy.js";
import { CheckpointError } from "./errors.js";
import {
  leaseHeldError,
  leaseLostError,
  staleFenceError,
  stopAction,
  unknownWorkflowError,
  validateClaimOptions,
  validateFence,
  validateRenewal,
} from "./internal/leases.js";
import { checkOptionsObject, checkSerializer } from "./internal/options.js";
import { readRecord, selectRecords, storedDecision } from "./internal/records.js";
import { decodeStopRequest, encodeStopRequest } from "./internal/stopRequests.js";
import type { Serializer } from "./Serializer.js";
import { defaultSerializer, deserializeStored, serializeStored } from "./Serializer.js";
import {
  compactSteps,
  compareWorkflowPosition,
  decodeWorkflowCursor,
  encodeWorkflowCursor,
  foldSteps,
  resolveListLimit,
  stepKey,
  validateStepRecord,
  validateWorkflowId,
} from "./state.js";

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

interface StoredStep {
  readonly superstep: number;
  readonly nodeName: string;
  readonly index: number;
  /** The keys the step wrote (values themselves live in `text`); what compaction looks at. */
  readonly values: Readonly<Record<string, null>>;
  readonly text: string;
}

interface StoredLease {
  readonly owner: string;
  readonly epoch: number;
  readonly expiresAt: number;
}

interface StoredWorkflow {
  readonly id: string;
  readonly graphName: string;
  graphHash: string;
  readonly parentId: string | undefined;
  status: WorkflowStatus;
  pauseText: string | undefined;
  errorText: string | undefined;
  stopText: string | undefined;
  lastSuperstep: number;
  /** Epoch of the latest successful claim (0 = never claimed); survives release so old fences stay stale. */
  epoch: number;
  lease: StoredLease | undefined;
  readonly createdAt: number;
  updatedAt: number;
  readonly steps: Map<string, StoredStep>;
}

const WORKFLOW_STATUSES: readonly WorkflowStatus[] = ["running", "completed", "paused", "stopped", "failed"];

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
  readonly #serializer: Serializer;
  readonly #workflows = new Map<string, StoredWorkflow>();
  #closed = false;

  constructor(options: MemoryCheckpointerOptions = {}) {
    checkOptionsObject(options, "MemoryCheckpointer", "{ policy?, serializer? }");
    this.policy = resolvePolicy(options.policy);
    this.#serializer = checkSerializer(options.serializer, "MemoryCheckpointer");
    this.serializer = this.#serializer;
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
    if (typeof workflow !== "object" || workflow === null) {
      throw new CheckpointError({
        message: "createWorkflow expects { id, graphName, graphHash }.",
        operation: "createWorkflow",
      });
    }
    validateWorkflowId(workflow.id, "createWorkflow");
    for (const field of ["graphName", "graphHash"] as const) {
      if (typeof workflow[field] !== "string") {
        throw new CheckpointError({
          message: `createWorkflow('${workflow.id}'): ${field} must be a string.`,
          workflowId: workflow.id,
          operation: "createWorkflow",
          path: field,
        });
      }
    }
    if (workflow.parentId !== undefined) validateWorkflowId(workflow.parentId, "createWorkflow");
    const guardId = validateFence(workflow.id, fence, "createWorkflow");
    this.pruneExpired();
    const existing = this.#workflows.get(workflow.id);
    if (guardId !== undefined) {
      // Checked before anything is created: a zombie of a taken-over root leaves no child record behind.
      const guard = guardId === workflow.id ? existing : this.#workflows.get(guardId);
      if (guard === undefined) throw unknownWorkflowError(guardId, "createWorkflow");
      this.#checkFence(guard, { epoch: fence!.epoch }, "createWorkflow", workflow.id);
    }
    if (existing !== undefined) return { workflow: this.#toRecord(existing), created: false };
    const now = Date.now();
    const stored: StoredWorkflow = {
      id: workflow.id,
      graphName: workflow.graphName,
      graphHash: workflow.graphHash,
      parentId: workflow.parentId,
      status: "running",
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
    return { workflow: this.#toRecord(stored), created: true };
  }

  /**
   * `createWorkflow` + `claimWorkflow` + `saveStep` of each of `steps` under the new lease. Everything is checked
   * first (claim options, steps and their values), so a failure leaves nothing behind but what the contract allows
   * (a workflow created whose claim was refused).
   */
  async startWorkflow(
    workflow: NewWorkflow,
    claim: LeaseClaim,
    steps: readonly StepRecord[] = [],
  ): Promise<StartedWorkflow> {
    this.#open("startWorkflow");
    const id = typeof workflow === "object" && workflow !== null ? workflow.id : undefined;
    validateWorkflowId(id, "startWorkflow");
    validateClaimOptions(id, claim);
    for (const step of steps) {
      validateStepRecord(step);
      if (step.workflowId !== id) {
        throw new CheckpointError({
          message: `startWorkflow('${id}'): its steps must belong to the started workflow, got one of '${step.workflowId}'.`,
          workflowId: id,
          operation: "startWorkflow",
          path: "steps",
        });
      }
      serializeStored(this.#serializer, normalizeStep(step), {
        workflowId: id,
        nodeName: step.nodeName,
        operation: "startWorkflow",
      });
    }
    const current = this.#workflows.get(id)?.lease;
    if (current !== undefined && current.expiresAt > Date.now() && current.owner !== claim.owner)
      throw leaseHeldError(id, current.owner, new Date(current.expiresAt));
    const created = await this.createWorkflow(workflow);
    const lease = await this.claimWorkflow(id, claim);
    for (const step of steps) await this.saveStep(step, { epoch: lease.epoch });
    return { ...created, lease };
  }

  async claimWorkflow(id: string, options: { readonly owner: string; readonly ttlMs: number }): Promise<Lease> {
    this.#open("claimWorkflow");
    validateWorkflowId(id, "claimWorkflow");
    validateClaimOptions(id, options);
    const workflow = this.#require(id, "claimWorkflow");
    const now = Date.now();
    const current = workflow.lease;
    if (current !== undefined && current.expiresAt > now && current.owner !== options.owner) {
      throw leaseHeldError(id, current.owner, new Date(current.expiresAt));
    }
    // The lease's owner claiming again keeps the epoch, even just after expiry: nobody claimed in between (a claim
    // would have changed the owner), so its in-flight fenced writes stay valid. Anything else gets a new epoch.
    const renew = current !== undefined && current.owner === options.owner;
    if (!renew) workflow.epoch += 1;
    workflow.lease = { owner: options.owner, epoch: workflow.epoch, expiresAt: now + options.ttlMs };
    return toLease(id, workflow.lease);
  }

  async releaseWorkflow(id: string, lease: Pick<Lease, "owner" | "epoch">): Promise<void> {
    this.#open("releaseWorkflow");
    const workflow = this.#workflows.get(id);
    const current = workflow?.lease;
    if (workflow === undefined || current === undefined) return;
    if (current.owner === lease.owner && current.epoch === lease.epoch) workflow.lease = undefined;
  }

  async renewWorkflow(
    id: string,
    lease: Pick<Lease, "owner" | "epoch">,
    options: { readonly ttlMs: number },
  ): Promise<RenewedLease> {
    this.#open("renewWorkflow");
    validateWorkflowId(id, "renewWorkflow");
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
    if (action === "none") return this.#toRecord(workflow);
    const stopText = workflow.stopText ?? encodeStopRequest(this.#serializer, id, options?.info, now, "requestStop");
    workflow.stopText = stopText;
    if (action === "stop") {
      workflow.status = "stopped";
      workflow.lease = undefined;
      workflow.epoch += 1;
    }
    workflow.updatedAt = now;
    return this.#toRecord(workflow);
  }

  async getStopRequest(id: string): Promise<StopRequest | undefined> {
    this.#open("getStopRequest");
    const workflow = this.#workflows.get(id);
    return workflow === undefined ? undefined : this.#stopRequest(workflow, "getStopRequest");
  }

  async saveStep(step: StepRecord, fence?: Fence): Promise<void> {
    this.#open("saveStep");
    validateStepRecord(step);
    validateFence(step.workflowId, fence, "saveStep");
    const workflow = this.#require(step.workflowId, "saveStep");
    this.#checkFence(workflow, fence, "saveStep");
    // Serialise first: a value that cannot be stored must leave nothing behind.
    const text = serializeStored(this.#serializer, normalizeStep(step), {
      workflowId: step.workflowId,
      nodeName: step.nodeName,
      operation: "saveStep",
    });
    const keys: Record<string, null> = {};
    for (const key of Object.keys(step.values)) {
      Object.defineProperty(keys, key, { value: null, enumerable: true, writable: true, configurable: true });
    }
    workflow.steps.set(stepKey(step), {
      superstep: step.superstep,
      nodeName: step.nodeName,
      index: step.index,
      values: keys,
      text,
    });
    if (this.policy.retention !== "full") {
      for (const doomed of compactSteps([...workflow.steps.values()], this.policy)) {
        workflow.steps.delete(stepKey(doomed));
      }
    }
    workflow.lastSuperstep = Math.max(workflow.lastSuperstep, step.superstep);
    workflow.updatedAt = Date.now();
  }

  async updateWorkflow(id: string, update: WorkflowUpdate, fence?: Fence): Promise<WorkflowRecord> {
    this.#open("updateWorkflow");
    validateWorkflowId(id, "updateWorkflow");
    validateFence(id, fence, "updateWorkflow");
    const workflow = this.#require(id, "updateWorkflow");
    this.#checkFence(workflow, fence, "updateWorkflow");
    if (typeof update !== "object" || update === null) {
      throw new CheckpointError({
        message: `updateWorkflow('${id}') expects an update object.`,
        workflowId: id,
        operation: "updateWorkflow",
      });
    }
    if (update.status !== undefined && !WORKFLOW_STATUSES.includes(update.status)) {
      throw new CheckpointError({
        message: `updateWorkflow('${id}'): status must be one of ${WORKFLOW_STATUSES.join(", ")}, got ${JSON.stringify(update.status)}.`,
        workflowId: id,
        operation: "updateWorkflow",
        path: "status",
      });
    }
    if (update.graphHash !== undefined && typeof update.graphHash !== "string") {
      throw new CheckpointError({
        message: `updateWorkflow('${id}'): graphHash must be a string.`,
        workflowId: id,
        operation: "updateWorkflow",
        path: "graphHash",
      });
    }
    // Serialise everything before changing anything.
    const pauseText =
      update.pause === undefined || update.pause === null
        ? undefined
        : serializeStored(this.#serializer, update.pause, {
            workflowId: id,
            nodeName: update.pause.nodeName,
            operation: "updateWorkflow",
            path: "pause",
          });
    const errorText =
      update.error === undefined || update.error === null
        ? undefined
        : serializeStored(this.#serializer, normalizeError(update.error), {
            workflowId: id,
            operation: "updateWorkflow",
            path: "error",
          });
    if (update.status !== undefined) workflow.status = update.status;
    if (update.graphHash !== undefined) workflow.graphHash = update.graphHash;
    if (update.pause !== undefined) workflow.pauseText = pauseText;
    if (update.error !== undefined) workflow.errorText = errorText;
    if (update.stopRequested === null) workflow.stopText = undefined;
    workflow.updatedAt = Date.now();
    return this.#toRecord(workflow);
  }

  async getWorkflow(id: string): Promise<WorkflowRecord | undefined> {
    this.#open("getWorkflow");
    const workflow = this.#workflows.get(id);
    return workflow === undefined ? undefined : this.#toRecord(workflow);
  }

  async getSteps(id: string, options: StepReadOptions = {}): Promise<readonly StepRecord[]> {
    this.#open("getSteps");
    const workflow = this.#workflows.get(id);
    return workflow === undefined
      ? []
      : selectRecords(this.#readSteps(workflow, options.throughSuperstep, "getSteps"), options);
  }

  async getState(
    id: string,
    options: { readonly throughSuperstep?: number } = {},
  ): Promise<Readonly<Record<string, unknown>>> {
    this.#open("getState");
    const workflow = this.#workflows.get(id);
    if (workflow === undefined) return {};
    return foldSteps(this.#readSteps(workflow, options.throughSuperstep, "getState")).values;
  }

  async getCheckpoint(id: string, options: { readonly superstep?: number } = {}): Promise<Checkpoint | undefined> {
    this.#open("getCheckpoint");
    const workflow = this.#workflows.get(id);
    if (workflow === undefined) return undefined;
    const steps = this.#readSteps(workflow, options.superstep, "getCheckpoint");
    const { values, versions } = foldSteps(steps);
    const bound =
      options.superstep === undefined ? workflow.lastSuperstep : Math.min(options.superstep, workflow.lastSuperstep);
    return { workflowId: id, superstep: steps.length === 0 ? -1 : Math.max(bound, -1), values, versions, steps };
  }

  async listWorkflows(options: ListWorkflowsOptions = {}): Promise<WorkflowPage> {
    this.#open("listWorkflows");
    const limit = resolveListLimit(options.limit);
    const after = options.cursor === undefined ? undefined : decodeWorkflowCursor(options.cursor);
    const matching = [...this.#workflows.values()]
      .filter(
        (workflow) =>
          (options.status === undefined || workflow.status === options.status) &&
          (options.rootsOnly !== true || workflow.parentId === undefined),
      )
      .map((workflow) => ({ workflow, position: { createdAt: new Date(workflow.createdAt), id: workflow.id } }))
      .filter((entry) => after === undefined || compareWorkflowPosition(entry.position, after) > 0)
      .sort((a, b) => compareWorkflowPosition(a.position, b.position));
    const page = matching.slice(0, limit);
    const last = page[page.length - 1];
    return {
      workflows: page.map((entry) => this.#toRecord(entry.workflow)),
      ...(matching.length > limit && last !== undefined ? { nextCursor: encodeWorkflowCursor(last.position) } : {}),
    };
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
   * live lease. Runs on `setup()` and `createWorkflow()`; returns the number of root workflows deleted.
   */
  pruneExpired(now: number = Date.now()): number {
    const ttlMs = this.policy.ttlMs;
    if (ttlMs === undefined) return 0;
    const expired = [...this.#workflows.values()].filter(
      (workflow) =>
        workflow.parentId === undefined &&
        now - workflow.updatedAt >= ttlMs &&
        !(workflow.status === "running" && workflow.lease !== undefined && workflow.lease.expiresAt > now),
    );
    for (const workflow of expired) this.#delete(workflow.id);
    return expired.length;
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

  /** Checks the fence against the lease epoch of the guarding workflow (the written one, or its root). */
  #checkFence(workflow: StoredWorkflow, fence: Fence | undefined, operation: string, written = workflow.id): void {
    if (fence === undefined) return;
    const guardId = fence.workflowId ?? workflow.id;
    const guard = guardId === workflow.id ? workflow : this.#require(guardId, operation);
    if (fence.epoch === guard.epoch) return;
    const lease = guard.lease;
    throw staleFenceError(
      guard.id,
      operation,
      fence.epoch,
      {
        epoch: guard.epoch,
        ...(lease === undefined ? {} : { owner: lease.owner, expiresAt: new Date(lease.expiresAt) }),
      },
      written,
    );
  }

  #stopRequest(workflow: StoredWorkflow, operation: string): StopRequest | undefined {
    return workflow.stopText === undefined
      ? undefined
      : decodeStopRequest(this.#serializer, workflow.id, workflow.stopText, operation);
  }

  #readSteps(workflow: StoredWorkflow, throughSuperstep: number | undefined, operation: string): StepRecord[] {
    const stored = [...workflow.steps.values()]
      .filter((step) => throughSuperstep === undefined || step.superstep <= throughSuperstep)
      .sort((a, b) => a.index - b.index);
    return stored.map((step) =>
      readRecord(
        deserializeStored(this.#serializer, step.text, {
          workflowId: workflow.id,
          nodeName: step.nodeName,
          operation,
        }) as StepRecord,
      ),
    );
  }

  #toRecord(workflow: StoredWorkflow): WorkflowRecord {
    const where = { workflowId: workflow.id, operation: "getWorkflow" };
    const pause =
      workflow.pauseText === undefined
        ? undefined
        : (deserializeStored(this.#serializer, workflow.pauseText, {
            ...where,
            path: "pause",
          }) as WorkflowRecord["pause"]);
    const error =
      workflow.errorText === undefined
        ? undefined
        : (deserializeStored(this.#serializer, workflow.errorText, { ...where, path: "error" }) as StoredError);
    const stop = this.#stopRequest(workflow, "getWorkflow");
    return {
      id: workflow.id,
      status: workflow.status,
      graphName: workflow.graphName,
      graphHash: workflow.graphHash,
      ...(workflow.parentId === undefined ? {} : { parentId: workflow.parentId }),
      ...(pause === undefined ? {} : { pause }),
      ...(error === undefined ? {} : { error }),
      lastSuperstep: workflow.lastSuperstep,
      stepCount: workflow.steps.size,
      ...(workflow.lease === undefined ? {} : { lease: toLease(workflow.id, workflow.lease) }),
      ...(stop === undefined ? {} : { stopRequested: stop }),
      createdAt: new Date(workflow.createdAt),
      updatedAt: new Date(workflow.updatedAt),
    };
  }
}

function toLease(workflowId: string, lease: StoredLease): Lease {
  return { workflowId, owner: lease.owner, epoch: lease.epoch, expiresAt: new Date(lease.expiresAt) };
}

const decisionField = (decision: StepRecord["decision"]) => (decision === undefined ? {} : { decision });

/** Keeps only the fields of the contract, so stray properties never reach storage. */
function normalizeStep(step: StepRecord): StepRecord {
  return {
    workflowId: step.workflowId,
    superstep: step.superstep,
    nodeName: step.nodeName,
    index: step.index,
    status: step.status,
    inputVersions: step.inputVersions,
    values: step.values,
    ...decisionField(storedDecision(step)),
    ...(step.childWorkflowId === undefined ? {} : { childWorkflowId: step.childWorkflowId }),
    ...(step.pause === undefined ? {} : { pause: step.pause }),
    truncated: step.truncated,
    ...(step.error === undefined ? {} : { error: normalizeError(step.error) }),
    startedAt: step.startedAt,
    completedAt: step.completedAt,
  };
}

function normalizeError(error: StoredError): StoredError {
  return {
    name: String(error.name),
    message: String(error.message),
    ...(error.tag === undefined ? {} : { tag: String(error.tag) }),
    ...(error.stack === undefined ? {} : { stack: String(error.stack) }),
  };
}
