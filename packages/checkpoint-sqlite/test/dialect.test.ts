import { KyselyCheckpointer } from "@graph/checkpoint/kysely";
import { stepRecord } from "@graph/checkpoint-conformance";
import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { describe, expect, it } from "vitest";
import { sqliteDialect } from "../src/index.js";

describe("sqliteDialect", () => {
  it("runs KyselyCheckpointer on an application's own SQLite Kysely: BEGIN IMMEDIATE writes, no row locks, ? placeholders", async () => {
    const log: string[] = [];
    const db = new Kysely<any>({
      dialect: new SqliteDialect({ database: new Database(":memory:") }),
      log: (event) => {
        log.push(event.query.sql);
      },
    });
    const checkpointer = new KyselyCheckpointer({ db, dialect: sqliteDialect(), tablePrefix: "app_" });
    await checkpointer.setup();
    expect(log.join("\n")).toMatch(/CREATE TABLE IF NOT EXISTS "app_workflows" \(\s*id TEXT NOT NULL PRIMARY KEY/);
    expect(log.join("\n")).toMatch(/last_superstep INTEGER NOT NULL/);
    await checkpointer.createWorkflow({ id: "wf", graphName: "g", graphHash: "h" });
    log.length = 0;
    await checkpointer.saveStep(stepRecord("wf", { superstep: 0, nodeName: "n", index: 0, values: { v: 1 } }));
    expect(log[0]).toBe("BEGIN IMMEDIATE");
    expect(log[log.length - 1]).toBe("COMMIT");
    // The workflow's counters, with the duplicate check inside (the fence, when given, in the WHERE clause).
    expect(log).toHaveLength(4);
    expect(log[1]).toMatch(
      /^UPDATE "app_workflows" SET step_count = step_count \+ CASE WHEN EXISTS \(SELECT 1 FROM "app_steps"/,
    );
    expect(log[1]).toMatch(/ WHERE id = \? RETURNING step_count$/);
    expect(log.join("\n")).toMatch(
      /INSERT INTO "app_steps" .* VALUES \(\?, .*\) ON CONFLICT \("workflow_id", "superstep", "node_name"\) DO UPDATE/,
    );
    expect(log.join("\n")).not.toMatch(/for (no key )?update/i);
    expect((await checkpointer.getState("wf")).v).toBe(1);
    expect(await checkpointer.storageBytes()).toBeGreaterThan(0);
    await checkpointer.close();
  });

  it("has no schemas: the store says so", () => {
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(":memory:") }) });
    expect(() => new KyselyCheckpointer({ db, dialect: sqliteDialect(), schema: "graph" })).toThrow(
      /schema is not supported by the sqlite dialect; use tablePrefix/,
    );
  });
});
