/**
 * The SQL checkpointer shared by `@graph/checkpoint-sqlite` and `@graph/checkpoint-postgres`: one
 * implementation of the whole {@link Checkpointer} contract over a `Kysely` instance and a {@link SqlDialect}
 * (what differs between databases). Adapters build the `Kysely` instance (driver, pragmas, pool) and their
 * dialect and pass both here; an adapter for another database supplies its own dialect.
 *
 * Tables (names prefixed with `tablePrefix`, default `graph_`; inside `schema` where the dialect supports one):
 * - `workflows` — one row per workflow: status, graph hash, parent, pause/error, lease owner/epoch/expiry,
 *   last superstep, step count, timestamps (ms).
 * - `steps` — one row per (workflow, superstep, node): index, status, input versions, written keys, values
 *   (serializer text), decision, child workflow, pause, error, timestamps. Indexed by (workflow, index).
 * - `node_cache` — node-result cache entries (key, serialised outputs, expiry, last use), shared by every process.
 * - `migrations` — applied schema versions. `setup()` migrates in one transaction, serialised across
 *   processes (SQLite write lock; Postgres advisory lock).
 *
 * Requires `kysely` (an optional peer dependency of this package).
 *
 * @module
 */
import type { Kysely } from "kysely";
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
  StepGroup,
  StepReadOptions,
  StepRecord,
  StopRequest,
  WorkflowFinish,
  WorkflowPage,
  WorkflowRecord,
  WorkflowUpdate,
} from "./Checkpointer.js";
import type { CheckpointPolicy } from "./CheckpointPolicy.js";
import type { CacheEntryWrite } from "./internal/cacheEntries.js";
import { KyselyStore } from "./internal/kysely/store.js";
import type { Serializer } from "./Serializer.js";
import type { ErrorContext, SqlDialect } from "./SqlDialect.js";

export type { AnyKysely, ErrorContext, SqlDialect, SqlResult, SqlTables } from "./SqlDialect.js";

/**
 * Options of {@link KyselyCheckpointer}.
 *
 * @example
 * ```ts
 * import { Kysely, SqliteDialect } from "kysely";
 * import Database from "better-sqlite3";
 * import { sqliteDialect } from "@graph/checkpoint-sqlite";
 * const options: KyselyCheckpointerOptions = {
 *   db: new Kysely({ dialect: new SqliteDialect({ database: new Database("graph.db") }) }),
 *   dialect: sqliteDialect(),
 *   policy: { retention: "latest" },
 * };
 * ```
 */
export interface KyselyCheckpointerOptions {
  readonly db: Kysely<any>;
  /** What differs between databases: `sqliteDialect()`, `postgresDialect()`, or an adapter's own. */
  readonly dialect: SqlDialect;
  /** The schema holding the tables (created by `setup()` if missing), where the dialect supports schemas. */
  readonly schema?: string;
  /** Prefix of every table and index name (letters, digits, `_`). Default `"graph_"`. */
  readonly tablePrefix?: string;
  /** Partial policy; defaults filled by `resolvePolicy` (async + full). Retention and `ttlMs` apply here. */
  readonly policy?: Partial<CheckpointPolicy>;
  /** How values become text. Default: `defaultSerializer`. */
  readonly serializer?: Serializer;
  /** Destroy `db` in `close()`. Default `true`; pass `false` when the application owns the `Kysely` instance. */
  readonly destroyOnClose?: boolean;
  /**
   * Turns a driver error into an actionable sentence (what is wrong and how to fix it), e.g. naming the
   * host and port of a refused connection. Return `undefined` to use the generic message. Default: the dialect's.
   */
  readonly describeError?: (error: unknown, context: ErrorContext) => string | undefined;
  /**
   * Recognises a connection that died (e.g. a pooled connection whose server backend was terminated while it
   * sat idle). Reads, and write transactions that failed before their `BEGIN` went through, are then retried
   * on another connection (up to 10 times, one per dead pooled connection); a transaction that had started is
   * never retried (its caller gets the error). Default: the dialect's.
   */
  readonly isConnectionLost?: (error: unknown) => boolean;
}

