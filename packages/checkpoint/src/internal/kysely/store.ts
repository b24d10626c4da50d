/**
 * The SQL implementation of the whole `Checkpointer` contract, shared by the SQLite and Postgres adapters.
 * Database differences live in the configured `SqlDialect`; every query here is written once.
 */
import { sql } from "kysely";
import type {
  Checkpoint,
  Fence,
  Lease,
  ListWorkflowsOptions,
  NewWorkflow,
  RenewedLease,
  SkippedWorkflow,
  StepGroup,
  StepReadOptions,
  StepRecord,
  StopRequest,
  WorkflowPage,
  WorkflowRecord,
  WorkflowStatus,
  WorkflowUpdate,
} from "../../Checkpointer.js";
import type { CheckpointPolicy } from "../../CheckpointPolicy.js";
import { resolvePolicy } from "../../CheckpointPolicy.js";
import type { WorkflowConflictError } from "../../errors.js";
import { CheckpointError, isCheckpointError, isWorkflowConflictError } from "../../errors.js";
import type { KyselyCheckpointerOptions } from "../../kysely.js";
import type { Serializer } from "../../Serializer.js";
import { serializeStored } from "../../Serializer.js";
import type { SqlDialect } from "../../SqlDialect.js";
import {
  compactSteps,
  decodeWorkflowCursor,
  encodeWorkflowCursor,
  foldSteps,
  resolveListLimit,
  validateStepRecord,
  validateWorkflowId,
} from "../../state.js";
import {
  leaseHeldError,
  unknownWorkflowError,
  validateClaimOptions,
  validateFence,
  validateRenewal,
} from "../leases.js";
import { checkSerializer } from "../options.js";
import { selectRecords } from "../records.js";
import type { AnyDb } from "./layout.js";
import { TableLayout } from "./layout.js";
import type { LeaseContext } from "./leases.js";
import { checkFence, decodeStop, lockInOrder, renewIn, requestStopIn } from "./leases.js";
import type { StepRow, StepSummaryRow, WorkflowRow } from "./rows.js";
import { decodeStep, decodeSummary, decodeWorkflow, encodeStep, normalizeError } from "./rows.js";
import { childIdRange, isPlainIdentifier, LATEST_VERSION, lockKey, MIGRATIONS } from "./schema.js";
import { HotStatements } from "./statements.js";

/** How often a call is retried after meeting a dead pooled connection (one per connection a pool may hold). */
const LOST_CONNECTION_RETRIES = 10;

const WORKFLOW_STATUSES: readonly WorkflowStatus[] = ["running", "completed", "paused", "stopped", "failed"];

