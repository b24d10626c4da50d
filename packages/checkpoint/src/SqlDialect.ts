/**
 * The open interface between the SQL store (`KyselyCheckpointer`) and one database. Everything the store does is
 * written once; what differs between databases — transactions and locking, column types, placeholders, upsert
 * syntax, migration locking, storage accounting, error classification — comes from a {@link SqlDialect}.
 * `@graph/checkpoint-sqlite` and `@graph/checkpoint-postgres` each ship one; an adapter for another database is a
 * new package with its own dialect that passes `@graph/checkpoint-conformance`.
 *
 * @module
 */
import type { CompiledQuery, Kysely } from "kysely";

/**
 * A `Kysely` instance or transaction over any database type (the store addresses tables whose names depend on the
 * configured prefix).
 *
 * @example
 * ```ts
 * const run = (db: AnyKysely) => db.selectFrom("graph_workflows").select("id").execute();
 * ```
 */
export type AnyKysely = Kysely<any>;

/**
 * Quoted, schema-qualified references of the store's tables, ready for raw SQL.
 *
 * @example
 * ```ts
 * const tables: SqlTables = { workflows: '"graph"."workflows"', steps: '"graph"."steps"', migrations: '"graph"."migrations"' };
 * ```
 */
export interface SqlTables {
  readonly workflows: string;
  readonly steps: string;
  readonly migrations: string;
}

/**
 * The result of one statement run through {@link SqlDialect.writeNow} / {@link SqlDialect.readNow}: its rows
 * (empty for statements without rows) and, for writes, how many rows changed.
 *
 * @example
 * ```ts
 * const result: SqlResult = { rows: [{ id: "wf-1" }], numAffectedRows: 1n };
 * ```
 */
export interface SqlResult {
  readonly rows: readonly unknown[];
  readonly numAffectedRows?: bigint;
}

/**
 * Where a driver error happened, for {@link SqlDialect.describeError}.
 *
 * @example
 * ```ts
 * const context: ErrorContext = { operation: "saveStep", workflowId: "wf-1" };
 * ```
 */
export interface ErrorContext {
  readonly operation: string;
  readonly workflowId?: string;
}

/**
 * What the store needs from one SQL database. The store writes every query once with `?` placeholders and double
 * quoted identifiers, and uses `INSERT … ON CONFLICT` and `RETURNING` (through kysely); a dialect supplies the rest.
 *
 * @example
 * ```ts
 * import type { SqlDialect } from "@graph/checkpoint/kysely";
 * import { KyselyCheckpointer } from "@graph/checkpoint/kysely";
 *
 * const libsql: SqlDialect = {
 *   name: "libsql",
 *   supportsSchemas: false,
 *   types: { integer: "INTEGER", key: "TEXT" },
 *   placeholder: () => "?",
 *   rowLock: "",
 *   readsBeforeLockWait: false,
 *   writeTransaction: (db, body) => db.transaction().execute(body),
 *   readTransaction: (db, body) => db.transaction().execute(body),
 *   beginMigration: async () => undefined,
 *   storageBytes: async () => 0,
 * };
 * const checkpointer = new KyselyCheckpointer({ db, dialect: libsql });
 * ```
 */
