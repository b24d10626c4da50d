/**
 * Transaction bodies written once as generators that yield compiled statements and receive their results, so one
 * body runs both ways: awaited statement by statement through Kysely, or synchronously where the dialect can
 * (`SqlDialect.writeNow`: SQLite through better-sqlite3, with no promise per statement).
 */
import type { CompiledQuery } from "kysely";
import type { SqlResult } from "../../SqlDialect.js";
import type { AnyDb } from "./layout.js";

/** A transaction body: yields each statement, receives its result, returns the body's value. */
export type Program<T> = Generator<CompiledQuery, T, SqlResult>;

/** Runs a program on a Kysely connection or transaction, one awaited statement at a time. */
export async function runAsync<T>(db: AnyDb, program: Program<T>): Promise<T> {
  let next = program.next();
  while (next.done !== true) {
    const result = await db.executeQuery(next.value);
    next = program.next(result as SqlResult);
  }
  return next.value;
}

/** Runs a program with a synchronous executor. */
export function runSync<T>(execute: (query: CompiledQuery) => SqlResult, program: Program<T>): T {
  let next = program.next();
  while (next.done !== true) next = program.next(execute(next.value));
  return next.value;
}

/** The first row of a result, typed by the caller (the statements are the store's own). */
export function firstRow<R>(result: SqlResult): R | undefined {
  return result.rows[0] as R | undefined;
}
