// Schema version 3 (due times and event waits) on PostgreSQL: the upgrade of a version-2 schema, and the time
// queries planned on their partial indexes.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresCheckpointer } from "../src/index.js";
import { admin, DATABASE_URL, dropSchemas, randomSchema, requirePostgres } from "./fixtures/server.js";

const schemas: string[] = [];
beforeAll(requirePostgres);
afterAll(() => dropSchemas(schemas));

/** A schema set up by the current code, then turned back into what schema version 2 created. */
async function versionTwoSchema(): Promise<string> {
  const schema = randomSchema("v2");
  schemas.push(schema);
  const current = new PostgresCheckpointer({ connectionString: DATABASE_URL, schema });
  await current.setup();
  await current.close();
  await admin(
    // The due-time triggers setup() installs read wake_at: a version-2 schema had neither.
    `DROP TRIGGER workflows_due_insert ON "${schema}".workflows; ` +
      `DROP TRIGGER workflows_due_update ON "${schema}".workflows; ` +
      `DROP INDEX "${schema}".workflows_due; DROP INDEX "${schema}".workflows_waiting; ` +
      `ALTER TABLE "${schema}".workflows DROP COLUMN wake_at, DROP COLUMN waiting_event, DROP COLUMN waiting_key; ` +
      `ALTER TABLE "${schema}".steps DROP COLUMN usage, DROP COLUMN budget, DROP COLUMN attempt; ` +
      `DROP TABLE "${schema}".structures; DELETE FROM "${schema}".migrations WHERE version >= 3`,
  );
  await admin(
    `INSERT INTO "${schema}".workflows (id, status, graph_name, graph_hash, lease_epoch, created_at, updated_at) ` +
      "VALUES ('old', 'paused', 'g', 'h', 2, 1, 1)",
  );
  return schema;
}

describe("PostgresCheckpointer schema version 3", () => {
  it("setup() migrates a version-2 schema; its paused workflows can then sleep and wait", async () => {
    const schema = await versionTwoSchema();
    const columns = async () =>
      (
        await admin<{ column_name: string }>(
          "SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'workflows' " +
            "AND column_name IN ('wake_at', 'waiting_event', 'waiting_key') ORDER BY column_name",
          [schema],
        )
      ).map((row) => row.column_name);
    expect(await columns()).toEqual([]);
    const upgraded = new PostgresCheckpointer({ connectionString: DATABASE_URL, schema });
    await upgraded.setup();
    expect(await columns()).toEqual(["waiting_event", "waiting_key", "wake_at"]);
    const versions = await admin<{ version: number }>(`SELECT version FROM "${schema}".migrations ORDER BY version`);
    expect(versions.map((row) => row.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const old = await upgraded.getWorkflow("old");
    expect(old?.status).toBe("paused");
    expect(old !== undefined && ("wakeAt" in old || "waitingFor" in old)).toBe(false);
    expect(await upgraded.nextDue()).toBeUndefined();
    const wait = { event: "ticket.replied", key: '{"ticketId":"T-1"}' };
    await upgraded.updateWorkflow("old", { wakeAt: new Date(5000), waitingFor: wait }, { epoch: 2 });
    expect(await upgraded.listDue({ before: new Date(5000) })).toEqual([{ id: "old", wakeAt: new Date(5000) }]);
    expect(await upgraded.listWaiting(wait)).toEqual(["old"]);
    // A second setup (another process starting) changes nothing.
    await upgraded.setup();
    expect((await upgraded.getWorkflow("old"))?.wakeAt).toEqual(new Date(5000));
    await upgraded.close();
  });

  it("listDue, nextDue and listWaiting are planned as reads of the partial indexes", async () => {
    const schema = randomSchema("plan");
    schemas.push(schema);
    const checkpointer = new PostgresCheckpointer({ connectionString: DATABASE_URL, schema });
    await checkpointer.setup();
    await checkpointer.close();
    // With sequential and bitmap scans priced out, the plan shows whether an index can answer the query in order.
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    await client.query(`SET enable_seqscan = off; SET enable_bitmapscan = off; SET search_path = "${schema}"`);
    const plan = async (query: string) => {
      const rows = (await client.query<{ "QUERY PLAN": string }>(`EXPLAIN ${query}`)).rows;
      return rows.map((row) => row["QUERY PLAN"]).join("\n");
    };
    const due = await plan(
      "SELECT id, wake_at FROM workflows WHERE wake_at IS NOT NULL AND wake_at <= 5 AND status || '' IN ('paused', 'running') ORDER BY wake_at, id LIMIT 100",
    );
    expect(due).toContain("Index Scan using workflows_due");
    expect(due).not.toContain("Sort");
    const waiting = await plan(
      "SELECT id FROM workflows WHERE waiting_event = 'e' AND waiting_key = 'k' AND status || '' = 'paused' ORDER BY created_at, id LIMIT 100",
    );
    expect(waiting).toContain("Index Scan using workflows_waiting");
    expect(waiting).not.toContain("Sort");
    const next = await plan(
      "SELECT id, wake_at FROM workflows WHERE wake_at IS NOT NULL AND status || '' IN ('paused', 'running') ORDER BY wake_at, id LIMIT 1",
    );
    expect(next).toContain("Index Scan using workflows_due");
    expect(next).not.toContain("Sort");
    await client.end();
  });
});
