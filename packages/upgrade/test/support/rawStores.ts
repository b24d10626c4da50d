// What a store holds, read around the checkpointer (raw rows / bytes), for "nothing was written" checks.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Checkpointer } from "@graph/checkpoint";
import type { PostgresCheckpointer } from "@graph/checkpoint-postgres";
import type { RedisCheckpointer } from "@graph/checkpoint-redis";
import pg from "pg";
import { DATABASE_URL } from "./services.js";

/** The SQLite database file and its write-ahead log, byte for byte. */
export function sqliteBytes(file: string): { readonly db: string; readonly wal: string } {
  const read = (path: string) => {
    try {
      return readFileSync(path).toString("base64");
    } catch {
      return "";
    }
  };
  return { db: read(file), wal: read(`${file}-wal`) };
}

/** Every row of every table in the checkpointer's schema, as JSON text, sorted. */
export async function postgresRows(checkpointer: Checkpointer): Promise<Record<string, string[]>> {
  const schema = (checkpointer as PostgresCheckpointer).schema;
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    const tables = await client.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name",
      [schema],
    );
    const rows: Record<string, string[]> = {};
    for (const { table_name } of tables.rows) {
      const result = await client.query<{ row: string }>(
        `SELECT to_jsonb(t)::text AS row FROM "${schema}"."${table_name}" t`,
      );
      rows[table_name] = result.rows.map((r) => r.row).sort();
    }
    return rows;
  } finally {
    await client.end();
  }
}

// ioredis is the Redis adapter's dependency, not this package's: load the adapter's copy.
const requireFromRedisAdapter = createRequire(new URL("../../../checkpoint-redis/package.json", import.meta.url));

/** The few ioredis calls used here. */
interface RawRedis {
  scan(cursor: string, ...args: (string | number)[]): Promise<[string, string[]]>;
  dumpBuffer(key: string): Promise<Buffer | null>;
  disconnect(): void;
}

/** Every key under the checkpointer's prefix with its serialized value (`DUMP`), sorted by key. */
export async function redisBytes(checkpointer: Checkpointer, url: string): Promise<Record<string, string>> {
  const { Redis } = requireFromRedisAdapter("ioredis") as { Redis: new (url: string) => RawRedis };
  const prefix = (checkpointer as RedisCheckpointer).prefix;
  const client = new Redis(url);
  try {
    const keys: string[] = [];
    let cursor = "0";
    do {
      const [next, found] = await client.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
      cursor = next;
      keys.push(...found);
    } while (cursor !== "0");
    const dumped: Record<string, string> = {};
    for (const key of keys.sort()) dumped[key] = (await client.dumpBuffer(key))?.toString("base64") ?? "";
    return dumped;
  } finally {
    client.disconnect();
  }
}