export interface SqlDialect {
  /** Short name used in messages, e.g. `"sqlite"`. */
  readonly name: string;
  /** Whether tables may live in a named schema (the store's `schema` option). */
  readonly supportsSchemas: boolean;
  /**
   * Column types of the schema: `integer` must hold millisecond timestamps (64-bit); `key` is the text type of id
   * columns, compared bytewise (UTF-8 order), so child-id ranges and ordering match on every database.
   */
  readonly types: { readonly integer: string; readonly key: string };
  /** The driver's placeholder for the `index`-th parameter (1-based): `?` or `$1`. */
  placeholder(index: number): string;
  /**
   * Appended to `SELECT … FROM <workflows> w WHERE w.id = ?` in read-then-write transactions to lock the workflow
   * row, e.g. `" FOR NO KEY UPDATE OF w"`; `""` when a write transaction already excludes every other writer.
   */
  readonly rowLock: string;
  /**
   * True when a statement that waited for a row lock still reads other tables from the snapshot it took before the
   * wait (PostgreSQL under READ COMMITTED). The store then asks whether a step exists in a separate statement
   * issued after the lock is held.
   */
  readonly readsBeforeLockWait: boolean;
  /**
   * The upsert of one step row: insert `columns`, or on a conflict of `key` replace the other columns. Default:
   * `INSERT … ON CONFLICT (key) DO UPDATE SET c = excluded.c`.
   */
  upsert?(table: string, columns: readonly string[], key: readonly string[]): string;
  /**
   * Optional: an SQL expression, valid in the `RETURNING` list of the step upsert, that is true for a row the upsert
   * inserted and false for one it updated (PostgreSQL: `(xmax = 0)`). With it the store counts new steps from the
   * upsert itself instead of asking which steps exist first (one round trip less per write).
   */
  readonly insertedExpression?: string;
  /**
   * Optional: true when the database runs `INSERT`/`UPDATE` inside `WITH` (PostgreSQL). With
   * {@link SqlDialect.insertedExpression}, a fenced write of one step is then one statement in its transaction: the
   * row lock and fence check, the upsert and the workflow's counters together.
   */
  readonly writableCte?: boolean;
  /**
   * Optional: runs one write statement atomically on its own, outside a transaction (autocommit). The store uses it
   * for writes that are a single statement in the common case (creating and claiming a new workflow): one round
   * trip instead of three. Without it such writes run in {@link SqlDialect.writeTransaction}.
   */
  writeStatement?(db: AnyKysely, query: CompiledQuery): Promise<SqlResult>;
  /** Runs `body` in a write transaction (committed when it resolves, rolled back when it rejects). */
  writeTransaction<T>(db: AnyKysely, body: (trx: AnyKysely) => Promise<T>): Promise<T>;
  /**
   * Optional: runs `body` in a write transaction synchronously, executing each statement with `execute`, when the
   * database can take it right now (nothing else of this process is inside a transaction on it), and returns
   * `{ value }`; returns `undefined` without running anything otherwise, and the store uses
   * {@link SqlDialect.writeTransaction}. A driver whose statements run synchronously (better-sqlite3) saves a
   * promise per statement this way. Must commit when `body` returns and roll back when it throws.
   */
  writeNow?<T>(
    db: AnyKysely,
    body: (execute: (query: CompiledQuery) => SqlResult) => T,
  ): { readonly value: T } | undefined;
  /** Optional: like {@link SqlDialect.writeNow} for one read statement outside a transaction. */
  readNow?(db: AnyKysely, query: CompiledQuery): SqlResult | undefined;
  /** Runs `body` on one consistent read snapshot. */
  readTransaction<T>(db: AnyKysely, body: (trx: AnyKysely) => Promise<T>): Promise<T>;
  /**
   * The first statements of the migration transaction: serialise concurrent `setup()` calls of several processes
   * (`lockKey` identifies schema + table prefix) and create `schema` when one is configured.
   */
  beginMigration(
    trx: AnyKysely,
    context: { readonly lockKey: number; readonly schema: string | undefined },
  ): Promise<void>;
  /** Bytes the two tables occupy, for storage-growth checks. */
  storageBytes(db: AnyKysely, tables: SqlTables): Promise<number>;
  /**
   * Optional: gives space freed by deletions back, run (in a write transaction) after a retention sweep deleted
   * something — e.g. SQLite's `PRAGMA incremental_vacuum`. Absent: the database reuses freed space itself.
   */
  reclaimSpace?(trx: AnyKysely): Promise<void>;
  /** Turns a driver error into an actionable sentence (what is wrong, how to fix it), or `undefined`. */
  describeError?(error: unknown, context: ErrorContext): string | undefined;
  /**
   * Optional: evidence looked up in the database after a call failed, appended to its message — e.g. which
   * sessions held the lock a statement timed out on. Runs only on the error path, on a fresh connection; returns
   * `undefined` when it has nothing to add. A failing or slow look-up is ignored.
   */
  explainError?(db: AnyKysely, error: unknown, tables: SqlTables): Promise<string | undefined>;
  /**
   * Optional: marks a write transaction with the role of the code running it (e.g. `"sweeper"`), so a lock holder
   * seen from another session can be told apart — PostgreSQL sets `application_name` for the transaction.
   */
  labelTransaction?(trx: AnyKysely, role: string): Promise<void>;
  /**
   * Recognises a connection that died (a pooled connection whose server backend went away). Reads, and writes whose
   * transaction had not begun, are then retried on another connection.
   */
  isConnectionLost?(error: unknown): boolean;
}
