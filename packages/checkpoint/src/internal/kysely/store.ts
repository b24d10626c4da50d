/**
 * The SQL implementation of the whole `Checkpointer` contract, shared by the SQLite and Postgres adapters.
 * Database differences live in the configured `SqlDialect`; every query is written once. This file is the
 * plumbing (setup once, close, retries, error classification) and the validation of each call; the statements
 * live in `workflowWrites.ts`, `stepWrites.ts`, `leases.ts`, `reads.ts` and `maintenance.ts`.
 */
import type {
  Checkpoint,
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
  StepGroup,
  StepReadOptions,
  StepRecord,
  StopRequest,
  WorkflowFinish,
  WorkflowPage,
  WorkflowRecord,
  WorkflowUpdate,
} from "../../Checkpointer.js";
import type { CheckpointPolicy } from "../../CheckpointPolicy.js";
import { resolvePolicy } from "../../CheckpointPolicy.js";
import { CheckpointError } from "../../errors.js";
import type { KyselyCheckpointerOptions } from "../../kysely.js";
import type { Serializer } from "../../Serializer.js";
import { decodeWorkflowCursor, foldSteps, isStorableText, resolveListLimit, superstepBound } from "../../state.js";
import { type CacheEntryWrite, checkCacheRead, checkCacheWrite } from "../cacheEntries.js";
import { assembleCheckpoint } from "../checkpoints.js";
import {
  isReleasable,
  requireStorableText,
  resolveSweepLimit,
  validateFinish,
  validateListFilters,
  validateNewWorkflow,
  validateStartSteps,
  validateStatusFilter,
} from "../inputs.js";
import { validateClaimOptions, validateFence, validateRenewal } from "../leases.js";
import { checkSerializer } from "../options.js";
import { selectSteps } from "../records.js";
import { checkGraphStructure } from "../structures.js";
import { resolveDueOptions, resolveWaitingOptions } from "../time.js";
import { BulkStatements } from "./bulkStatements.js";
import { checkKyselyOptions } from "./config.js";
import type { AnyDb } from "./layout.js";
import { TableLayout } from "./layout.js";
import { decodeStop, encodeStop, lockInOrder, renewedLease, renewIn, requestStopIn } from "./leases.js";
import { deleteTreeIn, sweepExpiredIn } from "./maintenance.js";
import { readCacheEntryIn, writeCacheEntryIn } from "./nodeCache.js";
import { firstRow } from "./program.js";
import { listQuery, pageOf, readCheckpointIn, readStepsIn } from "./reads.js";
import type { WorkflowRow } from "./rows.js";
import { decodeWorkflow } from "./rows.js";
import { StoreSession } from "./session.js";
import { HotStatements } from "./statements.js";
import type { EncodedGroup } from "./stepWrites.js";
import { encodeGroup, isSingleStep, saveGroup, writeSingleStep } from "./stepWrites.js";
import { getStructureIn, putStructureIn } from "./structures.js";
import { listDueIn, listWaitingIn, nextDueIn } from "./times.js";
import type { WorkflowContext } from "./workflowWrites.js";
import { claimIn, createIn, encodeUpdate, finishIn, startIn, updateIn } from "./workflowWrites.js";

/** Root workflows per batch when `pruneExpired` deletes everything expired. */
const SWEEP_BATCH = 200;

/** The store behind `KyselyCheckpointer`. */
export class KyselyStore {
  readonly policy: CheckpointPolicy;
  readonly dialect: TableLayout;
  readonly #db: AnyDb;
  readonly #serializer: Serializer;
  /** The serializer values are stored with (the runtime snapshots async/exit steps with it). */
  get serializer(): Serializer {
    return this.#serializer;
  }
  readonly #session: StoreSession;
  /** What the statement programs need (see `workflowWrites.ts`, `stepWrites.ts`, `leases.ts`). */
  readonly #context: WorkflowContext & { readonly serializer: Serializer };

