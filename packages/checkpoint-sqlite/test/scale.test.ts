// The conformance kit's scale area on SQLite: every statement a listing, a sweep batch or a start sends is captured
// (kysely's query log) and planned with EXPLAIN QUERY PLAN on the same file; a plan that walks a whole table or
// index (`SCAN …`) is a full scan. 10,000 workflows here; `npm run test:scale` runs 100,000 (GRAPH_SCALE).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { CheckpointPolicy } from "@graph/checkpoint";
import { KyselyCheckpointer } from "@graph/checkpoint/kysely";
import { describeScale, type ScaleProbe } from "@graph/checkpoint-conformance";
import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { afterAll } from "vitest";
import { SqliteCheckpointer, sqliteDialect } from "../src/index.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "graph-sqlite-scale-"));
const file = path.join(dir, "scale.db");
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

let captured: { sql: string; parameters: readonly unknown[] }[] | undefined;
const databases: Database.Database[] = [];

function open(policy?: Partial<CheckpointPolicy>) {
  const database = new Database(file, { timeout: 5_000 });
  database.pragma("journal_mode = WAL");
  databases.push(database);
  const db = new Kysely<unknown>({
    dialect: new SqliteDialect({ database }),
    log: (event) => {
      if (event.level === "query") captured?.push({ sql: event.query.sql, parameters: event.query.parameters });
    },
  });
  return new KyselyCheckpointer({ db, dialect: sqliteDialect(), ...(policy === undefined ? {} : { policy }) });
}

/** Statements that read rows (what a plan can make a full scan of). */
const READS = /^\s*(select|update|delete)\b/i;

const probe: ScaleProbe = {
  async trace(body) {
    captured = [];
    const result = await body();
    const statements = captured;
    captured = undefined;
    const planner = new Database(file, { readonly: true });
    try {
      const fullScans = statements
        .filter((statement) => READS.test(statement.sql))
        .filter((statement) =>
          (
            planner.prepare(`EXPLAIN QUERY PLAN ${statement.sql}`).all(...statement.parameters) as { detail: string }[]
          ).some((row) => row.detail.startsWith("SCAN ")),
        )
        .map((statement) => statement.sql);
      return { result, operations: statements.length, fullScans };
    } finally {
      planner.close();
    }
  },
  async settle() {
    for (const database of databases) if (database.open) database.pragma("optimize");
  },
};

describeScale({
  name: "sqlite",
  create: open,
  // The adapter's own class fills faster (its synchronous write path); the probed instances read the same file.
  createFiller: () => new SqliteCheckpointer({ path: file }),
  probe,
  concurrency: 1,
});
