/**
 * The PostgreSQL dialect of the SQL store, for `KyselyCheckpointer` over an application's own `Kysely` instance.
 *
 * @module
 */
import type { SqlDialect } from "@graph/checkpoint/kysely";
import { type PostgresDialectOptions, PostgresStoreDialect } from "./internal/dialect.js";

export type { PostgresDialectOptions } from "./internal/dialect.js";

/**
 * The {@link SqlDialect} for PostgreSQL: row locks (`FOR NO KEY UPDATE`), `$n` placeholders, schemas, advisory-lock
 * migrations, `REPEATABLE READ` snapshots and lost-connection detection for `pg`.
 *
 * @example
 * ```ts
 * import pg from "pg";
 * import { Kysely, PostgresDialect } from "kysely";
 * import { KyselyCheckpointer } from "@graph/checkpoint/kysely";
 * import { postgresDialect } from "@graph/checkpoint-postgres";
 *
 * const db = new Kysely<any>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: process.env.DATABASE_URL }) }) });
 * const checkpointer = new KyselyCheckpointer({ db, dialect: postgresDialect(), schema: "graph", destroyOnClose: false });
 * ```
 */
export function postgresDialect(options: PostgresDialectOptions = {}): SqlDialect {
  return new PostgresStoreDialect(options);
}
