/**
 * Graph structures of the SQL store (schema version 3): one row per graph definition hash, written once. Plain
 * SQL both dialects accept (`ON CONFLICT DO NOTHING` keeps the first text, so concurrent writers never fail).
 */
import { sql } from "kysely";
import type { AnyDb, TableLayout } from "./layout.js";

export async function putStructureIn(trx: AnyDb, d: TableLayout, hash: string, structure: string): Promise<void> {
  await sql`INSERT INTO ${sql.raw(d.table("graphStructures"))} (hash, structure, created_at) VALUES (${hash}, ${structure}, ${Date.now()}) ON CONFLICT (hash) DO NOTHING`.execute(
    trx,
  );
}

export async function getStructureIn(db: AnyDb, d: TableLayout, hash: string): Promise<string | undefined> {
  const { rows } = await sql<{
    structure: string;
  }>`SELECT structure FROM ${sql.raw(d.table("graphStructures"))} WHERE hash = ${hash}`.execute(db);
  return rows[0]?.structure;
}
