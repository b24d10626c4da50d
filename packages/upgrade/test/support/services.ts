// Where the tests find PostgreSQL and Redis, with a throwaway schema / key prefix per checkpointer.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PostgresCheckpointer } from "@graph/checkpoint-postgres";
import { RedisCheckpointer } from "@graph/checkpoint-redis";
import pg from "pg";
import { inject } from "vitest";

export const DATABASE_URL = process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres";

const redisUrl = (): string => inject("redisUrl");

const random = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;

/** Postgres: a checkpointer on a fresh schema; `drop()` removes every schema handed out. */
export function postgresSchemas() {
  const schemas: string[] = [];
  return {
    schema(label: string): string {
      const schema = `graph_upgrade_${label}_${random()}`;
      schemas.push(schema);
      return schema;
    },
    open(label = "test"): PostgresCheckpointer {
      return new PostgresCheckpointer({ connectionString: DATABASE_URL, schema: this.schema(label) });
    },
    async drop(): Promise<void> {
      const client = new pg.Client({ connectionString: DATABASE_URL });
      await client.connect();
      try {
        for (const s of schemas) await client.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}

/** Redis: a checkpointer on a fresh key prefix; `clear()` deletes every key under the prefixes handed out. */
export function redisPrefixes() {
  const prefixes: string[] = [];
  return {
    /** A fresh prefix on the test server (for a process that opens the store itself). */
    next(): { readonly url: string; readonly prefix: string } {
      const prefix = `graph-upgrade-test:${random()}:`;
      prefixes.push(prefix);
      return { url: redisUrl(), prefix };
    },
    open(): RedisCheckpointer {
      return new RedisCheckpointer(this.next());
    },
    async clear(): Promise<void> {
      for (const prefix of prefixes) {
        const checkpointer = new RedisCheckpointer({ url: redisUrl(), prefix });
        try {
          await checkpointer.clear();
        } finally {
          await checkpointer.close();
        }
      }
    },
  };
}

/** A temporary directory removed by `remove()`. */
export function tempDir(): { readonly dir: string; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), "graph-upgrade-"));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
