/**
 * The contract's operations on Redis (the public class adds setup, error classification and lifecycle).
 */
import type {
  CheckpointPolicy,
  ClaimOptions,
  DueWorkflow,
  EventWait,
  Fence,
  Lease,
  ListWorkflowsOptions,
  NewWorkflow,
  RenewedLease,
  StepRecord,
  StopRequest,
  WorkflowPage,
  WorkflowRecord,
  WorkflowUpdate,
} from "@graph/checkpoint";
import {
  type CacheEntryWrite,
  checkCacheRead,
  checkCacheWrite,
  checkGraphStructure,
  decodeStopRequest,
  encodeStopRequest,
  encodeWorkflowUpdate,
  isReleasable,
  isStorableText,
  leaseHeldError,
  leaseLostError,
  pauseSettledError,
  requireStorableText,
  resolveDueOptions,
  resolveWaitingOptions,
  superstepBound,
  validateClaimOptions,
  validateFence,
  validateListFilters,
  validateNewWorkflow,
  validateRenewal,
  validateStatusFilter,
} from "@graph/checkpoint/adapter";
import type { IndexContext } from "./indexes.js";
import { deleteWorkflows, descendantsOf, sweepExpired } from "./indexes.js";
import { listWorkflows } from "./listing.js";
import type { WorkflowHash } from "./records.js";
import { decodeStep, decodeWorkflow, hashFromPairs } from "./records.js";
import { rejected, stepArgs, updateArgs } from "./replies.js";
import { StatusIndex } from "./statuses.js";
import { TimeIndex } from "./times.js";

/** Root workflows per batch when `pruneExpired` deletes everything expired. */
const SWEEP_BATCH = 200;
/** Workflows per round trip when `setup()` backfills the status and graph sets. */
const BACKFILL_BATCH = 500;

/** Steps read in one snapshot, with the workflow's last superstep. */
export interface StepsRead {
  readonly lastSuperstep: number;
  readonly bound: number | undefined;
  readonly steps: StepRecord[];
}

/** The operations of one store. */
export class WorkflowOperations {
  readonly #context: IndexContext;
  readonly #policy: CheckpointPolicy;
  /** The due-time and wait indexes (also used by the merged run writes). */
  readonly times: TimeIndex;
  /** The status sets (also used by the merged run writes). */
  readonly statuses: StatusIndex;

  constructor(context: IndexContext, policy: CheckpointPolicy) {
    this.#context = context;
    this.#policy = policy;
    this.times = new TimeIndex(context);
    this.statuses = new StatusIndex(context);
  }

