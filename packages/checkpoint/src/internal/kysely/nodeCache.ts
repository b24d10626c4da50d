/**
 * Node-cache entries of the SQL store (schema version 5): one row per key with its expiry and last use. Plain SQL
 * both dialects accept; a write's upsert and eviction run in one transaction.
 */
import { sql } from "kysely";
import type { CacheEntryWrite } from "../cacheEntries.js";
import type { AnyDb, TableLayout } from "./layout.js";

/** The entry's text, or `undefined` (an expired one is deleted); a hit records `now` as its last use. */
export async function readCacheEntryIn(
  trx: AnyDb,
  d: TableLayout,
  key: string,
  now: number,
): Promise<string | undefined> {
  const table = sql.raw(d.table("nodeCache"));
  const { rows } = await sql<{
    value: string;
    expires_at: number | string | null;
  }>`SELECT value, expires_at FROM ${table} WHERE cache_key = ${key}`.execute(trx);
  const row = rows[0];
  if (row === undefined) return undefined;
  if (row.expires_at !== null && Number(row.expires_at) <= now) {
    await sql`DELETE FROM ${table} WHERE cache_key = ${key}`.execute(trx);
    return undefined;
  }
  await sql`UPDATE ${table} SET used_at = ${now} WHERE cache_key = ${key} AND used_at < ${now}`.execute(trx);
  return row.value;
}

/** Upserts the entry, deletes expired ones, then the least recently used beyond `maxEntries` (ties by key). */
export async function writeCacheEntryIn(
  trx: AnyDb,
  d: TableLayout,
  key: string,
  value: string,
  write: CacheEntryWrite,
): Promise<void> {
  const table = sql.raw(d.table("nodeCache"));
  const expiresAt = write.expiresAt ?? null;
  await sql`INSERT INTO ${table} (cache_key, value, expires_at, used_at) VALUES (${key}, ${value}, ${expiresAt}, ${write.now})
    ON CONFLICT (cache_key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at, used_at = excluded.used_at`.execute(
    trx,
  );
  await sql`DELETE FROM ${table} WHERE expires_at IS NOT NULL AND expires_at <= ${write.now}`.execute(trx);
  if (write.maxEntries === undefined) return;
  await sql`DELETE FROM ${table} WHERE cache_key NOT IN (
    SELECT cache_key FROM ${table} ORDER BY used_at DESC, cache_key DESC LIMIT ${write.maxEntries})`.execute(trx);
}
