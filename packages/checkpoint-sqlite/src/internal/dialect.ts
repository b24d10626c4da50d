/** Free pages returned to the file system after one sweep batch (4 MiB at the default page size). */
const RECLAIM_PAGES = 1024;

/**
 * The SQLite side of the SQL store: write transactions take the database write lock up front (`BEGIN IMMEDIATE`),
 * so a transaction that reads and then writes can never fail half-way with SQLITE_BUSY when another process wrote
 * in between (the busy timeout makes it wait instead). That lock excludes every other writer, so no row locks are
 * needed. Migrations rely on it too. Reads use a deferred transaction (a WAL snapshot).
 */
import type { AnyKysely, ErrorContext, SqlDialect, SqlResult, SqlTables } from "@graph/checkpoint/kysely";
import { CompiledQuery, sql } from "kysely";
import type { CachedDatabase } from "./database.js";

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

/** Options of the SQLite dialect. */
export interface SqliteDialectOptions {
  /**
   * Checkpointers of one process with the same key (use the resolved database file path) queue their write
   * transactions in-process. Needed when one process opens several connections to one file: better-sqlite3 waits
   * for SQLite's lock synchronously, which would otherwise block the event loop the lock holder needs to commit.
   */
  readonly writeLockKey?: string;
  /** Turns a driver error into an actionable sentence (e.g. naming the file), or `undefined`. */
  readonly describeError?: (error: unknown, context: ErrorContext) => string | undefined;
  /**
   * The database the Kysely instance runs on (opened on first use). With it, the store's own statements run
   * synchronously whenever no async transaction of this process is open on it (see `SqlDialect.writeNow`).
   */
  readonly database?: () => CachedDatabase;
}

/** The SQLite {@link SqlDialect}. */
export class SqliteStoreDialect implements SqlDialect {
  readonly name = "sqlite";
  readonly supportsSchemas = false;
  // SQLite integers are 64-bit; TEXT compares with the BINARY collation (bytewise UTF-8).
  readonly types = { integer: "INTEGER", key: "TEXT" } as const;
  readonly rowLock = "";
  readonly readsBeforeLockWait = false;
  readonly #writeLockKey: string | undefined;
  readonly #describeError: SqliteDialectOptions["describeError"];
  readonly #database: SqliteDialectOptions["database"];

  constructor(options: SqliteDialectOptions = {}) {
    this.#writeLockKey = options.writeLockKey;
    this.#describeError = options.describeError;
    this.#database = options.database;
  }

  placeholder(): string {
    return "?";
  }

  writeTransaction<T>(db: AnyKysely, body: (trx: AnyKysely) => Promise<T>): Promise<T> {
    const key = this.#writeLockKey;
    return key === undefined ? immediate(db, body) : exclusive(key, () => immediate(db, body));
  }

  /**
   * The whole transaction in one synchronous call, when the database is free right now: no transaction of this
   * connection is open (an async one awaits between its statements) and no checkpointer of this process sharing
   * the file is queued for the write lock. Other processes are waited for by SQLite's busy timeout, as always.
   */
  writeNow<T>(_db: AnyKysely, body: (execute: (query: CompiledQuery) => SqlResult) => T): { value: T } | undefined {
    const database = this.#free();
    if (database === undefined) return undefined;
    database.prepare("BEGIN IMMEDIATE").run();
    try {
      const value = body((query) => execute(database, query));
      database.prepare("COMMIT").run();
      return { value };
    } catch (error) {
      if (database.raw.inTransaction) database.prepare("ROLLBACK").run();
      throw error;
    }
  }

  /** One read statement in one synchronous call, when no transaction of this connection is open. */
  readNow(_db: AnyKysely, query: CompiledQuery): SqlResult | undefined {
    const database = this.#free();
    return database === undefined ? undefined : execute(database, query);
  }

  #free(): CachedDatabase | undefined {
    const database = this.#database?.();
    if (database === undefined || !database.raw.open || database.raw.inTransaction) return undefined;
    const key = this.#writeLockKey;
    return key !== undefined && writeQueues.has(key) ? undefined : database;
  }

  readTransaction<T>(db: AnyKysely, body: (trx: AnyKysely) => Promise<T>): Promise<T> {
    return db.transaction().execute(body);
  }

  async beginMigration(): Promise<void> {
    // The write transaction's lock already serialises concurrent setup() calls; SQLite has no schemas.
  }

  /** The size of the database's used pages (page_count - freelist_count), as this connection sees it. */
  storageBytes(db: AnyKysely, _tables: SqlTables): Promise<number> {
    return db.connection().execute(async (connection) => {
      const pages = await sql<{ page_count: number }>`PRAGMA page_count`.execute(connection);
      const free = await sql<{ freelist_count: number }>`PRAGMA freelist_count`.execute(connection);
      const size = await sql<{ page_size: number }>`PRAGMA page_size`.execute(connection);
      const used = Number(pages.rows[0]?.page_count ?? 0) - Number(free.rows[0]?.freelist_count ?? 0);
      return used * Number(size.rows[0]?.page_size ?? 0);
    });
  }

  /**
   * Returns free pages to the file system, a bounded number per sweep batch (a database created with
   * `auto_vacuum = INCREMENTAL`; on an older file, without it, this does nothing and only `VACUUM` shrinks it).
   */
  async reclaimSpace(trx: AnyKysely): Promise<void> {
    await sql`PRAGMA incremental_vacuum(${sql.raw(String(RECLAIM_PAGES))})`.execute(trx);
  }

  describeError(error: unknown, context: ErrorContext): string | undefined {
    return this.#describeError?.(error, context);
  }
}

function execute(database: CachedDatabase, query: CompiledQuery): SqlResult {
  const statement = database.prepare(query.sql);
  if (statement.reader) return { rows: statement.all(...(query.parameters as unknown[])) };
  const { changes } = statement.run(...(query.parameters as unknown[]));
  return { rows: [], numAffectedRows: BigInt(changes) };
}

function immediate<T>(db: AnyKysely, body: (trx: AnyKysely) => Promise<T>): Promise<T> {
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