  constructor(options: KyselyCheckpointerOptions, name = "KyselyCheckpointer") {
    const { dialect, schema, prefix } = checkKyselyOptions(options, name);
    this.policy = resolvePolicy(options.policy);
    this.dialect = new TableLayout(dialect, schema, prefix);
    // Without plugins: the store reads and writes its own column names (a CamelCasePlugin would rename them).
    this.#db = options.db.withoutPlugins();
    this.#serializer = checkSerializer(options.serializer, name);
    this.#session = new StoreSession(options, this.dialect, this.#db, name);
    this.#context = {
      layout: this.dialect,
      statements: new HotStatements(this.dialect),
      bulk: new BulkStatements(this.dialect),
      policy: this.policy,
      db: this.#db,
      serializer: this.#serializer,
    };
  }

  // ---------------------------------------------------------------------------------------------------------
  // plumbing

  #decode(row: WorkflowRow, operation: string): WorkflowRecord {
    return decodeWorkflow(row, this.#serializer, operation);
  }

  /** One sweep batch (see `sweepExpiredIn`), then what the dialect does to give the freed space back. */
  async #sweep(limit: number): Promise<number> {
    const ttlMs = this.policy.ttlMs;
    if (ttlMs === undefined) return 0;
    const session = this.#session;
    const deleted = await sweepExpiredIn(
      this.dialect,
      (body) => session.read(body),
      (body) =>
        session.write(async (trx) => {
          await this.dialect.dialect.labelTransaction?.(trx, "sweeper");
          return body(trx);
        }),
      ttlMs,
      limit,
    );
    const reclaim = this.dialect.dialect.reclaimSpace;
    if (deleted > 0 && reclaim !== undefined) await session.write((trx) => reclaim.call(this.dialect.dialect, trx));
    return deleted;
  }

  #encode(steps: readonly StepRecord[], fence: Fence | undefined, operation: string): EncodedGroup {
    return encodeGroup(steps, fence, operation, this.#serializer);
  }

  // ---------------------------------------------------------------------------------------------------------
  // the contract

  setup(): Promise<void> {
    return this.#session.run("setup", undefined, () => this.#session.ensureSetup(), false);
  }

  createWorkflow(
    workflow: NewWorkflow,
    fence?: Fence,
  ): Promise<{ readonly workflow: WorkflowRecord; readonly created: boolean }> {
    const workflowId = typeof workflow?.id === "string" ? workflow.id : undefined;
    return this.#session.run("createWorkflow", workflowId, async () => {
      validateNewWorkflow(workflow, "createWorkflow");
      validateFence(workflow.id, fence, "createWorkflow");
      const { row, created } = await this.#session.transact(() => createIn(this.#context, workflow, fence));
      return { workflow: this.#decode(row, "createWorkflow"), created };
    });
  }

  /** `createWorkflow` + `claimWorkflow` in one transaction (a new workflow is inserted with its lease). */
  startWorkflow(workflow: NewWorkflow, claim: LeaseClaim, steps?: readonly StepRecord[]): Promise<StartedWorkflow> {
    const workflowId = typeof workflow?.id === "string" ? workflow.id : undefined;
    return this.#session.run("startWorkflow", workflowId, async () => {
      validateNewWorkflow(workflow, "startWorkflow");
      validateClaimOptions(workflow.id, claim);
      const start = validateStartSteps(workflow.id, steps);
      const group = start.length === 0 ? undefined : this.#encode(start, undefined, "startWorkflow");
      if (group !== undefined) {
        // The steps ride in the start's transaction, fenced by the lease it takes: all or nothing.
        const context = this.#context;
        const { row, created, lease } = await this.#session.transact(function* () {
          const started = yield* startIn(context, workflow, claim.owner, claim.ttlMs);
          yield* saveGroup(context, { ...group, fence: { epoch: started.lease.epoch } }, "startWorkflow");
          return started;
        });
        return { workflow: this.#decode(row, "startWorkflow"), created, lease };
      }
      const { row, created, lease } = await this.#startOne(workflow, claim);
      return { workflow: this.#decode(row, "startWorkflow"), created, lease };
    });
  }

  /**
   * A new workflow is one INSERT of the row with its lease; where the dialect can run it alone (autocommit), that is
   * one round trip. An existing workflow (no row inserted) takes the transaction of `startIn`.
   */
  async #startOne(workflow: NewWorkflow, claim: LeaseClaim) {
    const single = this.dialect.dialect.writeStatement;
    if (single !== undefined && this.dialect.dialect.writeNow === undefined) {
      const now = Date.now();
      const expiresAt = now + Math.ceil(claim.ttlMs);
      const insert = this.#context.bulk.insertClaimed(workflow, claim.owner, expiresAt, now);
      const inserted = firstRow<WorkflowRow>(
        await this.#session.read((db) => single.call(this.dialect.dialect, db, insert)),
      );
      if (inserted !== undefined) {
        const lease = { workflowId: workflow.id, owner: claim.owner, epoch: Number(inserted.lease_epoch) };
        return { row: inserted, created: true, lease: { ...lease, expiresAt: new Date(expiresAt) } };
      }
    }
    return this.#session.transact(() => startIn(this.#context, workflow, claim.owner, claim.ttlMs));
  }

  claimWorkflow(id: string, options: ClaimOptions): Promise<Lease> {
    return this.#session.run("claimWorkflow", id, async () => {
      requireStorableText(id, "claimWorkflow");
      validateClaimOptions(id, options);
      return this.#session.transact(() =>
        claimIn(this.#context, id, options.owner, options.ttlMs, "claimWorkflow", options.ifPausedAt),
      );
    });
  }

  releaseWorkflow(id: string, lease: Pick<Lease, "owner" | "epoch">): Promise<void> {
    return this.#session.run("releaseWorkflow", id, async () => {
      if (!isReleasable(id, lease)) return;
      const release = this.#context.statements.release(id, lease.owner, lease.epoch);
      await this.#session.transact(function* () {
        yield release;
      });
    });
  }

  renewWorkflow(
    id: string,
    lease: Pick<Lease, "owner" | "epoch">,
    options: { readonly ttlMs: number },
  ): Promise<RenewedLease> {
    return this.#session.run("renewWorkflow", id, async () => {
      requireStorableText(id, "renewWorkflow");
      validateRenewal(id, lease, options);
      // One conditional UPDATE: where the dialect can run it alone (autocommit), it commits the moment it ran. In a
      // transaction, a renewal queued behind the row lock of the holder's own write would, if the holder froze,
      // get that lock once the server ended the frozen write, and then hold it again while idle in its own
      // transaction: a second wait for the next holder.
      const single = this.dialect.dialect.writeStatement;
      if (single !== undefined && this.dialect.dialect.writeNow === undefined) {
        const expiresAt = Date.now() + Math.ceil(options.ttlMs);
        const query = this.#context.statements.renew(id, lease.owner, lease.epoch, expiresAt);
        const row = firstRow<{ stop_requested: string | null }>(
          await this.#session.read((db) => single.call(this.dialect.dialect, db, query)),
        );
        if (row !== undefined)
          return renewedLease(this.#context, id, lease, { expiresAt, stopText: row.stop_requested });
        // Not renewed: the transaction below says why (lost, or an unknown id).
      }
      const renewed = await this.#session.transact(() => renewIn(this.#context, id, lease, options.ttlMs));
      return renewedLease(this.#context, id, lease, renewed);
    });
  }

  requestStop(id: string, options: { readonly info?: unknown } = {}): Promise<WorkflowRecord | undefined> {
    return this.#session.run("requestStop", id, async () => {
      if (!isStorableText(id)) return undefined;
      const encoded = encodeStop(this.#context, id, options?.info);
      const row = await this.#session.transact(() => requestStopIn(this.#context, id, encoded));
      return row === undefined ? undefined : this.#decode(row, "requestStop");
    });
  }

  getStopRequest(id: string): Promise<StopRequest | undefined> {
    return this.#session.run("getStopRequest", id, async () => {
      if (!isStorableText(id)) return undefined;
      const row = firstRow<{ stop_requested: string | null }>(
        await this.#session.readOne(this.#context.statements.stopRequest(id)),
      );
      return decodeStop(this.#serializer, id, row?.stop_requested ?? null, "getStopRequest");
    });
  }

  saveStep(step: StepRecord, fence?: Fence): Promise<void> {
    return this.saveSteps([step], fence, "saveStep");
  }

  /** Saves steps of one workflow in one transaction (all or none); see `Checkpointer.saveSteps`. */
  saveSteps(steps: readonly StepRecord[], fence?: Fence, operation = "saveSteps"): Promise<void> {
    const first = steps[0];
    const workflowId = typeof first?.workflowId === "string" ? first.workflowId : undefined;
    return this.#session.run(operation, workflowId, async () => {
      if (steps.length === 0) return;
      const group = this.#encode(steps, fence, operation);
      const context = this.#context;
      if (isSingleStep(context, group) && (await writeSingleStep(this.#session, context, group, operation))) return;
      await this.#session.transact(function* () {
        yield* lockInOrder(context.statements, [group]);
        yield* saveGroup(context, group, operation);
      });
    });
  }

  /** Saves groups of steps of several workflows in one transaction (all or none); see `Checkpointer.saveStepBatch`. */
  saveStepBatch(groups: readonly StepGroup[]): Promise<void> {
    const operation = "saveStepBatch";
    return this.#session.run(operation, undefined, async () => {
      if (!Array.isArray(groups)) {
        throw new CheckpointError({ message: `${operation} expects an array of { steps, fence? }.`, operation });
      }
      const encoded = groups
        .filter((group) => group?.steps?.length > 0)
        .map((group) => this.#encode(group.steps, group.fence, operation));
      if (encoded.length === 0) return;
      const context = this.#context;
      await this.#session.transact(function* () {
        yield* lockInOrder(context.statements, encoded);
        for (const group of encoded) yield* saveGroup(context, group, operation);
      });
    });
  }

  updateWorkflow(id: string, update: WorkflowUpdate, fence?: Fence): Promise<WorkflowRecord> {
    return this.#session.run("updateWorkflow", id, async () => {
      requireStorableText(id, "updateWorkflow");
      validateFence(id, fence, "updateWorkflow");
      // Serialise everything before changing anything.
      const changes = encodeUpdate(id, update, this.#serializer, "updateWorkflow");
      const row = await this.#session.transact(() => updateIn(this.#context, id, changes, fence));
      return this.#decode(row, "updateWorkflow");
    });
  }

  /** Steps + fenced update + release in one transaction; see `Checkpointer.finishWorkflow`. */
  finishWorkflow(finish: WorkflowFinish): Promise<WorkflowRecord> {
    const operation = "finishWorkflow";
    const id = finish?.workflowId;
    return this.#session.run(operation, typeof id === "string" ? id : undefined, async () => {
      const { workflowId, groups } = validateFinish(finish);
      const changes = encodeUpdate(workflowId, finish.update, this.#serializer, operation);
      const encoded = groups.map((group) => this.#encode(group.steps, group.fence, operation));
      const row = await this.#session.transact(() =>
        finishIn(this.#context, workflowId, encoded, changes, finish.fence, finish.release),
      );
      return this.#decode(row, operation);
    });
  }

  getWorkflow(id: string): Promise<WorkflowRecord | undefined> {
    return this.#session.run("getWorkflow", id, async () => {
      if (!isStorableText(id)) return undefined;
      const row = firstRow<WorkflowRow>(await this.#session.readOne(this.#context.bulk.selectWorkflow(id)));
      return row === undefined ? undefined : this.#decode(row, "getWorkflow");
    });
  }

  getSteps(id: string, options: StepReadOptions = {}): Promise<readonly StepRecord[]> {
    return this.#session.run("getSteps", id, async () => {
      if (!isStorableText(id)) return [];
      const bound = superstepBound(options?.throughSuperstep, "getSteps", id);
      const steps = await this.#session.read((db) =>
        readStepsIn(db, this.dialect, this.#serializer, id, bound, "getSteps"),
      );
      return selectSteps(steps, options);
    });
  }

  getState(
    id: string,
    options: { readonly throughSuperstep?: number } = {},
  ): Promise<Readonly<Record<string, unknown>>> {
    return this.#session.run("getState", id, async () => {
      if (!isStorableText(id)) return {};
      const bound = superstepBound(options?.throughSuperstep, "getState", id);
      const steps = await this.#session.read((db) =>
        readStepsIn(db, this.dialect, this.#serializer, id, bound, "getState"),
      );
      return foldSteps(steps).values;
    });
  }

  getCheckpoint(id: string, options: { readonly superstep?: number } = {}): Promise<Checkpoint | undefined> {
    return this.#session.run("getCheckpoint", id, async () => {
      if (!isStorableText(id)) return undefined;
      const bound = superstepBound(options?.superstep, "getCheckpoint", id);
      const read = await this.#session.read((db) => readCheckpointIn(db, this.dialect, this.#serializer, id, bound));
      if (read === undefined) return undefined;
      return assembleCheckpoint(id, read.lastSuperstep, read.steps, bound);
    });
  }

  listWorkflows(options: ListWorkflowsOptions = {}): Promise<WorkflowPage> {
    return this.#session.run("listWorkflows", undefined, async () => {
      const opts = options ?? {};
      const limit = resolveListLimit(opts.limit);
      const after = opts.cursor === undefined ? undefined : decodeWorkflowCursor(opts.cursor);
      validateStatusFilter(opts.status);
      validateListFilters(opts);
      const query = listQuery(this.#db, this.dialect, opts, limit, after);
      const rows = (await this.#session.read(() => query.execute())) as WorkflowRow[];
      return pageOf(
        rows,
        limit,
        this.#serializer,
        (error, rowId) => this.#session.classify(error, "listWorkflows", rowId) as CheckpointError,
      );
    });
  }

  listDue(options: { readonly before: Date; readonly limit?: number }): Promise<readonly DueWorkflow[]> {
    return this.#session.run("listDue", undefined, async () => {
      const { before, limit } = resolveDueOptions(options);
      return this.#session.read((db) => listDueIn(db, this.dialect, before, limit));
    });
  }

  nextDue(): Promise<Date | undefined> {
    return this.#session.run("nextDue", undefined, () => this.#session.read((db) => nextDueIn(db, this.dialect)));
  }

  listWaiting(wait: EventWait, options?: { readonly limit?: number }): Promise<readonly string[]> {
    return this.#session.run("listWaiting", undefined, async () => {
      const checked = resolveWaitingOptions(wait, options);
      return this.#session.read((db) => listWaitingIn(db, this.dialect, checked.wait, checked.limit));
    });
  }

  deleteWorkflow(id: string): Promise<void> {
    return this.#session.run("deleteWorkflow", id, async () => {
      if (!isStorableText(id)) return;
      await this.#session.write((trx) => deleteTreeIn(trx, this.dialect, id));
    });
  }

  putGraphStructure(hash: string, structure: string): Promise<void> {
    return this.#session.run("putGraphStructure", undefined, async () => {
      checkGraphStructure(hash, structure, "putGraphStructure");
      await this.#session.write((trx) => putStructureIn(trx, this.dialect, hash, structure));
    });
  }

  getGraphStructure(hash: string): Promise<string | undefined> {
    return this.#session.run("getGraphStructure", undefined, () =>
      this.#session.read((db) => getStructureIn(db, this.dialect, hash)),
    );
  }

  readCacheEntry(key: string, now: number): Promise<string | undefined> {
    return this.#session.run("readCacheEntry", undefined, async () => {
      checkCacheRead(key, now, "readCacheEntry");
      // A hit writes its last use, so even a read runs in a write transaction.
      return this.#session.write((trx) => readCacheEntryIn(trx, this.dialect, key, now));
    });
  }

  writeCacheEntry(key: string, value: string, write: CacheEntryWrite): Promise<void> {
    return this.#session.run("writeCacheEntry", undefined, async () => {
      checkCacheWrite(key, value, write, "writeCacheEntry");
      await this.#session.write((trx) => writeCacheEntryIn(trx, this.dialect, key, value, write));
    });
  }

  /** Bytes stored by the checkpoint tables (see `SqlDialect.storageBytes`). */
  storageBytes(): Promise<number> {
    const d = this.dialect;
    return this.#session.run("storageBytes", undefined, () =>
      this.#session.read((db) => d.dialect.storageBytes(db, d.tables)),
    );
  }

  /** Deletes every expired workflow now, batch after batch (see `sweepExpired`); returns how many roots went. */
  pruneExpired(): Promise<number> {
    return this.#session.run("pruneExpired", undefined, async () => {
      let total = 0;
      for (;;) {
        const deleted = await this.#sweep(SWEEP_BATCH);
        total += deleted;
        if (deleted < SWEEP_BATCH) return total;
      }
    });
  }

  /** One batch of retention housekeeping (see `Checkpointer.sweepExpired`). */
  sweepExpired(options?: { readonly limit?: number }): Promise<number> {
    return this.#session.run("sweepExpired", undefined, () => this.#sweep(resolveSweepLimit(options)));
  }

  close(): Promise<void> {
    return this.#session.close();
  }
}