  /** One batch of retention housekeeping (see `Checkpointer.sweepExpired`); 0 without a `ttlMs`. */
  sweepExpired(limit: number): Promise<number> {
    const ttlMs = this.#policy.ttlMs;
    return ttlMs === undefined ? Promise.resolve(0) : sweepExpired(this.#context, ttlMs, limit);
  }

  /** Every expired workflow, batch after batch. */
  async pruneExpired(): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await this.sweepExpired(SWEEP_BATCH);
      total += deleted;
      if (deleted < SWEEP_BATCH) return total;
    }
  }

  /**
   * Builds the status and graph sets of workflows stored before they existed. The sets are filled newest first, so
   * the oldest listed workflow being in its status set means a backfill finished (or none was needed): that is the
   * one check `setup()` pays. Entries are only added, so writers running meanwhile keep the sets complete; entries
   * whose workflow is gone are removed on the way.
   */
  async backfillIndexes(): Promise<void> {
    const { client, keys } = this.#context;
    const [oldest] = await client.zrange(keys.index.all, 0, 0);
    if (oldest === undefined) return;
    const status = await client.hget(keys.workflow(oldest).workflow, "st");
    if (status !== null && (await client.zscore(keys.status(status), oldest)) !== null) return;
    for (let end = -1; ; ) {
      const reply = await client.zrange(keys.index.all, end - BACKFILL_BATCH + 1, end, "WITHSCORES");
      const ids = reply.filter((_, i) => i % 2 === 0);
      const fields = await Promise.all(ids.map((id) => client.hmget(keys.workflow(id).workflow, "st", "gn")));
      const gone: string[] = [];
      const adds: [string, string, string][] = [];
      for (const [i, id] of ids.entries()) {
        const [stored, graph] = fields[i]!;
        const score = reply[2 * i + 1]!;
        if (typeof stored !== "string") gone.push(id);
        else adds.push([keys.status(stored), score, id]);
        if (typeof graph === "string") adds.push([keys.graph(graph), score, id]);
      }
      await Promise.all(adds.map(([key, score, id]) => client.zadd(key, "NX", score, id)));
      if (gone.length > 0) await deleteWorkflows(this.#context, gone);
      // A range that started before the first entry held the oldest ones: done.
      if (ids.length < BACKFILL_BATCH) return;
      // Counted from the end, the entries before the range moved up by the ones removed from it.
      end -= BACKFILL_BATCH - gone.length;
    }
  }

  async createWorkflow(
    workflow: NewWorkflow,
    fence: Fence | undefined,
  ): Promise<{ readonly workflow: WorkflowRecord; readonly created: boolean }> {
    validateNewWorkflow(workflow, "createWorkflow");
    const guard = validateFence(workflow.id, fence, "createWorkflow") ?? workflow.id;
    const { scripts, keys } = this.#context;
    const wakeAt = workflow.wakeAt?.getTime();
    const reply = await this.times.around(workflow.id, { wakeAt }, async () => {
      const created = (await scripts.graphCreate(
        keys.workflow(workflow.id).workflow,
        keys.workflow(guard).workflow,
        workflow.graphName,
        workflow.graphHash,
        workflow.parentId ?? "",
        workflow.parentId === undefined ? "0" : "1",
        fence === undefined ? "" : String(fence.epoch),
        wakeAt === undefined ? "" : String(wakeAt),
      )) as [number | string, unknown];
      if (typeof created[0] === "string") rejected(created, workflow.id, "createWorkflow", fence);
      return [created, false] as const;
    });
    const hash = hashFromPairs(reply[1]);
    await this.index(workflow.id, hash);
    return {
      workflow: decodeWorkflow(workflow.id, hash, this.#context.serializer, "createWorkflow"),
      created: reply[0] === 1,
    };
  }

  /**
   * Adds a workflow to the listing indexes. Done on every create and start (idempotent): it repairs the index after
   * a crash between the workflow's script and this one (their keys live in different slots).
   */
  async index(id: string, hash: WorkflowHash): Promise<void> {
    const { keys } = this.#context;
    const { all, roots, ids, ttl } = keys.index;
    const sets = [hash["gn"], hash["st"]].flatMap((name, i) =>
      name === undefined ? [] : [i === 0 ? keys.graph(name) : keys.status(name)],
    );
    await this.#context.scripts.graphIndexAdd(
      4 + sets.length,
      all,
      roots,
      ids,
      ttl,
      ...sets,
      id,
      hash["ca"] ?? "0",
      hash["pid"] === undefined ? "1" : "0",
    );
  }

  async claimWorkflow(id: string, options: ClaimOptions): Promise<Lease> {
    requireStorableText(id, "claimWorkflow");
    validateClaimOptions(id, options);
    const at = options.ifPausedAt;
    const reply = (await this.#context.scripts.graphClaim(
      this.#context.keys.workflow(id).workflow,
      options.owner,
      String(options.ttlMs),
      at === undefined ? "" : String(at),
    )) as string[];
    if (reply[0] === "ok") {
      return { workflowId: id, owner: options.owner, epoch: Number(reply[1]), expiresAt: new Date(Number(reply[2])) };
    }
    if (reply[0] === "held") throw leaseHeldError(id, reply[1]!, new Date(Number(reply[2])));
    if (reply[0] === "settled" && at !== undefined)
      throw pauseSettledError(id, at, { status: reply[1] ?? "unknown", lastSuperstep: Number(reply[2]) });
    return rejected(reply, id, "claimWorkflow", undefined);
  }

  async releaseWorkflow(id: string, lease: Pick<Lease, "owner" | "epoch">): Promise<void> {
    if (!isReleasable(id, lease)) return;
    await this.#context.scripts.graphRelease(
      this.#context.keys.workflow(id).workflow,
      lease.owner,
      String(lease.epoch),
    );
  }

  async renewWorkflow(
    id: string,
    lease: Pick<Lease, "owner" | "epoch">,
    options: { readonly ttlMs: number },
  ): Promise<RenewedLease> {
    requireStorableText(id, "renewWorkflow");
    validateRenewal(id, lease, options);
    const reply = (await this.#context.scripts.graphRenew(
      this.#context.keys.workflow(id).workflow,
      lease.owner,
      String(lease.epoch),
      String(options.ttlMs),
    )) as string[];
    if (reply[0] === "ok") {
      const stop =
        reply[2] === undefined || reply[2] === "" ? undefined : this.#decodeStop(id, reply[2], "renewWorkflow");
      return {
        workflowId: id,
        owner: lease.owner,
        epoch: lease.epoch,
        expiresAt: new Date(Number(reply[1])),
        ...(stop === undefined ? {} : { stopRequested: stop }),
      };
    }
    if (reply[0] === "lost") {
      const [, epoch, owner, expiresAt] = reply;
      throw leaseLostError(id, lease, {
        epoch: Number(epoch),
        ...(owner === "" || owner === undefined ? {} : { owner, expiresAt: new Date(Number(expiresAt)) }),
      });
    }
    return rejected(reply, id, "renewWorkflow", undefined);
  }

  async requestStop(id: string, options: { readonly info?: unknown } = {}): Promise<WorkflowRecord | undefined> {
    if (!isStorableText(id)) return undefined;
    const stop = encodeStopRequest(this.#context.serializer, id, options?.info, Date.now(), "requestStop");
    // A paused workflow stops at once: its status may become "stopped".
    const reply = await this.statuses.around(
      id,
      "stopped",
      async () => (await this.#context.scripts.graphStop(this.#context.keys.workflow(id).workflow, stop)) as unknown[],
      (done) => hashFromPairs(done[1]),
    );
    if (reply[0] === "missing") return undefined;
    if (Number(reply[2]) === 1) await this.times.reconcile(id, false);
    return decodeWorkflow(id, hashFromPairs(reply[1]), this.#context.serializer, "requestStop");
  }

  async getStopRequest(id: string): Promise<StopRequest | undefined> {
    if (!isStorableText(id)) return undefined;
    const text = await this.#context.client.hget(this.#context.keys.workflow(id).workflow, "sr");
    return text === null ? undefined : this.#decodeStop(id, text, "getStopRequest");
  }

  async putGraphStructure(hash: string, structure: string): Promise<void> {
    checkGraphStructure(hash, structure, "putGraphStructure");
    await this.#context.client.hsetnx(this.#context.keys.structures, hash, structure);
  }

  async getGraphStructure(hash: string): Promise<string | undefined> {
    return (await this.#context.client.hget(this.#context.keys.structures, hash)) ?? undefined;
  }

  async readCacheEntry(key: string, now: number): Promise<string | undefined> {
    checkCacheRead(key, now, "readCacheEntry");
    const { values, used, expires } = this.#context.keys.cache;
    return (await this.#context.scripts.graphCacheRead(values, used, expires, key, String(now))) ?? undefined;
  }

  async writeCacheEntry(key: string, value: string, write: CacheEntryWrite): Promise<void> {
    checkCacheWrite(key, value, write, "writeCacheEntry");
    const { values, used, expires } = this.#context.keys.cache;
    await this.#context.scripts.graphCacheWrite(
      values,
      used,
      expires,
      key,
      value,
      String(write.now),
      write.expiresAt === undefined ? "" : String(write.expiresAt),
      write.maxEntries === undefined ? "" : String(write.maxEntries),
    );
  }

  #decodeStop(id: string, text: string, operation: string): StopRequest {
    return decodeStopRequest(this.#context.serializer, id, text, operation);
  }

  async saveSteps(steps: readonly StepRecord[], fence: Fence | undefined, operation: string): Promise<void> {
    if (Array.isArray(steps) && steps.length === 0) return;
    const { workflowId: id, guardId, args } = stepArgs(steps, fence, this.#context.serializer, operation);
    const keys = this.#context.keys.workflow(id);
    const reply = (await this.#context.scripts.graphSave(
      keys.workflow,
      keys.steps,
      keys.order,
      this.#context.keys.workflow(guardId ?? id).workflow,
      fence === undefined ? "" : String(fence.epoch),
      this.#policy.retention,
      String(this.#policy.window ?? 0),
      ...args,
    )) as string[];
    if (reply[0] !== "ok") rejected(reply, id, operation, fence);
  }

  async updateWorkflow(id: string, update: WorkflowUpdate, fence: Fence | undefined): Promise<WorkflowRecord> {
    requireStorableText(id, "updateWorkflow");
    const guard = validateFence(id, fence, "updateWorkflow") ?? id;
    // Serialise everything before changing anything.
    const changes = encodeWorkflowUpdate(id, update, this.#context.serializer, "updateWorkflow");
    const write = () =>
      this.times.around(id, timeWrite(changes), async () => {
        const updated = (await this.#context.scripts.graphUpdate(
          this.#context.keys.workflow(id).workflow,
          this.#context.keys.workflow(guard).workflow,
          fence === undefined ? "" : String(fence.epoch),
          ...updateArgs(changes),
        )) as unknown[];
        if (updated[0] !== "ok") rejected(updated, id, "updateWorkflow", fence);
        return [updated, Number(updated[2]) === 1] as const;
      });
    const reply = await this.statuses.around(id, changes.status, write, (done) => hashFromPairs(done[1]));
    return decodeWorkflow(id, hashFromPairs(reply[1]), this.#context.serializer, "updateWorkflow");
  }

  listDue(options: { readonly before: Date; readonly limit?: number }): Promise<DueWorkflow[]> {
    const { before, limit } = resolveDueOptions(options);
    return this.times.listDue(before, limit);
  }

  nextDue(): Promise<Date | undefined> {
    return this.times.nextDue();
  }

  listWaiting(wait: EventWait, options: { readonly limit?: number } | undefined): Promise<string[]> {
    const checked = resolveWaitingOptions(wait, options);
    return this.times.listWaiting(checked.wait, checked.limit);
  }

  async getWorkflow(id: string): Promise<WorkflowRecord | undefined> {
    if (!isStorableText(id)) return undefined;
    const hash = await this.#context.client.hgetall(this.#context.keys.workflow(id).workflow);
    if (Object.keys(hash).length === 0) return undefined;
    return decodeWorkflow(id, hash, this.#context.serializer, "getWorkflow");
  }

  /** Steps through a superstep bound, in index order, with the last superstep (one script: one snapshot). */
  async readSteps(id: string, through: number | undefined, operation: string): Promise<StepsRead | undefined> {
    if (!isStorableText(id)) return undefined;
    const bound = superstepBound(through, operation, id);
    const keys = this.#context.keys.workflow(id);
    const reply = (await this.#context.scripts.graphRead(
      keys.workflow,
      keys.steps,
      keys.order,
      bound === undefined ? "" : String(bound),
    )) as string[] | null;
    if (reply === null) return undefined;
    const steps: StepRecord[] = [];
    for (let i = 1; i + 1 < reply.length; i += 2) {
      steps.push(decodeStep(id, reply[i]!, reply[i + 1]!, this.#context.serializer, operation));
    }
    return { lastSuperstep: Number(reply[0]), bound, steps };
  }

  listWorkflows(options: ListWorkflowsOptions): Promise<WorkflowPage> {
    validateStatusFilter(options.status);
    validateListFilters(options);
    return listWorkflows(this.#context, options);
  }

  async deleteWorkflow(id: string): Promise<void> {
    if (!isStorableText(id)) return;
    // Children first: if this is interrupted, the root (and so the way to find its children) is still there.
    const children = await descendantsOf(this.#context, id);
    await deleteWorkflows(this.#context, children);
    await deleteWorkflows(this.#context, [id]);
  }
}

/** What an encoded update may store in the time indexes (a value, not a clearing `null`). */
export function timeWrite(changes: { readonly wakeAt?: number | null; readonly waitingFor?: EventWait | null }): {
  readonly wakeAt?: number | undefined;
  readonly waitingFor?: EventWait | undefined;
} {
  return { wakeAt: changes.wakeAt ?? undefined, waitingFor: changes.waitingFor ?? undefined };
}
