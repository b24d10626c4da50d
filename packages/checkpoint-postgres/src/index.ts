/**
 * `@graph/checkpoint-postgres` — the PostgreSQL checkpointer (kysely + pg).
 *
 * @module
 */
export { PostgresCheckpointer } from "./PostgresCheckpointer.js";
export type {
  PostgresCheckpointerOptions,
  PostgresCommonOptions,
  PostgresConnectionStringOptions,
  PostgresKyselyOptions,
  PostgresPoolOptions,
} from "./PostgresCheckpointer.js";
