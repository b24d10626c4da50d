/**
 * The few places where SQLite and Postgres differ, as small hooks. Everything else (every query of the store)
 * is written once against kysely's query builder.
 *
 * - Write transactions: SQLite takes the database write lock up front (`BEGIN IMMEDIATE`), so a transaction
 *   that reads and then writes can never fail half-way with SQLITE_BUSY when another process wrote in between;
 *   the busy timeout makes it wait instead. Postgres uses an ordinary transaction plus row locks.
 * - Row locks: `SELECT … FOR NO KEY UPDATE` on Postgres (it does not block the foreign-key checks of step
 *   inserts); nothing on SQLite, where the transaction already holds the only write lock.
 * - Migrations: Postgres serialises concurrent `setup()` calls with `pg_advisory_xact_lock` and creates the
 *   schema; SQLite relies on the write lock.
 * - Read snapshots: `REPEATABLE READ` on Postgres; a deferred transaction (a WAL snapshot) on SQLite.
 */

import type { Kysely, SelectQueryBuilder } from "kysely";
import { CompiledQuery, sql } from "kysely";
import type { TableNames } from "./schema.js";
import { quoteIdentifier, tableNames } from "./schema.js";

/** The SQL dialects the store supports. */
export type DialectKind = "sqlite" | "postgres";

// Kysely's `Kysely<any>`: the store addresses tables whose names depend on the configured prefix.
export type AnyDb = Kysely<any>;

const BEGIN_IMMEDIATE = CompiledQuery.raw("BEGIN IMMEDIATE");
const COMMIT = CompiledQuery.raw("COMMIT");
const ROLLBACK = CompiledQuery.raw("ROLLBACK");

const writeQueues = new Map<string, Promise<void>>();

/**
 * Runs `body` after every earlier body queued under `key` in this process has finished. Used for SQLite write
 * transactions of several checkpointers on one file in one process: better-sqlite3 waits for a busy database
 * synchronously, so a second connection's `BEGIN IMMEDIATE` would block the event loop while the first
 * connection's transaction — which needs the event loop to finish — holds the lock (a deadlock until the busy
 * timeout). Queueing in-process first avoids that; other processes are still handled by SQLite's lock.
 */
async function exclusive<T>(key: string, body: () => Promise<T>): Promise<T> {
  const previous = writeQueues.get(key) ?? Promise.resolve();
  let release: () => void = () => undefined;
  const current = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous.then(() => current);
  writeQueues.set(key, tail);
  await previous;
  try {
    return await body();
  } finally {
    release();
    if (writeQueues.get(key) === tail) writeQueues.delete(key);
  }
}

/** The dialect hooks and naming of one store instance. */
export class SqlDialect {
  readonly kind: DialectKind;
  readonly schema: string | undefined;
  readonly prefix: string;
  readonly names: TableNames;
  readonly #writeLockKey: string | undefined;

  constructor(kind: DialectKind, schema: string | undefined, prefix: string, writeLockKey?: string) {
    this.kind = kind;
    this.schema = schema;
    this.prefix = prefix;
    this.names = tableNames(prefix);
    this.#writeLockKey = writeLockKey;
  }

  /** The query creator scoped to the configured schema. */
  scoped(db: AnyDb): AnyDb {
    return this.schema === undefined ? db : db.withSchema(this.schema);
  }

  /** A quoted, schema-qualified table reference for raw SQL. */
  table(name: keyof TableNames): string {
    const table = quoteIdentifier(this.names[name]);
    return this.schema === undefined ? table : `${quoteIdentifier(this.schema)}.${table}`;
  }

  /** Runs `body` in a write transaction (see the module comment). */
  async write<T>(db: AnyDb, body: (trx: AnyDb) => Promise<T>): Promise<T> {
    if (this.kind === "postgres") return db.transaction().execute(body);
    const key = this.#writeLockKey;
    return key === undefined ? this.#sqliteWrite(db, body) : exclusive(key, () => this.#sqliteWrite(db, body));
  }

  #sqliteWrite<T>(db: AnyDb, body: (trx: AnyDb) => Promise<T>): Promise<T> {
    return db.connection().execute(async (connection) => {
      await connection.executeQuery(BEGIN_IMMEDIATE);
      let result: T;
      try {
        result = await body(connection);
        await connection.executeQuery(COMMIT);
      } catch (error) {
        await connection.executeQuery(ROLLBACK).catch(() => undefined);
        throw error;
      }
      return result;
    });
  }

  /** Runs `body` on one consistent snapshot. */
  async read<T>(db: AnyDb, body: (trx: AnyDb) => Promise<T>): Promise<T> {
    if (this.kind === "postgres") {
      return db.transaction().setIsolationLevel("repeatable read").setAccessMode("read only").execute(body);
    }
    return db.transaction().execute(body);
  }

  /** Adds the row lock of a read-then-write (a no-op on SQLite). */
  lock<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O> {
    return this.kind === "postgres" ? query.forNoKeyUpdate() : query;
  }

  /**
   * Serialises concurrent migrations and makes sure the schema exists. Runs first inside the migration
   * transaction.
   */
  async beginMigration(trx: AnyDb, key: number): Promise<void> {
    if (this.kind !== "postgres") return;
    // Class id 0x67726170 ("grap") keeps our locks apart from an application's own advisory locks.
    await sql`SELECT pg_advisory_xact_lock(${0x67726170}::int4, ${key}::int4)`.execute(trx);
    if (this.schema === undefined) return;
    const exists = await sql<{
      found: number;
    }>`SELECT 1 AS found FROM pg_namespace WHERE nspname = ${this.schema}`.execute(trx);
    if (exists.rows.length === 0)
      await sql.raw(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(this.schema)}`).execute(trx);
  }

  /**
   * Bytes stored by the store's tables, for storage-growth checks. SQLite: the size of the database's used
   * pages (page_count - freelist_count). Postgres: the size of the stored row tuples (`pg_column_size`), which —
   * unlike relation sizes — shrinks when retention deletes rows and does not jump in 8 KB pages.
   */
  async storageBytes(db: AnyDb): Promise<number> {
    if (this.kind === "postgres") {
      const result = await sql<{ bytes: string | number | null }>`
        SELECT (SELECT coalesce(sum(pg_column_size(w.*)), 0) FROM ${sql.raw(this.table("workflows"))} w)
             + (SELECT coalesce(sum(pg_column_size(s.*)), 0) FROM ${sql.raw(this.table("steps"))} s) AS bytes`.execute(
        db,
      );
      return Number(result.rows[0]?.bytes ?? 0);
    }
    // page_count and freelist_count describe the database as this connection sees it (WAL frames included).
    return db.connection().execute(async (connection) => {
      const pages = await sql<{ page_count: number }>`PRAGMA page_count`.execute(connection);
      const free = await sql<{ freelist_count: number }>`PRAGMA freelist_count`.execute(connection);
      const size = await sql<{ page_size: number }>`PRAGMA page_size`.execute(connection);
      const used = Number(pages.rows[0]?.page_count ?? 0) - Number(free.rows[0]?.freelist_count ?? 0);
      return used * Number(size.rows[0]?.page_size ?? 0);
    });
  }
}
