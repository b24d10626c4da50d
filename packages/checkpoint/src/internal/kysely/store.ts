/**
 * The SQL implementation of the whole `Checkpointer` contract, shared by the SQLite and Postgres adapters.
 * Database differences live in the configured `SqlDialect`; every query is written once. This file is the
 * plumbing (setup once, close, retries, error classification) and the validation of each call; the statements
 * live in `workflowWrites.ts`, `stepWrites.ts`, `leases.ts`, `reads.ts` and `maintenance.ts`.
 */
import type {
  Checkpoint,
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
import type { WorkflowConflictError } from "../../errors.js";
import { CheckpointError, isCheckpointError, isWorkflowConflictError } from "../../errors.js";
import type { KyselyCheckpointerOptions } from "../../kysely.js";
import type { Serializer } from "../../Serializer.js";
import type { SqlResult } from "../../SqlDialect.js";
import { decodeWorkflowCursor, foldSteps, resolveListLimit, validateWorkflowId } from "../../state.js";
import { validateClaimOptions, validateFence, validateRenewal } from "../leases.js";
import { checkSerializer } from "../options.js";
import { selectRecords } from "../records.js";
import { BulkStatements } from "./bulkStatements.js";
import { checkKyselyOptions } from "./config.js";
import type { AnyDb } from "./layout.js";
import { TableLayout } from "./layout.js";
import { decodeStop, lockInOrder, renewIn, requestStopIn } from "./leases.js";
import { deleteTreeIn, migrateIn, pruneExpiredIn } from "./maintenance.js";
import type { Program } from "./program.js";
import { firstRow, runAsync, runSync } from "./program.js";
import { listQuery, pageOf, readCheckpointIn, readStepsIn } from "./reads.js";
import type { WorkflowRow } from "./rows.js";
import { decodeWorkflow } from "./rows.js";
import { HotStatements } from "./statements.js";
import type { EncodedGroup } from "./stepWrites.js";
import { encodeGroup, saveGroup } from "./stepWrites.js";
import type { WorkflowContext } from "./workflowWrites.js";
import { claimIn, createIn, encodeUpdate, finishIn, isWorkflowStatus, startIn, updateIn } from "./workflowWrites.js";

/** How often a call is retried after meeting a dead pooled connection (one per connection a pool may hold). */
const LOST_CONNECTION_RETRIES = 10;

/** A lone UTF-16 surrogate cannot be encoded as UTF-8, so a SQL database would silently store U+FFFD instead. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function isStorableText(value: unknown): value is string {
  return typeof value === "string" && value !== "" && !value.includes("\u0000") && !LONE_SURROGATE.test(value);
}

function requireStorableId(id: unknown, operation: string, what = "workflow id"): asserts id is string {
  // Node names are validated by the step checks; only the UTF-8 rule is the store's.
  if (what === "workflow id" || what === "parent id") validateWorkflowId(id, operation);
  if (typeof id === "string" && LONE_SURROGATE.test(id)) {
    throw new CheckpointError({
      message:
        `Invalid ${what} ${JSON.stringify(id)} passed to ${operation}: it contains a lone UTF-16 surrogate, which ` +
        "a SQL database cannot store as UTF-8 text. Use a well-formed string.",
      ...(what === "workflow id" ? { workflowId: id } : {}),
      operation,
    });
  }
}

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
  readonly #destroyOnClose: boolean;
  readonly #describeError: KyselyCheckpointerOptions["describeError"];
  readonly #isConnectionLost: (error: unknown) => boolean;
  readonly #name: string;
  #setup: Promise<void> | undefined;
  #ready = false;
  #closed: Promise<void> | undefined;
  readonly #inFlight = new Set<Promise<unknown>>();
  /** What the statement programs need (see `workflowWrites.ts`, `stepWrites.ts`, `leases.ts`). */
  readonly #context: WorkflowContext & { readonly serializer: Serializer };

  constructor(options: KyselyCheckpointerOptions, name = "KyselyCheckpointer") {
    this.#name = name;
    const { dialect, schema, prefix } = checkKyselyOptions(options, name);
    this.policy = resolvePolicy(options.policy);
    this.dialect = new TableLayout(dialect, schema, prefix);
    // Without plugins: the store reads and writes its own column names (a CamelCasePlugin would rename them).
    this.#db = options.db.withoutPlugins();
    this.#serializer = checkSerializer(options.serializer, name);
    this.#destroyOnClose = options.destroyOnClose ?? true;
    this.#describeError = options.describeError ?? dialect.describeError?.bind(dialect);
    this.#isConnectionLost = options.isConnectionLost ?? dialect.isConnectionLost?.bind(dialect) ?? (() => false);
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

  /** Runs one operation: refuses after close, sets up once, tracks it for close(), classifies failures. */
  async #run<T>(
    operation: string,
    workflowId: string | undefined,
    body: () => Promise<T>,
    needsSetup = true,
  ): Promise<T> {
    if (this.#closed !== undefined) {
      throw new CheckpointError({
        message: `${this.#name}.${operation}() was called after close(). Create a new checkpointer instead.`,
        operation,
        ...(workflowId === undefined ? {} : { workflowId }),
      });
    }
    const promise = (async () => {
      try {
        if (needsSetup && !this.#ready) await this.#ensureSetup();
        return await body();
      } catch (error) {
        throw this.#classify(error, operation, workflowId);
      }
    })();
    this.#inFlight.add(promise);
    try {
      return await promise;
    } finally {
      this.#inFlight.delete(promise);
    }
  }

  #classify(
    error: unknown,
    operation: string,
    workflowId: string | undefined,
  ): CheckpointError | WorkflowConflictError {
    if (isCheckpointError(error) || isWorkflowConflictError(error)) return error;
    const where = workflowId === undefined ? "" : ` for workflow '${workflowId}'`;
    const hint = this.#describeError?.(error, { operation, ...(workflowId === undefined ? {} : { workflowId }) });
    const detail = error instanceof Error ? error.message : String(error);
    return new CheckpointError({
      message:
        hint !== undefined
          ? `${this.#name}.${operation}${where} failed: ${hint}`
          : `${this.#name}.${operation}${where} failed: ${detail}. Check that the database is reachable and ` +
            "healthy (connection, permissions, disk space); the cause holds the original error.",
      operation,
      ...(workflowId === undefined ? {} : { workflowId }),
      cause: error,
    });
  }

  #ensureSetup(): Promise<void> {
    this.#setup ??= this.#write((trx) => migrateIn(trx, this.dialect)).then(
      () => {
        this.#ready = true;
      },
      (error: unknown) => {
        this.#setup = undefined;
        throw error;
      },
    );
    return this.#setup;
  }

  /**
   * A write transaction, retried on a fresh connection when the connection turned out to be dead before
   * `BEGIN` went through (nothing of this call reached the database then). Several pooled connections can die
   * at once (a server restart), and each failed attempt drops one, hence up to {@link LOST_CONNECTION_RETRIES}.
   */
  async #write<T>(body: (trx: AnyDb) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      let started = false;
      try {
        return await this.dialect.write(this.#db, (trx) => {
          started = true;
          return body(trx);
        });
      } catch (error) {
        if (started || attempt >= LOST_CONNECTION_RETRIES || !this.#isConnectionLost(error)) throw error;
      }
    }
  }

  /** A write transaction running a statement program: synchronously when the dialect can right now. */
  #transact<T>(program: () => Program<T>): Promise<T> {
    const now = this.dialect.dialect.writeNow?.(this.#db, (execute) => runSync(execute, program()));
    if (now !== undefined) return Promise.resolve(now.value);
    return this.#write((trx) => runAsync(trx, program()));
  }

  /** A read, retried on a fresh connection when the connection turned out to be dead (see `#write`). */
  async #read<T>(body: (db: AnyDb) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await body(this.#db);
      } catch (error) {
        if (attempt >= LOST_CONNECTION_RETRIES || !this.#isConnectionLost(error)) throw error;
      }
    }
  }

  /** One read statement of the store's own: synchronously when the dialect can right now. */
  #readOne(query: ReturnType<HotStatements["stopRequest"]>): Promise<SqlResult> {
    const now = this.dialect.dialect.readNow?.(this.#db, query);
    if (now !== undefined) return Promise.resolve(now);
    return this.#read((db) => db.executeQuery(query) as Promise<SqlResult>);
  }

  #decode(row: WorkflowRow, operation: string): WorkflowRecord {
    return decodeWorkflow(row, this.#serializer, operation);
  }

  /** Deletes root workflows (and children) not updated for `ttlMs`, unless running under a live lease. */
  async #pruneExpired(): Promise<number> {
    const ttlMs = this.policy.ttlMs;
    if (ttlMs === undefined) return 0;
    return this.#write((trx) => pruneExpiredIn(trx, this.dialect, ttlMs));
  }

  #checkNewWorkflow(workflow: NewWorkflow, operation: string): void {
    if (typeof workflow !== "object" || workflow === null) {
      throw new CheckpointError({ message: `${operation} expects { id, graphName, graphHash }.`, operation });
    }
    requireStorableId(workflow.id, operation);
    for (const field of ["graphName", "graphHash"] as const) {
      if (typeof workflow[field] !== "string" || workflow[field].includes("\u0000")) {
        throw new CheckpointError({
          message: `${operation}('${workflow.id}'): ${field} must be a string without NUL characters.`,
          workflowId: workflow.id,
          operation,
          path: field,
        });
      }
    }
    if (workflow.parentId !== undefined) requireStorableId(workflow.parentId, operation, "parent id");
  }

  #encode(steps: readonly StepRecord[], fence: Fence | undefined, operation: string): EncodedGroup {
    return encodeGroup(steps, fence, operation, this.#serializer, (id, what) => requireStorableId(id, operation, what));
  }

  // ---------------------------------------------------------------------------------------------------------
  // the contract

  setup(): Promise<void> {
    return this.#run(
      "setup",
      undefined,
      async () => {
        await this.#ensureSetup();
        await this.#pruneExpired();
      },
      false,
    );
  }

  createWorkflow(workflow: NewWorkflow): Promise<{ readonly workflow: WorkflowRecord; readonly created: boolean }> {
    const workflowId = typeof workflow?.id === "string" ? workflow.id : undefined;
    return this.#run("createWorkflow", workflowId, async () => {
      this.#checkNewWorkflow(workflow, "createWorkflow");
      await this.#pruneExpired();
      const { row, created } = await this.#transact(() => createIn(this.#context, workflow));
      return { workflow: this.#decode(row, "createWorkflow"), created };
    });
  }

  /** `createWorkflow` + `claimWorkflow` in one transaction (a new workflow is inserted with its lease). */
  startWorkflow(workflow: NewWorkflow, claim: LeaseClaim): Promise<StartedWorkflow> {
    const workflowId = typeof workflow?.id === "string" ? workflow.id : undefined;
    return this.#run("startWorkflow", workflowId, async () => {
      this.#checkNewWorkflow(workflow, "startWorkflow");
      validateClaimOptions(workflow.id, claim);
      await this.#pruneExpired();
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
      const inserted = firstRow<WorkflowRow>(await this.#read((db) => single.call(this.dialect.dialect, db, insert)));
      if (inserted !== undefined) {
        const lease = { workflowId: workflow.id, owner: claim.owner, epoch: Number(inserted.lease_epoch) };
        return { row: inserted, created: true, lease: { ...lease, expiresAt: new Date(expiresAt) } };
      }
    }
    return this.#transact(() => startIn(this.#context, workflow, claim.owner, claim.ttlMs));
  }

  claimWorkflow(id: string, options: { readonly owner: string; readonly ttlMs: number }): Promise<Lease> {
    return this.#run("claimWorkflow", id, async () => {
      requireStorableId(id, "claimWorkflow");
      validateClaimOptions(id, options);
      return this.#transact(() => claimIn(this.#context, id, options.owner, options.ttlMs, "claimWorkflow"));
    });
  }

  releaseWorkflow(id: string, lease: Pick<Lease, "owner" | "epoch">): Promise<void> {
    return this.#run("releaseWorkflow", id, async () => {
      if (!isStorableText(id) || typeof lease !== "object" || lease === null) return;
      if (typeof lease.owner !== "string" || !Number.isSafeInteger(lease.epoch)) return;
      const release = this.#context.statements.release(id, lease.owner, lease.epoch);
      await this.#transact(function* () {
        yield release;
      });
    });
  }

  renewWorkflow(
    id: string,
    lease: Pick<Lease, "owner" | "epoch">,
    options: { readonly ttlMs: number },
  ): Promise<RenewedLease> {
    return this.#run("renewWorkflow", id, async () => {
      requireStorableId(id, "renewWorkflow");
      validateRenewal(id, lease, options);
      return this.#transact(() => renewIn(this.#context, id, lease, options.ttlMs));
    });
  }

  requestStop(id: string, options: { readonly info?: unknown } = {}): Promise<WorkflowRecord | undefined> {
    return this.#run("requestStop", id, async () => {
      if (!isStorableText(id)) return undefined;
      const row = await this.#transact(() => requestStopIn(this.#context, id, options?.info));
      return row === undefined ? undefined : this.#decode(row, "requestStop");
    });
  }

  getStopRequest(id: string): Promise<StopRequest | undefined> {
    return this.#run("getStopRequest", id, async () => {
      if (!isStorableText(id)) return undefined;
      const row = firstRow<{ stop_requested: string | null }>(
        await this.#readOne(this.#context.statements.stopRequest(id)),
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
    return this.#run(operation, workflowId, async () => {
      if (steps.length === 0) return;
      const group = this.#encode(steps, fence, operation);
      const context = this.#context;
      await this.#transact(function* () {
        yield* lockInOrder(context.statements, [group]);
        yield* saveGroup(context, group, operation);
      });
    });
  }

  /** Saves groups of steps of several workflows in one transaction (all or none); see `Checkpointer.saveStepBatch`. */
  saveStepBatch(groups: readonly StepGroup[]): Promise<void> {
    const operation = "saveStepBatch";
    return this.#run(operation, undefined, async () => {
      if (!Array.isArray(groups)) {
        throw new CheckpointError({ message: `${operation} expects an array of { steps, fence? }.`, operation });
      }
      const encoded = groups
        .filter((group) => group?.steps?.length > 0)
        .map((group) => this.#encode(group.steps, group.fence, operation));
      if (encoded.length === 0) return;
      const context = this.#context;
      await this.#transact(function* () {
        yield* lockInOrder(context.statements, encoded);
        for (const group of encoded) yield* saveGroup(context, group, operation);
      });
    });
  }

  updateWorkflow(id: string, update: WorkflowUpdate, fence?: Fence): Promise<WorkflowRecord> {
    return this.#run("updateWorkflow", id, async () => {
      requireStorableId(id, "updateWorkflow");
      validateFence(id, fence, "updateWorkflow");
      // Serialise everything before changing anything.
      const changes = encodeUpdate(id, update, this.#serializer, "updateWorkflow");
      const row = await this.#transact(() => updateIn(this.#context, id, changes, fence));
      return this.#decode(row, "updateWorkflow");
    });
  }

  /** Steps + fenced update + release in one transaction; see `Checkpointer.finishWorkflow`. */
  finishWorkflow(finish: WorkflowFinish): Promise<WorkflowRecord> {
    const operation = "finishWorkflow";
    const id = finish?.workflowId;
    return this.#run(operation, typeof id === "string" ? id : undefined, async () => {
      if (typeof finish !== "object" || finish === null) {
        throw new CheckpointError({ message: `${operation} expects { workflowId, update, … }.`, operation });
      }
      requireStorableId(id, operation);
      validateFence(id, finish.fence, operation);
      const changes = encodeUpdate(id, finish.update, this.#serializer, operation);
      const groups = (finish.steps ?? [])
        .filter((group) => group?.steps?.length > 0)
        .map((group) => this.#encode(group.steps, group.fence, operation));
      const release = finish.release;
      if (release !== undefined && (typeof release?.owner !== "string" || !Number.isSafeInteger(release.epoch))) {
        throw new CheckpointError({
          message: `${operation}('${id}'): release must be { owner: string, epoch: integer } (the lease to give back).`,
          workflowId: id,
          operation,
          path: "release",
        });
      }
      const row = await this.#transact(() => finishIn(this.#context, id, groups, changes, finish.fence, release));
      return this.#decode(row, operation);
    });
  }

  getWorkflow(id: string): Promise<WorkflowRecord | undefined> {
    return this.#run("getWorkflow", id, async () => {
      if (!isStorableText(id)) return undefined;
      const row = firstRow<WorkflowRow>(await this.#readOne(this.#context.bulk.selectWorkflow(id)));
      return row === undefined ? undefined : this.#decode(row, "getWorkflow");
    });
  }

  getSteps(id: string, options: StepReadOptions = {}): Promise<readonly StepRecord[]> {
    return this.#run("getSteps", id, async () => {
      if (!isStorableText(id)) return [];
      const bound = superstepBound(options?.throughSuperstep, "getSteps", id);
      const steps = await this.#read((db) => readStepsIn(db, this.dialect, this.#serializer, id, bound, "getSteps"));
      return selectRecords(steps, options);
    });
  }

  getState(
    id: string,
    options: { readonly throughSuperstep?: number } = {},
  ): Promise<Readonly<Record<string, unknown>>> {
    return this.#run("getState", id, async () => {
      if (!isStorableText(id)) return {};
      const bound = superstepBound(options?.throughSuperstep, "getState", id);
      const steps = await this.#read((db) => readStepsIn(db, this.dialect, this.#serializer, id, bound, "getState"));
      return foldSteps(steps).values;
    });
  }

  getCheckpoint(id: string, options: { readonly superstep?: number } = {}): Promise<Checkpoint | undefined> {
    return this.#run("getCheckpoint", id, async () => {
      if (!isStorableText(id)) return undefined;
      const bound = superstepBound(options?.superstep, "getCheckpoint", id);
      const read = await this.#read((db) => readCheckpointIn(db, this.dialect, this.#serializer, id, bound));
      if (read === undefined) return undefined;
      const { values, versions } = foldSteps(read.steps);
      const last = bound === undefined ? read.lastSuperstep : Math.min(bound, read.lastSuperstep);
      return {
        workflowId: id,
        superstep: read.steps.length === 0 ? -1 : Math.max(last, -1),
        values,
        versions,
        steps: read.steps,
      };
    });
  }

  listWorkflows(options: ListWorkflowsOptions = {}): Promise<WorkflowPage> {
    return this.#run("listWorkflows", undefined, async () => {
      const opts = options ?? {};
      const limit = resolveListLimit(opts.limit);
      const after = opts.cursor === undefined ? undefined : decodeWorkflowCursor(opts.cursor);
      if (opts.status !== undefined && !isWorkflowStatus(opts.status)) {
        throw new CheckpointError({
          message: `listWorkflows: status must be one of running, completed, paused, stopped, failed, got ${JSON.stringify(opts.status)}.`,
          operation: "listWorkflows",
          path: "status",
        });
      }
      const query = listQuery(this.#db, this.dialect, opts, limit, after);
      const rows = (await this.#read(() => query.execute())) as WorkflowRow[];
      return pageOf(
        rows,
        limit,
        this.#serializer,
        (error, rowId) => this.#classify(error, "listWorkflows", rowId) as CheckpointError,
      );
    });
  }

  deleteWorkflow(id: string): Promise<void> {
    return this.#run("deleteWorkflow", id, async () => {
      if (!isStorableText(id)) return;
      await this.#write((trx) => deleteTreeIn(trx, this.dialect, id));
    });
  }

  /** Bytes stored by the checkpoint tables (see `SqlDialect.storageBytes`). */
  storageBytes(): Promise<number> {
    const d = this.dialect;
    return this.#run("storageBytes", undefined, () => this.#read((db) => d.dialect.storageBytes(db, d.tables)));
  }

  /** Deletes expired workflows now (see `CheckpointPolicy.ttlMs`); returns how many root workflows were deleted. */
  pruneExpired(): Promise<number> {
    return this.#run("pruneExpired", undefined, () => this.#pruneExpired());
  }

  close(): Promise<void> {
    this.#closed ??= (async () => {
      // Let operations that already started finish (nothing is lost by a clean close), then release the pool.
      await Promise.allSettled([...this.#inFlight]);
      if (this.#destroyOnClose) await this.#db.destroy();
    })().catch((error: unknown) => {
      throw this.#classify(error, "close", undefined);
    });
    return this.#closed;
  }
}

function superstepBound(value: number | undefined, operation: string, workflowId: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || Number.isNaN(value)) {
    throw new CheckpointError({
      message: `${operation}('${workflowId}'): the superstep bound must be a number, got ${String(value)}.`,
      workflowId,
      operation,
    });
  }
  if (value === Number.POSITIVE_INFINITY) return undefined;
  return Math.floor(Math.max(value, -1e15));
}
