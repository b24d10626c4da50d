/**
 * The SQLite dialect of the SQL store, for `KyselyCheckpointer` over an application's own SQLite `Kysely` instance.
 *
 * @module
 */
import type { SqlDialect } from "@graph/checkpoint/kysely";
import { type SqliteDialectOptions, SqliteStoreDialect } from "./internal/dialect.js";

export type { SqliteDialectOptions } from "./internal/dialect.js";

/**
 * The {@link SqlDialect} for SQLite (better-sqlite3 or any driver with SQLite semantics, e.g. libSQL): `BEGIN
 * IMMEDIATE` write transactions, `?` placeholders, no schemas, `PRAGMA`-based storage accounting.
 *
 * @example
 * ```ts
 * import Database from "better-sqlite3";
 * import { Kysely, SqliteDialect } from "kysely";
 * import { KyselyCheckpointer } from "@graph/checkpoint/kysely";
 * import { sqliteDialect } from "@graph/checkpoint-sqlite";
 *
 * const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new Database("app.db") }) });
 * const checkpointer = new KyselyCheckpointer({ db, dialect: sqliteDialect(), destroyOnClose: false });
 * ```
 */
export function sqliteDialect(options: SqliteDialectOptions = {}): SqlDialect {
  return new SqliteStoreDialect(options);
}