/**
 * A {@link Checkpointer} over any `Kysely` instance and a {@link SqlDialect}. Adapters (`SqliteCheckpointer`,
 * `PostgresCheckpointer`) extend it; use it directly to share an application's existing `Kysely` instance.
 *
 * Every write is one transaction: `saveStep` checks the fencing epoch against the workflow row (row-locked where
 * the dialect locks rows, e.g. Postgres; under the write lock on SQLite), upserts the step, updates the workflow and applies retention.
 * `claimWorkflow` is one conditional `UPDATE`, so exactly one of several concurrent claimers — in one
 * process or many — wins. Values are serialised before the transaction opens, so a value that cannot be
 * stored writes nothing.
 *
 * @example
 * ```ts
 * import { KyselyCheckpointer } from "@graph/checkpoint/kysely";
 * import { postgresDialect } from "@graph/checkpoint-postgres";
 * const checkpointer = new KyselyCheckpointer({ db, dialect: postgresDialect(), schema: "graph", destroyOnClose: false });
 * await checkpointer.setup();
 * await checkpointer.createWorkflow({ id: "wf-1", graphName: "rag", graphHash: "abc" });
 * ```
 */
export class KyselyCheckpointer implements Checkpointer {
  /** The resolved policy (retention and `ttlMs` are applied by this store; durability by the runtime). */
  readonly policy: CheckpointPolicy;
  /** The serializer values are stored with (the runtime snapshots async/exit steps with it). */
  readonly serializer: Serializer;
  readonly #store: KyselyStore;

  constructor(options: KyselyCheckpointerOptions) {
    this.#store = new KyselyStore(options, new.target.name);
    this.policy = this.#store.policy;
    this.serializer = this.#store.serializer;
  }

  /** Creates the tables (and schema) or migrates them. Idempotent; safe when several processes call it at once. */
  setup(): Promise<void> {
    return this.#store.setup();
  }

  /**
   * Creates the workflow unless it exists (then returns the stored one with `created: false`); with a `fence`, only
   * while the guarding workflow's lease epoch still matches (see `Checkpointer.createWorkflow`).
   */
  createWorkflow(
    workflow: NewWorkflow,
    fence?: Fence,
  ): Promise<{ readonly workflow: WorkflowRecord; readonly created: boolean }> {
    return this.#store.createWorkflow(workflow, fence);
  }

  /** Takes or renews the exclusive lease; `WorkflowConflictError` while another owner's lease is live. */
  claimWorkflow(id: string, options: ClaimOptions): Promise<Lease> {
    return this.#store.claimWorkflow(id, options);
  }

  /** Gives the lease up (ignored when `owner`/`epoch` no longer match). */
  releaseWorkflow(id: string, lease: Pick<Lease, "owner" | "epoch">): Promise<void> {
    return this.#store.releaseWorkflow(id, lease);
  }

  /** Extends the holder's lease (never re-takes a lost one); carries the pending stop request. */
  renewWorkflow(
    id: string,
    lease: Pick<Lease, "owner" | "epoch">,
    options: { readonly ttlMs: number },
  ): Promise<RenewedLease> {
    return this.#store.renewWorkflow(id, lease, options);
  }

  /** Asks the workflow to stop, from any process (see `Checkpointer.requestStop`). */
  requestStop(id: string, options?: { readonly info?: unknown }): Promise<WorkflowRecord | undefined> {
    return this.#store.requestStop(id, options);
  }

  /** The pending stop request: one primary-key read of one column. */
  getStopRequest(id: string): Promise<StopRequest | undefined> {
    return this.#store.getStopRequest(id);
  }

  /** Upserts one step atomically and applies retention. */
  /** Saves several steps of one workflow in one transaction (all or none). */
  saveSteps(steps: readonly StepRecord[], fence?: Fence): Promise<void> {
    return this.#store.saveSteps(steps, fence);
  }

  /** Saves steps of several workflows in one transaction (all or none), each group under its own fence. */
  saveStepBatch(groups: readonly StepGroup[]): Promise<void> {
    return this.#store.saveStepBatch(groups);
  }

  saveStep(step: StepRecord, fence?: Fence): Promise<void> {
    return this.#store.saveStep(step, fence);
  }

  /** Creates the workflow if missing and claims it, in one transaction (a new workflow is inserted with its lease). */
  startWorkflow(workflow: NewWorkflow, claim: LeaseClaim, steps?: readonly StepRecord[]): Promise<StartedWorkflow> {
    return this.#store.startWorkflow(workflow, claim, steps);
  }

