/**
 * `@graph/checkpoint-postgres` — the PostgreSQL checkpointer (kysely + pg).
 *
 * @module
 */

export { type PostgresDialectOptions, postgresDialect } from "./dialect.js";
export type {
  PostgresCheckpointerOptions,
  PostgresCommonOptions,
  PostgresConnectionStringOptions,
  PostgresKyselyOptions,
  PostgresPoolOptions,
  PostgresTimeouts,
} from "./PostgresCheckpointer.js";
export { PostgresCheckpointer } from "./PostgresCheckpointer.js";
