/**
 * `@graph/checkpoint-sqlite` — the SQLite checkpointer (kysely + better-sqlite3), the embedded default.
 *
 * @module
 */

export { type SqliteDialectOptions, sqliteDialect } from "./dialect.js";
export type { SqliteCheckpointerOptions } from "./SqliteCheckpointer.js";
export { SqliteCheckpointer } from "./SqliteCheckpointer.js";