/** A lone UTF-16 surrogate cannot be encoded as UTF-8, so a SQL database would silently store U+FFFD instead. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function isStorableText(value: unknown): value is string {
  return typeof value === "string" && value !== "" && !value.includes("\u0000") && !LONE_SURROGATE.test(value);
}

function requireStorableId(id: unknown, operation: string, what = "workflow id"): asserts id is string {
  validateWorkflowId(id, operation);
  if (LONE_SURROGATE.test(id)) {
    throw new CheckpointError({
      message:
        `Invalid ${what} ${JSON.stringify(id)} passed to ${operation}: it contains a lone UTF-16 surrogate, which ` +
        "a SQL database cannot store as UTF-8 text. Use a well-formed string.",
      workflowId: id,
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
  #closed: Promise<void> | undefined;
  readonly #inFlight = new Set<Promise<unknown>>();
  readonly #statements: HotStatements;
  /** What the lease and stop operations need (see `leases.ts`). */
  get #leaseContext(): LeaseContext {
    return { layout: this.dialect, statements: this.#statements, serializer: this.#serializer };
  }

  constructor(options: KyselyCheckpointerOptions, name = "KyselyCheckpointer") {
    this.#name = name;
    const config = (message: string, path: string) =>
      new CheckpointError({ message: `${name}: ${message}`, operation: "constructor", path });
    if (
      typeof options !== "object" ||
      options === null ||
      typeof (options.db as { withoutPlugins?: unknown } | undefined)?.withoutPlugins !== "function"
    ) {
      throw config("options.db must be a Kysely instance.", "db");
    }
    const dialect = options.dialect as SqlDialect | undefined;
    const hooks = ["placeholder", "writeTransaction", "readTransaction", "beginMigration", "storageBytes"] as const;
    if (typeof dialect !== "object" || dialect === null || hooks.some((hook) => typeof dialect[hook] !== "function")) {
      throw config(
        "options.dialect must be a SqlDialect (e.g. sqliteDialect() from @graph/checkpoint-sqlite or " +
          `postgresDialect() from @graph/checkpoint-postgres), got ${describeValue(dialect)}.`,
        "dialect",
      );
    }
    const prefix = options.tablePrefix ?? "graph_";
    if (typeof prefix !== "string" || (prefix !== "" && !isPlainIdentifier(prefix))) {
      throw config(
        `tablePrefix ${JSON.stringify(prefix)} is not a plain SQL identifier; use letters, digits and _ ` +
          '(at most 48 characters, not starting with a digit), e.g. "graph_".',
        "tablePrefix",
      );
    }
    const schema = options.schema;
    if (schema !== undefined) {
      if (!dialect.supportsSchemas) {
        throw config(
          `schema is not supported by the ${dialect.name} dialect; use tablePrefix or another database.`,
          "schema",
        );
      }
      if (typeof schema !== "string" || !isPlainIdentifier(schema)) {
        throw config(
          `schema ${JSON.stringify(schema)} is not a plain SQL identifier; use letters, digits and _ ` +
            '(at most 48 characters, not starting with a digit), e.g. "graph".',
          "schema",
        );
      }
    }
    this.policy = resolvePolicy(options.policy);
    this.dialect = new TableLayout(dialect, schema, prefix);
    // Without plugins: the store reads and writes its own column names (a CamelCasePlugin would rename them).
    this.#db = options.db.withoutPlugins();
    this.#serializer = checkSerializer(options.serializer, name);
    this.#destroyOnClose = options.destroyOnClose ?? true;
    this.#describeError = options.describeError ?? dialect.describeError?.bind(dialect);
    this.#isConnectionLost = options.isConnectionLost ?? dialect.isConnectionLost?.bind(dialect) ?? (() => false);
    this.#statements = new HotStatements(this.dialect);
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
        if (needsSetup) await this.#ensureSetup();
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
    this.#setup ??= this.#migrate().catch((error: unknown) => {
      this.#setup = undefined;
      throw error;
    });
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

  async #migrate(): Promise<void> {
    const d = this.dialect;
    const key = lockKey(`${d.schema ?? ""}.${d.prefix}`);
    await this.#write(async (trx) => {
      await d.dialect.beginMigration(trx, { lockKey: key, schema: d.schema });
      await sql
        .raw(
          `CREATE TABLE IF NOT EXISTS ${d.table("migrations")} (version INTEGER NOT NULL PRIMARY KEY, ` +
            `name TEXT NOT NULL, applied_at ${d.dialect.types.integer} NOT NULL)`,
        )
        .execute(trx);
      const rows = (await d.scoped(trx).selectFrom(d.names.migrations).select("version").execute()) as {
        version: number | string;
      }[];
      const applied = new Set(rows.map((row) => Number(row.version)));
      const newest = Math.max(0, ...applied);
      if (newest > LATEST_VERSION) {
        throw new CheckpointError({
          message:
            `The checkpoint tables (${d.table("workflows")}) were migrated to schema version ${newest} by a newer ` +
            `version of @graph/checkpoint; this one knows up to version ${LATEST_VERSION}. Upgrade ` +
            "@graph/checkpoint (and the adapter) in this application.",
          operation: "setup",
        });
      }
      const context = {
        types: d.dialect.types,
        prefix: d.prefix,
        table: (name: "workflows" | "steps" | "migrations") => d.table(name),
      };
      for (const migration of MIGRATIONS) {
        if (applied.has(migration.version)) continue;
        for (const statement of migration.statements(context)) await sql.raw(statement).execute(trx);
        await d
          .scoped(trx)
          .insertInto(d.names.migrations)
          .values({ version: migration.version, name: migration.name, applied_at: Date.now() })
          .execute();
      }
    });
  }

  /** Deletes a workflow and its children (ids starting with `id + "/"`) inside a transaction. */
  async #deleteTree(trx: AnyDb, id: string): Promise<void> {
    const d = this.dialect;
    const [low, high] = childIdRange(id);
    for (const [table, column] of [
      [d.names.steps, "workflow_id"],
      [d.names.workflows, "id"],
    ] as const) {
      await d
        .scoped(trx)
        .deleteFrom(table)
        .where((eb) => eb.or([eb(column, "=", id), eb.and([eb(column, ">=", low), eb(column, "<", high)])]))
        .execute();
    }
  }

  /** Deletes root workflows (and children) not updated for `ttlMs`, unless running under a live lease. */
  async #pruneExpired(): Promise<number> {
    const ttlMs = this.policy.ttlMs;
    if (ttlMs === undefined) return 0;
    const d = this.dialect;
    const now = Date.now();
    return this.#write(async (trx) => {
      const expired = (await d
        .scoped(trx)
        .selectFrom(d.names.workflows)
        .select("id")
        .where("parent_id", "is", null)
        .where("updated_at", "<=", now - ttlMs)
        .where((eb) =>
          eb.not(
            eb.and([eb("status", "=", "running"), eb("lease_owner", "is not", null), eb("lease_expires_at", ">", now)]),
          ),
        )
        .execute()) as { id: string }[];
      for (const { id } of expired) await this.#deleteTree(trx, id);
      return expired.length;
    });
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
      if (typeof workflow !== "object" || workflow === null) {
        throw new CheckpointError({
          message: "createWorkflow expects { id, graphName, graphHash }.",
          operation: "createWorkflow",
        });
      }
      requireStorableId(workflow.id, "createWorkflow");
      for (const field of ["graphName", "graphHash"] as const) {
        if (typeof workflow[field] !== "string" || workflow[field].includes("\u0000")) {
          throw new CheckpointError({
            message: `createWorkflow('${workflow.id}'): ${field} must be a string without NUL characters.`,
            workflowId: workflow.id,
            operation: "createWorkflow",
            path: field,
          });
        }
      }
      if (workflow.parentId !== undefined) requireStorableId(workflow.parentId, "createWorkflow", "parent id");
      await this.#pruneExpired();
      const d = this.dialect;
      const now = Date.now();
      const { row, created } = await this.#write(async (trx) => {
        const inserted = (await d
          .scoped(trx)
          .insertInto(d.names.workflows)
          .values({
            id: workflow.id,
            status: "running",
            graph_name: workflow.graphName,
            graph_hash: workflow.graphHash,
            parent_id: workflow.parentId ?? null,
            last_superstep: -1,
            step_count: 0,
            lease_epoch: 0,
            created_at: now,
            updated_at: now,
          })
          .onConflict((oc) => oc.column("id").doNothing())
          .returningAll()
          .executeTakeFirst()) as WorkflowRow | undefined;
        if (inserted !== undefined) return { row: inserted, created: true };
        const existing = (await d
          .scoped(trx)
          .selectFrom(d.names.workflows)
          .selectAll()
          .where("id", "=", workflow.id)
          .executeTakeFirstOrThrow()) as WorkflowRow;
        return { row: existing, created: false };
      });
      return { workflow: decodeWorkflow(row, this.#serializer, "createWorkflow"), created };
    });
  }

  claimWorkflow(id: string, options: { readonly owner: string; readonly ttlMs: number }): Promise<Lease> {
    return this.#run("claimWorkflow", id, async () => {
      requireStorableId(id, "claimWorkflow");
      validateClaimOptions(id, options);
      const d = this.dialect;
      const { owner, ttlMs } = options;
      return this.#write(async (trx) => {
        const now = Date.now();
        const expiresAt = now + Math.ceil(ttlMs);
        // One conditional UPDATE: the database decides atomically who wins. A live lease of the same owner is
        // renewed with its epoch kept (its in-flight fenced writes stay valid), even just after expiry, since nobody
        // claimed in between (a claim changes the owner); any other claim bumps the epoch.
        const claimed = (await trx.executeQuery(this.#statements.claim(id, owner, expiresAt, now))).rows[0] as
          | { lease_epoch: number | string }
          | undefined;
        if (claimed !== undefined) {
          return { workflowId: id, owner, epoch: Number(claimed.lease_epoch), expiresAt: new Date(expiresAt) };
        }
        const current = (await d
          .scoped(trx)
          .selectFrom(d.names.workflows)
          .select(["lease_owner", "lease_expires_at"])
          .where("id", "=", id)
          .executeTakeFirst()) as Pick<WorkflowRow, "lease_owner" | "lease_expires_at"> | undefined;
        if (current === undefined) throw unknownWorkflowError(id, "claimWorkflow");
        throw leaseHeldError(id, current.lease_owner ?? "unknown", new Date(Number(current.lease_expires_at ?? 0)));
      });
    });
  }

  releaseWorkflow(id: string, lease: Pick<Lease, "owner" | "epoch">): Promise<void> {
    return this.#run("releaseWorkflow", id, async () => {
      if (!isStorableText(id) || typeof lease !== "object" || lease === null) return;
      if (typeof lease.owner !== "string" || !Number.isSafeInteger(lease.epoch)) return;
      await this.#write((trx) => trx.executeQuery(this.#statements.release(id, lease.owner, lease.epoch)));
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
      return this.#write((trx) => renewIn(trx, this.#leaseContext, id, lease, options.ttlMs));
    });
  }

  requestStop(id: string, options: { readonly info?: unknown } = {}): Promise<WorkflowRecord | undefined> {
    return this.#run("requestStop", id, async () => {
      if (!isStorableText(id)) return undefined;
      const row = await this.#write((trx) => requestStopIn(trx, this.#leaseContext, id, options?.info));
      return row === undefined ? undefined : decodeWorkflow(row, this.#serializer, "requestStop");
    });
  }

  getStopRequest(id: string): Promise<StopRequest | undefined> {
    return this.#run("getStopRequest", id, async () => {
      if (!isStorableText(id)) return undefined;
      const row = (await this.#read((db) => db.executeQuery(this.#statements.stopRequest(id)))).rows[0] as
        | { stop_requested: string | null }
        | undefined;
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
      const rows = this.#encodeGroup(steps, fence, operation);
      await this.#write(async (trx) => {
        await lockInOrder(trx, this.#statements, [{ steps, fence }]);
        await this.#saveGroup(trx, steps, rows, fence, operation);
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
        .map((group) => ({ ...group, rows: this.#encodeGroup(group.steps, group.fence, operation) }));
      if (encoded.length === 0) return;
      await this.#write(async (trx) => {
        await lockInOrder(trx, this.#statements, encoded);
        for (const group of encoded) await this.#saveGroup(trx, group.steps, group.rows, group.fence, operation);
      });
    });
  }

  /** Validates one workflow's steps and serialises them, before any transaction opens. */
  #encodeGroup(steps: readonly StepRecord[], fence: Fence | undefined, operation: string): StepRow[] {
    const first = steps[0]!;
    const rows = steps.map((step) => {
      validateStepRecord(step);
      requireStorableId(step.workflowId, operation);
      if (LONE_SURROGATE.test(step.nodeName)) requireStorableId(step.nodeName, operation, "node name");
      if (step.workflowId !== first.workflowId) {
        throw new CheckpointError({
          message: `${operation}: every step of one group must belong to one workflow ('${first.workflowId}' and '${step.workflowId}').`,
          operation,
          workflowId: first.workflowId,
        });
      }
      // Serialise before the transaction: a value that cannot be stored leaves nothing behind.
      return encodeStep(step, this.#serializer);
    });
    validateFence(first.workflowId, fence, operation);
    return rows;
  }

  /** Writes one workflow's encoded steps inside `trx`: fence check, upserts, counters, retention. */
  async #saveGroup(
    trx: AnyDb,
    steps: readonly StepRecord[],
    rows: readonly StepRow[],
    fence: Fence | undefined,
    operation: string,
  ): Promise<void> {
    const d = this.dialect;
    const id = steps[0]!.workflowId;
    const q = d.scoped(trx);
    let stepCount = 0;
    let lastSuperstep = -1;
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i]!;
      const workflow = (await trx.executeQuery(this.#statements.lockForStep(id, step.superstep, step.nodeName)))
        .rows[0] as
        | (Pick<WorkflowRow, "lease_epoch" | "lease_owner" | "lease_expires_at" | "last_superstep" | "step_count"> & {
            existing: unknown;
          })
        | undefined;
      if (workflow === undefined) throw unknownWorkflowError(id, operation);
      if (i === 0) {
        await checkFence(trx, this.#statements, id, workflow, fence, operation);
        stepCount = Number(workflow.step_count);
        lastSuperstep = Number(workflow.last_superstep);
      }
      const existence = this.#statements.stepExists(id, step.superstep, step.nodeName);
      const found = existence === undefined ? workflow.existing : (await trx.executeQuery(existence)).rows[0];
      const existing = found === null || found === undefined ? undefined : found;
      await trx.executeQuery(this.#statements.upsertStep(rows[i]!));
      stepCount += existing === undefined ? 1 : 0;
      lastSuperstep = Math.max(lastSuperstep, step.superstep);
      if (this.policy.retention !== "full") {
        const summaries = (
          (await q
            .selectFrom(d.names.steps)
            .select(["superstep", "node_name", "idx", "value_keys"])
            .where("workflow_id", "=", id)
            .execute()) as StepSummaryRow[]
        ).map((summary) => decodeSummary(summary, id));
        for (const doomed of compactSteps(summaries, this.policy)) {
          const deleted = await q
            .deleteFrom(d.names.steps)
            .where("workflow_id", "=", id)
            .where("superstep", "=", doomed.superstep)
            .where("node_name", "=", doomed.nodeName)
            .executeTakeFirst();
          stepCount -= Number(deleted.numDeletedRows);
        }
      }
      // Later steps of the batch read the counters through the same row; keep it current.
      if (i === steps.length - 1 || this.policy.retention !== "full") {
        await trx.executeQuery(this.#statements.afterStep(id, lastSuperstep, stepCount, Date.now()));
      }
    }
  }

  updateWorkflow(id: string, update: WorkflowUpdate, fence?: Fence): Promise<WorkflowRecord> {
    return this.#run("updateWorkflow", id, async () => {
      requireStorableId(id, "updateWorkflow");
      validateFence(id, fence, "updateWorkflow");
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
      if (
        update.graphHash !== undefined &&
        (typeof update.graphHash !== "string" || update.graphHash.includes("\u0000"))
      ) {
        throw new CheckpointError({
          message: `updateWorkflow('${id}'): graphHash must be a string without NUL characters.`,
          workflowId: id,
          operation: "updateWorkflow",
          path: "graphHash",
        });
      }
      // Serialise everything before changing anything.
      const changes: Record<string, string | number | null> = {};
      if (update.status !== undefined) changes["status"] = update.status;
      if (update.graphHash !== undefined) changes["graph_hash"] = update.graphHash;
      if (update.pause !== undefined) {
        changes["pause"] =
          update.pause === null
            ? null
            : serializeStored(this.#serializer, update.pause, {
                workflowId: id,
                ...(typeof update.pause.nodeName === "string" ? { nodeName: update.pause.nodeName } : {}),
                operation: "updateWorkflow",
                path: "pause",
              });
      }
      if (update.error !== undefined) {
        changes["error"] =
          update.error === null
            ? null
            : serializeStored(this.#serializer, normalizeError(update.error), {
                workflowId: id,
                operation: "updateWorkflow",
                path: "error",
              });
      }
      if (update.stopRequested === null) changes["stop_requested"] = null;
      const d = this.dialect;
      const row = await this.#write(async (trx) => {
        const q = d.scoped(trx);
        // A child guarded by its root: lock the root first (the order every multi-row write uses).
        if (fence?.workflowId !== undefined && fence.workflowId !== id) {
          await trx.executeQuery(this.#statements.lockWorkflow(fence.workflowId));
        }
        const workflow = (await trx.executeQuery(this.#statements.lockWorkflow(id))).rows[0] as
          | Pick<WorkflowRow, "lease_epoch" | "lease_owner" | "lease_expires_at">
          | undefined;
        if (workflow === undefined) throw unknownWorkflowError(id, "updateWorkflow");
        await checkFence(trx, this.#statements, id, workflow, fence, "updateWorkflow");
        return (await q
          .updateTable(d.names.workflows)
          .set({ ...changes, updated_at: Date.now() })
          .where("id", "=", id)
          .returningAll()
          .executeTakeFirstOrThrow()) as WorkflowRow;
      });
      return decodeWorkflow(row, this.#serializer, "updateWorkflow");
    });
  }

  getWorkflow(id: string): Promise<WorkflowRecord | undefined> {
    return this.#run("getWorkflow", id, async () => {
      if (!isStorableText(id)) return undefined;
      const d = this.dialect;
      const row = (await this.#read((db) =>
        d.scoped(db).selectFrom(d.names.workflows).selectAll().where("id", "=", id).executeTakeFirst(),
      )) as WorkflowRow | undefined;
      return row === undefined ? undefined : decodeWorkflow(row, this.#serializer, "getWorkflow");
    });
  }

  async #readSteps(
    db: AnyDb,
    id: string,
    throughSuperstep: number | undefined,
    operation: string,
  ): Promise<StepRecord[]> {
    const d = this.dialect;
    let query = d.scoped(db).selectFrom(d.names.steps).selectAll().where("workflow_id", "=", id);
    if (throughSuperstep !== undefined) query = query.where("superstep", "<=", throughSuperstep);
    const rows = (await query.orderBy("idx").orderBy("superstep").execute()) as StepRow[];
    return rows.map((row) => decodeStep(row, this.#serializer, operation));
  }

  getSteps(id: string, options: StepReadOptions = {}): Promise<readonly StepRecord[]> {
    return this.#run("getSteps", id, async () => {
      if (!isStorableText(id)) return [];
      const bound = superstepBound(options?.throughSuperstep, "getSteps", id);
      return selectRecords(await this.#read((db) => this.#readSteps(db, id, bound, "getSteps")), options);
    });
  }

  getState(
    id: string,
    options: { readonly throughSuperstep?: number } = {},
  ): Promise<Readonly<Record<string, unknown>>> {
    return this.#run("getState", id, async () => {
      if (!isStorableText(id)) return {};
      const bound = superstepBound(options?.throughSuperstep, "getState", id);
      const steps = await this.#read((db) => this.#readSteps(db, id, bound, "getState"));
      return foldSteps(steps).values;
    });
  }

  getCheckpoint(id: string, options: { readonly superstep?: number } = {}): Promise<Checkpoint | undefined> {
    return this.#run("getCheckpoint", id, async () => {
      if (!isStorableText(id)) return undefined;
      const bound = superstepBound(options?.superstep, "getCheckpoint", id);
      const d = this.dialect;
      const read = await this.#read((db) =>
        d.read(db, async (trx) => {
          const workflow = (await d
            .scoped(trx)
            .selectFrom(d.names.workflows)
            .select("last_superstep")
            .where("id", "=", id)
            .executeTakeFirst()) as Pick<WorkflowRow, "last_superstep"> | undefined;
          if (workflow === undefined) return undefined;
          return {
            lastSuperstep: Number(workflow.last_superstep),
            steps: await this.#readSteps(trx, id, bound, "getCheckpoint"),
          };
        }),
      );
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
      if (opts.status !== undefined && !WORKFLOW_STATUSES.includes(opts.status)) {
        throw new CheckpointError({
          message: `listWorkflows: status must be one of ${WORKFLOW_STATUSES.join(", ")}, got ${JSON.stringify(opts.status)}.`,
          operation: "listWorkflows",
          path: "status",
        });
      }
      const d = this.dialect;
      let query = d.scoped(this.#db).selectFrom(d.names.workflows).selectAll();
      if (opts.status !== undefined) query = query.where("status", "=", opts.status);
      if (opts.rootsOnly === true) query = query.where("parent_id", "is", null);
      if (after !== undefined) {
        const at = after.createdAt.getTime();
        query = query.where((eb) =>
          eb.or([eb("created_at", ">", at), eb.and([eb("created_at", "=", at), eb("id", ">", after.id)])]),
        );
      }
      const finalQuery = query
        .orderBy("created_at")
        .orderBy("id")
        .limit(limit + 1);
      const rows = (await this.#read(() => finalQuery.execute())) as WorkflowRow[];
      // One corrupt row must not hide every other workflow: it is left out and reported in `skipped`.
      const workflows: WorkflowRecord[] = [];
      const skipped: SkippedWorkflow[] = [];
      for (const row of rows.slice(0, limit)) {
        try {
          workflows.push(decodeWorkflow(row, this.#serializer, "listWorkflows"));
        } catch (error) {
          skipped.push({ id: row.id, error: this.#classify(error, "listWorkflows", row.id) as CheckpointError });
        }
      }
      // The cursor follows the last row read, readable or not, so paging continues past a corrupt one.
      const lastRow = rows.length > limit ? rows[limit - 1] : undefined;
      const createdAt = lastRow === undefined ? Number.NaN : Number(lastRow.created_at);
      return {
        workflows,
        ...(skipped.length === 0 ? {} : { skipped }),
        ...(lastRow !== undefined && Number.isSafeInteger(createdAt)
          ? { nextCursor: encodeWorkflowCursor({ createdAt: new Date(createdAt), id: lastRow.id }) }
          : {}),
      };
    });
  }

  deleteWorkflow(id: string): Promise<void> {
    return this.#run("deleteWorkflow", id, async () => {
      if (!isStorableText(id)) return;
      await this.#write((trx) => this.#deleteTree(trx, id));
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

function describeValue(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? String(value);
  const kind = (value as { kind?: unknown }).kind;
  return typeof kind === "string"
    ? `{ kind: ${JSON.stringify(kind)} } (the descriptor form was replaced by dialect objects)`
    : "an object without the SqlDialect hooks";
}
