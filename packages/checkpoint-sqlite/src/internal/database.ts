/**
 * Opening a better-sqlite3 database the way the checkpointer needs it, and turning SQLite errors into
 * actionable messages.
 */
import fs from "node:fs";
import path from "node:path";
import { CheckpointError } from "@graph/checkpoint";
import Database from "better-sqlite3";
import type { SqliteDatabase, SqliteStatement } from "kysely";

/** Is `file` an in-memory database name? */
export function isMemoryPath(file: string): boolean {
  return file === ":memory:" || file === "";
}

const STATEMENT_CACHE_SIZE = 256;

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function sqliteCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/**
 * Opens (creating parent directories) and configures the database: busy timeout, WAL, `synchronous = NORMAL`,
 * foreign keys. Returns it wrapped with a prepared-statement cache (kysely prepares every query it runs).
 */
export function openDatabase(file: string, busyTimeoutMs: number): CachedDatabase {
  if (!isMemoryPath(file)) fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const db = openNative(file, busyTimeoutMs);
  try {
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    // Takes effect only in a file without tables yet (a new one): deleted rows' pages can then be handed back a
    // batch at a time (the retention sweeper's `PRAGMA incremental_vacuum`) instead of only by a full `VACUUM`.
    db.pragma("auto_vacuum = INCREMENTAL");
    // Switching a fresh file to WAL needs an exclusive lock for a moment; when several processes open a new file
    // at once the switch can report SQLITE_BUSY without waiting, so retry within the busy timeout.
    const deadline = Date.now() + busyTimeoutMs;
    for (;;) {
      try {
        db.pragma("journal_mode = WAL");
        break;
      } catch (error) {
        if (!sqliteCode(error)?.startsWith("SQLITE_BUSY") || Date.now() > deadline) throw error;
        sleepSync(5 + Math.random() * 20);
      }
    }
    db.pragma("synchronous = NORMAL");
    db.pragma("foreign_keys = ON");
  } catch (error) {
    db.close();
    throw error;
  }
  return withStatementCache(db);
}

/**
 * `new Database()`, with the one failure no SQL error describes: better-sqlite3 loads its native binding on the
 * first open, and that binding is missing when its install script never ran (npm 11 runs a dependency's install
 * script only once the project approved it; `--ignore-scripts`) or was built for another Node.js.
 */
function openNative(file: string, busyTimeoutMs: number): Database.Database {
  try {
    return new Database(file, { timeout: busyTimeoutMs });
  } catch (error) {
    const problem = nativeModuleProblem(error);
    if (problem === undefined) throw error;
    throw new CheckpointError({ message: `SqliteCheckpointer: ${problem}`, operation: "open", cause: error });
  }
}

const REBUILD =
  "run `npm rebuild better-sqlite3` in your project (npm 11: approve its install script first with " +
  "`npm approve-scripts better-sqlite3`, or it is skipped; pnpm: `pnpm approve-builds`, then `pnpm rebuild " +
  "better-sqlite3`). It downloads a prebuilt binding, or compiles one (needs Python, make and a C++ compiler).";

/** A sentence for a failed load of better-sqlite3's native binding, or `undefined` for any other error. */
function nativeModuleProblem(error: unknown): string | undefined {
  const message = error instanceof Error ? error.message : "";
  const code = (error as { code?: unknown } | null)?.code;
  // The `bindings` package's error when no better_sqlite3.node exists in any place it looks.
  if (message.startsWith("Could not locate the bindings file")) {
    return `the better-sqlite3 native module is not built: ${REBUILD}`;
  }
  // Node's own error for a binding compiled for another Node.js version (NODE_MODULE_VERSION) or platform.
  if (code === "ERR_DLOPEN_FAILED" && /better_sqlite3\.node|NODE_MODULE_VERSION/.test(message)) {
    return `the better-sqlite3 native module was built for another Node.js version or platform (${message.split("\n")[0]}): ${REBUILD}`;
  }
  return undefined;
}

/**
 * What the store's synchronous path uses of a better-sqlite3 handle and statement. Declared here rather than taken
 * from better-sqlite3's types, so the published declarations do not need `@types/better-sqlite3` installed.
 */
interface RawHandle {
  readonly open: boolean;
  readonly inTransaction: boolean;
}
interface RawStatement {
  readonly reader: boolean;
  all(...parameters: unknown[]): unknown[];
  run(...parameters: unknown[]): { readonly changes: number };
}

/** The database as Kysely's driver takes it, plus the handle itself for the store's synchronous path. */
export interface CachedDatabase extends SqliteDatabase {
  readonly raw: RawHandle;
  /** The cached prepared statement of `sql`. */
  prepare(sql: string): SqliteStatement & RawStatement;
}

function withStatementCache(db: Database.Database): CachedDatabase {
  const cache = new Map<string, SqliteStatement & RawStatement>();
  return {
    raw: db,
    close: () => {
      cache.clear();
      db.close();
    },
    prepare: (sql: string) => {
      let statement = cache.get(sql);
      if (statement === undefined) {
        statement = db.prepare(sql) as unknown as SqliteStatement & RawStatement;
        if (cache.size >= STATEMENT_CACHE_SIZE) {
          const oldest = cache.keys().next().value;
          if (oldest !== undefined) cache.delete(oldest);
        }
        cache.set(sql, statement);
      }
      return statement;
    },
  };
}

/** An actionable sentence for SQLite / file-system errors, or `undefined` for anything else. */
export function describeSqliteError(error: unknown, file: string, busyTimeoutMs: number): string | undefined {
  const code = sqliteCode(error);
  if (code === undefined) return undefined;
  const where = isMemoryPath(file) ? "the in-memory database" : `the SQLite database ${JSON.stringify(file)}`;
  const detail = error instanceof Error ? ` (${code}: ${error.message})` : ` (${code})`;
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) {
    return (
      `${where} stayed locked by another connection for longer than busyTimeoutMs (${busyTimeoutMs} ms)${detail}: ` +
      "another process (or another connection in this one — a second checkpointer, a sqlite3 shell, a backup) held " +
      "a write transaction open that long. Nothing was written; retry the call. Raise busyTimeoutMs " +
      "(new SqliteCheckpointer({ path, busyTimeoutMs })) if such long writers are expected, or find the process " +
      "holding the file open (e.g. fuser or lsof on the file)."
    );
  }
  if (code.startsWith("SQLITE_CANTOPEN") || code === "EACCES" || code === "EPERM" || code === "ENOTDIR") {
    return `cannot open ${where}${detail}. Check that the path is right and that its directory exists and is writable.`;
  }
  if (code.startsWith("SQLITE_NOTADB") || code.startsWith("SQLITE_CORRUPT")) {
    return (
      `${where} is not a SQLite database or is corrupt${detail}. Point path at another file, or restore this one ` +
      "from a backup."
    );
  }
  if (code.startsWith("SQLITE_READONLY")) {
    return `${where} is read-only${detail}. Give the process write access to the file and its directory (WAL needs both).`;
  }
  if (code.startsWith("SQLITE_FULL") || code === "ENOSPC") {
    return `the disk holding ${where} is full${detail}. Free some space; the failed write was rolled back.`;
  }
  if (code.startsWith("SQLITE_IOERR")) {
    return `an I/O error hit ${where}${detail}. Check the disk and file system; the failed write was rolled back.`;
  }
  return undefined;
}
