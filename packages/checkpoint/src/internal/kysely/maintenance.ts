/**
 * The rare writes of the SQL store, run through the query builder: schema migrations, deleting a workflow tree,
 * and pruning workflows past the policy's `ttlMs`.
 */
import { sql } from "kysely";
import { CheckpointError } from "../../errors.js";
import type { AnyDb, TableLayout } from "./layout.js";
import { childIdRange, LATEST_VERSION, lockKey, MIGRATIONS, type TableNames } from "./schema.js";

/** The migrations key of a layout (schema + prefix): concurrent `setup()` calls serialise on it. */
function migrationLockKey(d: TableLayout): number {
  return lockKey(`${d.schema ?? ""}.${d.prefix}`);
}

/** Creates the tables or brings them to {@link LATEST_VERSION}, inside the caller's write transaction. */
export async function migrateIn(trx: AnyDb, d: TableLayout): Promise<void> {
  await d.dialect.beginMigration(trx, { lockKey: migrationLockKey(d), schema: d.schema });
  await sql
    .raw(
      `CREATE TABLE IF NOT EXISTS ${d.table("migrations")} (version INTEGER NOT NULL PRIMARY KEY, ` +
        `name TEXT NOT NULL, applied_at ${d.dialect.types.integer} NOT NULL)`,
    )
    .execute(trx);
  const rows = (await d.scoped(trx).selectFrom(d.names.migrations).select("version").execute()) as {
    version: number | string;
  }[];
  const applied = new Set(rows.map((row) => Number(row.version)));
  const newest = Math.max(0, ...applied);
  if (newest > LATEST_VERSION) {
    throw new CheckpointError({
      message:
        `The checkpoint tables (${d.table("workflows")}) were migrated to schema version ${newest} by a newer ` +
        `version of @graph/checkpoint; this one knows up to version ${LATEST_VERSION}. Upgrade ` +
        "@graph/checkpoint (and the adapter) in this application.",
      operation: "setup",
    });
  }
  const context = {
    types: d.dialect.types,
    prefix: d.prefix,
    table: (name: keyof TableNames) => d.table(name),
  };
  for (const migration of MIGRATIONS) {
    if (applied.has(migration.version)) continue;
    for (const statement of migration.statements(context)) await sql.raw(statement).execute(trx);
    await d
      .scoped(trx)
      .insertInto(d.names.migrations)
      .values({ version: migration.version, name: migration.name, applied_at: Date.now() })
      .execute();
  }
}

/** Deletes a workflow and its children (ids starting with `id + "/"`) inside a transaction. */
export async function deleteTreeIn(trx: AnyDb, d: TableLayout, id: string): Promise<void> {
  const [low, high] = childIdRange(id);
  for (const [table, column] of [
    [d.names.steps, "workflow_id"],
    [d.names.workflows, "id"],
  ] as const) {
    await d
      .scoped(trx)
      .deleteFrom(table)
      .where((eb) => eb.or([eb(column, "=", id), eb.and([eb(column, ">=", low), eb(column, "<", high)])]))
      .execute();
  }
}

/** Root workflows deleted per statement by the sweeper (each with its children and steps). */
const SWEEP_CHUNK = 50;

/**
 * One batch of retention housekeeping: up to `limit` root workflows not updated for `ttlMs` (unless running under
 * a live lease), oldest update first, read from the partial index on (updated_at, id) of root workflows, then
 * deleted with their children and steps, {@link SWEEP_CHUNK} roots per statement, each chunk its own short write
 * (`write`), so a run starting meanwhile waits for one chunk at most. The delete re-checks the age and lease, so a
 * workflow a run took back since the read stays. Returns the number of root workflows deleted.
 */
export async function sweepExpiredIn(
  d: TableLayout,
  read: <T>(body: (db: AnyDb) => Promise<T>) => Promise<T>,
  write: <T>(body: (trx: AnyDb) => Promise<T>) => Promise<T>,
  ttlMs: number,
  limit: number,
): Promise<number> {
  const cutoff = Date.now() - ttlMs;
  const candidates = (await read((db) =>
    d
      .scoped(db)
      .selectFrom(d.names.workflows)
      .select("id")
      .where("parent_id", "is", null)
      .where("updated_at", "<=", cutoff)
      .orderBy("updated_at")
      .orderBy("id")
      .limit(limit)
      .execute(),
  )) as { id: string }[];
  let deleted = 0;
  for (let i = 0; i < candidates.length; i += SWEEP_CHUNK) {
    const chunk = candidates.slice(i, i + SWEEP_CHUNK).map((row) => row.id);
    deleted += await write((trx) => deleteExpiredIn(trx, d, chunk, cutoff));
  }
  return deleted;
}

/** Deletes the roots of `ids` still expired at `cutoff` (and not live), then their children and steps. */
async function deleteExpiredIn(trx: AnyDb, d: TableLayout, ids: readonly string[], cutoff: number): Promise<number> {
  const now = Date.now();
  const gone = (await d
    .scoped(trx)
    .deleteFrom(d.names.workflows)
    .where("id", "in", ids)
    .where("parent_id", "is", null)
    .where("updated_at", "<=", cutoff)
    .where((eb) =>
      eb.not(
        eb.and([eb("status", "=", "running"), eb("lease_owner", "is not", null), eb("lease_expires_at", ">", now)]),
      ),
    )
    .returning("id")
    .execute()) as { id: string }[];
  if (gone.length === 0) return 0;
  const roots = gone.map((row) => row.id);
  for (const [table, column] of [
    [d.names.steps, "workflow_id"],
    [d.names.workflows, "id"],
  ] as const) {
    await d
      .scoped(trx)
      .deleteFrom(table)
      .where((eb) =>
        eb.or([
          eb(column, "in", roots),
          ...roots.map((id) => {
            const [low, high] = childIdRange(id);
            return eb.and([eb(column, ">=", low), eb(column, "<", high)]);
          }),
        ]),
      )
      .execute();
  }
  return roots.length;
}
