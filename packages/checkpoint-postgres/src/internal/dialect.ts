/**
 * The PostgreSQL side of the SQL store:
 * - write transactions are ordinary (READ COMMITTED) transactions; a read-then-write locks the workflow row with
 *   `SELECT … FOR NO KEY UPDATE`, which does not block the foreign-key checks of step inserts;
 * - a statement that waited for that lock reads other tables from its older snapshot, so whether a step exists is
 *   asked in a separate statement (`readsBeforeLockWait`);
 * - migrations serialise concurrent `setup()` calls with `pg_advisory_xact_lock` and create the schema;
 * - read snapshots are `REPEATABLE READ, READ ONLY`;
 * - ids are `TEXT COLLATE "C"` (bytewise order, like SQLite's BINARY) and timestamps `BIGINT`.
 */
import type { AnyKysely, ErrorContext, SqlDialect, SqlResult, SqlTables } from "@graph/checkpoint/kysely";
import { type CompiledQuery, sql } from "kysely";
import { isConnectionLost } from "./connection.js";
import { APPLICATION_NAME, lockHolders } from "./lockHolders.js";

/** Options of the PostgreSQL dialect. */
export interface PostgresDialectOptions {
  /** Turns a driver error into an actionable sentence (e.g. naming host and port), or `undefined`. */
  readonly describeError?: (error: unknown, context: ErrorContext) => string | undefined;
}

function quote(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** The PostgreSQL {@link SqlDialect}. */
export class PostgresStoreDialect implements SqlDialect {
  readonly name = "postgres";
  readonly supportsSchemas = true;
  readonly types = { integer: "BIGINT", key: 'TEXT COLLATE "C"' } as const;
  readonly rowLock = " FOR NO KEY UPDATE OF w";
  readonly readsBeforeLockWait = true;
  // A row an INSERT … ON CONFLICT DO UPDATE inserted has no deleting/locking transaction yet.
  readonly insertedExpression = "(xmax = 0)";
  readonly writableCte = true;
  readonly #describeError: PostgresDialectOptions["describeError"];

  constructor(options: PostgresDialectOptions = {}) {
    this.#describeError = options.describeError;
  }

  placeholder(index: number): string {
    return `$${index}`;
  }

  writeTransaction<T>(db: AnyKysely, body: (trx: AnyKysely) => Promise<T>): Promise<T> {
    return db.transaction().execute(body);
  }

  async writeStatement(db: AnyKysely, query: CompiledQuery): Promise<SqlResult> {
    return (await db.executeQuery(query)) as SqlResult;
  }

  readTransaction<T>(db: AnyKysely, body: (trx: AnyKysely) => Promise<T>): Promise<T> {
    return db.transaction().setIsolationLevel("repeatable read").setAccessMode("read only").execute(body);
  }

  async beginMigration(
    trx: AnyKysely,
    context: { readonly lockKey: number; readonly schema: string | undefined },
  ): Promise<void> {
    // Class id 0x67726170 ("grap") keeps our locks apart from an application's own advisory locks.
    await sql`SELECT pg_advisory_xact_lock(${0x67726170}::int4, ${context.lockKey}::int4)`.execute(trx);
    if (context.schema === undefined) return;
    const exists = await sql<{
      found: number;
    }>`SELECT 1 AS found FROM pg_namespace WHERE nspname = ${context.schema}`.execute(trx);
    if (exists.rows.length === 0) await sql.raw(`CREATE SCHEMA IF NOT EXISTS ${quote(context.schema)}`).execute(trx);
  }

  /**
   * The size of the stored row tuples (`pg_column_size`), which — unlike relation sizes — shrinks when retention
   * deletes rows and does not jump in 8 KB pages.
   */
  async storageBytes(db: AnyKysely, tables: SqlTables): Promise<number> {
    const result = await sql<{ bytes: string | number | null }>`
      SELECT (SELECT coalesce(sum(pg_column_size(w.*)), 0) FROM ${sql.raw(tables.workflows)} w)
           + (SELECT coalesce(sum(pg_column_size(s.*)), 0) FROM ${sql.raw(tables.steps)} s) AS bytes`.execute(db);
    return Number(result.rows[0]?.bytes ?? 0);
  }

  describeError(error: unknown, context: ErrorContext): string | undefined {
    return this.#describeError?.(error, context);
  }

  /** After a lock timeout (55P03): which sessions held locks on the store's tables (see `lockHolders`). */
  async explainError(db: AnyKysely, error: unknown, tables: SqlTables): Promise<string | undefined> {
    const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
    return code === "55P03" ? lockHolders(db, tables) : undefined;
  }

  /** Names the transaction's role in `application_name` (reset at commit), so other sessions see who holds locks. */
  async labelTransaction(trx: AnyKysely, role: string): Promise<void> {
    await sql`SELECT set_config('application_name', ${`${APPLICATION_NAME} ${role}`}, true)`.execute(trx);
  }

  isConnectionLost(error: unknown): boolean {
    return isConnectionLost(error);
  }
}
