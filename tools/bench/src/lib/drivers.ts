// Raw database drivers for the floor (a hand-written loop that stores one row per step) and for measuring/cleaning
// up. The bench adds no dependencies: it borrows the drivers our adapters already depend on.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

function requireFrom<T>(packageName: string, dependency: string): T {
  const packageJson = require.resolve(`${packageName}/package.json`);
  return createRequire(packageJson)(dependency) as T;
}

/** The part of better-sqlite3 the bench uses. */
export interface SqliteDatabase {
  pragma(source: string): unknown;
  exec(source: string): void;
  prepare(source: string): { run(...params: unknown[]): unknown; get(...params: unknown[]): unknown };
  close(): void;
}

export function openSqlite(file: string): SqliteDatabase {
  const Database = requireFrom<new (file: string) => SqliteDatabase>("@graph/checkpoint-sqlite", "better-sqlite3");
  return new Database(file);
}

/** The part of pg the bench uses. */
export interface PgQueryable {
  query(text: string, values?: readonly unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
}
export interface PgPool extends PgQueryable {
  end(): Promise<void>;
}

export function pgPool(connectionString: string, max = 1): PgPool {
  const pg = requireFrom<{ Pool: new (options: Record<string, unknown>) => PgPool }>(
    "@graph/checkpoint-postgres",
    "pg",
  );
  return new pg.Pool({ connectionString, max, application_name: "graph-bench" });
}