  /** Writes a run's last steps, its final update (fenced) and the lease release in one transaction. */
  finishWorkflow(finish: WorkflowFinish): Promise<WorkflowRecord> {
    return this.#store.finishWorkflow(finish);
  }

  /** Changes status, graph hash, pause or error of a workflow. */
  updateWorkflow(id: string, update: WorkflowUpdate, fence?: Fence): Promise<WorkflowRecord> {
    return this.#store.updateWorkflow(id, update, fence);
  }

  /** The stored workflow, or `undefined`. */
  getWorkflow(id: string): Promise<WorkflowRecord | undefined> {
    return this.#store.getWorkflow(id);
  }

  /** Steps in `index` order, optionally only through a superstep. */
  getSteps(id: string, options?: StepReadOptions): Promise<readonly StepRecord[]> {
    return this.#store.getSteps(id, options);
  }

  /** The fold of step values in `index` order. */
  getState(id: string, options?: { readonly throughSuperstep?: number }): Promise<Readonly<Record<string, unknown>>> {
    return this.#store.getState(id, options);
  }

  /** State, versions and steps through a superstep (default: the latest), read from one snapshot. */
  getCheckpoint(id: string, options?: { readonly superstep?: number }): Promise<Checkpoint | undefined> {
    return this.#store.getCheckpoint(id, options);
  }

  /** Workflows ordered by creation time then id, one page at a time. */
  listWorkflows(options?: ListWorkflowsOptions): Promise<WorkflowPage> {
    return this.#store.listWorkflows(options);
  }

  /** Paused or running workflows due at or before `before`, earliest first (one range read of an index). */
  listDue(options: { readonly before: Date; readonly limit?: number }): Promise<readonly DueWorkflow[]> {
    return this.#store.listDue(options);
  }

  /** The earliest due time of a paused or running workflow. */
  nextDue(): Promise<Date | undefined> {
    return this.#store.nextDue();
  }

  /** Ids of the paused workflows waiting for exactly this event and key, oldest first. */
  listWaiting(wait: EventWait, options?: { readonly limit?: number }): Promise<readonly string[]> {
    return this.#store.listWaiting(wait, options);
  }

  /** Stores a graph's structure under its definition hash, once (see `Checkpointer.putGraphStructure`). */
  putGraphStructure(hash: string, structure: string): Promise<void> {
    return this.#store.putGraphStructure(hash, structure);
  }

  /** The structure stored under `hash`, or `undefined`. */
  getGraphStructure(hash: string): Promise<string | undefined> {
    return this.#store.getGraphStructure(hash);
  }

  /** A node-cache entry's text, or `undefined` (see `Checkpointer.readCacheEntry`). */
  readCacheEntry(key: string, now: number): Promise<string | undefined> {
    return this.#store.readCacheEntry(key, now);
  }

  /** Stores a node-cache entry, then expires and evicts (see `Checkpointer.writeCacheEntry`). */
  writeCacheEntry(key: string, value: string, write: CacheEntryWrite): Promise<void> {
    return this.#store.writeCacheEntry(key, value, write);
  }

  /** Deletes the workflow, its steps and its child workflows (ids starting with `id + "/"`). */
  deleteWorkflow(id: string): Promise<void> {
    return this.#store.deleteWorkflow(id);
  }

  /**
   * Deletes every workflow not updated for `policy.ttlMs` (unless running under a live lease), in batches of short
   * writes, and returns how many root workflows went. Never called by runs: the runner's housekeeping sweeps.
   */
  pruneExpired(): Promise<number> {
    return this.#store.pruneExpired();
  }

  /** One batch of retention housekeeping: at most `limit` (200) root workflows (see `Checkpointer.sweepExpired`). */
  sweepExpired(options?: { readonly limit?: number }): Promise<number> {
    return this.#store.sweepExpired(options);
  }

  /**
   * Bytes the checkpoint tables occupy. SQLite: the database's used pages. Postgres: the size
   * of the stored rows (`pg_column_size`). Meant for storage-growth checks, not for billing.
   */
  storageBytes(): Promise<number> {
    return this.#store.storageBytes();
  }

  /** Waits for operations in flight, then destroys the `Kysely` instance (unless `destroyOnClose: false`). */
  close(): Promise<void> {
    return this.#store.close();
  }
}
