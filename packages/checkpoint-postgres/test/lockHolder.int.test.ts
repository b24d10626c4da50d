import { isCheckpointError } from "@graph/checkpoint";
import { rejection } from "@graph/checkpoint-conformance";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresCheckpointer } from "../src/index.js";
import { admin, DATABASE_URL, dropSchemas, randomSchema, requirePostgres } from "./fixtures/server.js";

// A lock timeout names the session that held the lock: its application_name, state and how long, read from the
// server on the error path.
const schemas: string[] = [];
beforeAll(requirePostgres);
afterAll(() => dropSchemas(schemas));

/** A plain connection that locks one workflow row and then sits idle inside its transaction. */
async function rowHolder(schema: string, id: string, applicationName: string) {
  const client = new pg.Client({ connectionString: DATABASE_URL, application_name: applicationName });
  client.on("error", () => undefined);
  await client.connect();
  const pid = Number((await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]?.pid);
  await client.query("BEGIN");
  await client.query(`SELECT id FROM "${schema}"."workflows" WHERE id = $1 FOR UPDATE`, [id]);
  return { pid, release: () => client.end().catch(() => undefined) };
}

describe("a PostgreSQL lock timeout names what held the lock", () => {
  it("a claim that times out behind another session's row lock names that session's application_name, pid and state", {
    timeout: 30_000,
  }, async () => {
    const schema = randomSchema("holder");
    schemas.push(schema);
    const cp = new PostgresCheckpointer({ connectionString: DATABASE_URL, schema, timeouts: { lockTimeoutMs: 500 } });
    await cp.createWorkflow({ id: "held", graphName: "g", graphHash: "h" });
    const holder = await rowHolder(schema, "held", "billing-report-job");
    try {
      const started = Date.now();
      const error = await rejection(cp.claimWorkflow("held", { owner: "runner", ttlMs: 60_000 }));
      expect(Date.now() - started).toBeLessThan(5_000); // 0.5 s lock wait + the look-up, slack for a loaded machine
      expect(isCheckpointError(error)).toBe(true);
      const message = (error as Error).message;
      expect(message).toContain("PostgresCheckpointer.claimWorkflow for workflow 'held' failed:");
      expect(message).toContain("waited longer than timeouts.lockTimeoutMs (500 ms) for a workflow row lock");
      expect(message).toContain(`Held by billing-report-job (pid ${holder.pid}), idle in transaction for `);
      expect(message).toMatch(/idle in transaction for \d+\.\d s in a transaction open \d+\.\d s/);
      expect(message).toContain(`, last statement: SELECT id FROM "${schema}".`); // cut at 60 characters
      expect(message).toContain("Nothing was written");
      expect(message).not.toContain("frozen or cut-off");
      // The failed claim wrote nothing: the row is unclaimed once the holder lets go.
      await holder.release();
      const lease = await cp.claimWorkflow("held", { owner: "runner", ttlMs: 60_000 });
      expect(lease.epoch).toBe(1);
    } finally {
      await holder.release();
      await cp.close();
    }
  });

  it("the store's own connections carry a role in application_name; a sweep labels its transactions", {
    timeout: 30_000,
  }, async () => {
    const schema = randomSchema("holder");
    schemas.push(schema);
    const cp = new PostgresCheckpointer({ connectionString: DATABASE_URL, schema, policy: { ttlMs: 1 } });
    try {
      await cp.createWorkflow({ id: "old", graphName: "g", graphHash: "h" });
      const names = await admin<{ application_name: string }>(
        "SELECT DISTINCT application_name FROM pg_stat_activity WHERE application_name LIKE 'graph-checkpointer%' AND datname = current_database()",
      );
      expect(names.map((row) => row.application_name)).toContain("graph-checkpointer runner");
      // The sweep's delete runs under the sweeper label (the transaction-local name shows in its statement log).
      await admin(
        `CREATE TABLE "${schema}".seen (name text); CREATE FUNCTION "${schema}".note() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO "${schema}".seen VALUES (current_setting('application_name')); RETURN OLD; END $$; CREATE TRIGGER note BEFORE DELETE ON "${schema}".workflows FOR EACH ROW EXECUTE FUNCTION "${schema}".note()`,
      );
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await cp.sweepExpired()).toBe(1);
      const seen = await admin<{ name: string }>(`SELECT name FROM "${schema}".seen`);
      expect(seen.map((row) => row.name)).toEqual(["graph-checkpointer sweeper"]);
    } finally {
      await cp.close();
    }
  });
});
