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

/** Deletes root workflows (and children) not updated for `ttlMs`, unless running under a live lease. */
export async function pruneExpiredIn(trx: AnyDb, d: TableLayout, ttlMs: number): Promise<number> {
  const now = Date.now();
  const expired = (await d
    .scoped(trx)
    .selectFrom(d.names.workflows)
    .select("id")
    .where("parent_id", "is", null)
    .where("updated_at", "<=", now - ttlMs)
    .where((eb) =>
      eb.not(
        eb.and([eb("status", "=", "running"), eb("lease_owner", "is not", null), eb("lease_expires_at", ">", now)]),
      ),
    )
    .execute()) as { id: string }[];
  for (const { id } of expired) await deleteTreeIn(trx, d, id);
  return expired.length;
}
