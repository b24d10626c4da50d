// The pause → resume flow against PostgreSQL (`--db postgres://…`), in a throwaway schema dropped afterwards.
// PostgreSQL must be reachable: DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres. If it is not, the
// test fails and says how to start one; it never skips.
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { PostgresCheckpointer } from "@graph/checkpoint-postgres";
import { afterAll, describe, expect, it } from "vitest";
import { APP_DIR, expectSuccess, HIGH_RISK_TICKET, runDemo } from "./helpers.js";

const DATABASE_URL = process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres";
const schema = `graph_demo_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;

/** The few `pg` calls the test needs. */
interface PgClient {
  connect(): Promise<void>;
  query(text: string): Promise<{ rows: Record<string, unknown>[] }>;
  end(): Promise<void>;
  on(event: "error", listener: (error: Error) => void): void;
}
type PgModule = { Client: new (options: { connectionString: string; connectionTimeoutMillis?: number }) => PgClient };

// `pg` comes with @graph/checkpoint-postgres (the demo adds no dependency of its own): load it from there.
const adapterDir = fs.realpathSync(path.join(APP_DIR, "node_modules/@graph/checkpoint-postgres"));
const pg = createRequire(path.join(adapterDir, "package.json"))("pg") as PgModule;

async function sql(text: string): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 5000 });
  client.on("error", () => undefined);
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Fails (never skips) with instructions when the server is unreachable. */
async function requirePostgres(): Promise<void> {
  try {
    await sql("SELECT 1");
  } catch (error) {
    const { hostname, port } = new URL(DATABASE_URL);
    throw new Error(
      `The demo's PostgreSQL test needs a server at ${hostname}:${port || 5432} and cannot reach it (${String(error)}).\n` +
        "Start one — `pg_ctlcluster 15 main start`, or `docker run -p 5432:5432 -e POSTGRES_HOST_AUTH_METHOD=trust postgres:15`, " +
        "or `npm test` at the repository root, which starts one — or point DATABASE_URL at a server where the user may CREATE SCHEMA.",
    );
  }
}

afterAll(async () => {
  await sql(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
});

describe("demo on PostgreSQL", () => {
  it("pauses for approval, then --resume <id> --approve completes it", async () => {
    // Checked inside the test (not in a hook) so an unreachable server is a failed test, never a skipped one.
    await requirePostgres();
    const db = ["--db", DATABASE_URL, "--schema", schema, "--delay-ms", "1"];
    const first = expectSuccess(await runDemo(["--ticket", HIGH_RISK_TICKET, "--id", "pg-refund", "--detach", ...db]));
    expect(first.stdout).toContain("PostgreSQL");
    expect(first.stdout).toContain(`(schema ${schema})`);
    expect(first.stdout).toContain("pg-refund stays paused at the approval");
    const store = new PostgresCheckpointer({ connectionString: DATABASE_URL, schema, max: 1 });
    try {
      expect(await store.getWorkflow("pg-refund")).toMatchObject({
        status: "paused",
        pause: { nodeName: "approval", responseKey: "decision" },
      });
    } finally {
      await store.close();
    }

    const listed = expectSuccess(await runDemo(["--list", ...db]));
    expect(listed.stdout).toMatch(/pg-refund\s+paused at approval/);

    const second = expectSuccess(await runDemo(["--resume", "pg-refund", "--approve", ...db]));
    expect(second.stdout).toContain(
      "↺ restored        from the checkpoint, not run again: classify, triage→lookup, lookup, research, rank, draft, prepareReview",
    );
    expect(second.stdout).toContain("✔ Reply sent · approved by --approve · first draft");
    const after = new PostgresCheckpointer({ connectionString: DATABASE_URL, schema, max: 1 });
    try {
      expect((await after.getWorkflow("pg-refund"))?.status).toBe("completed");
      expect((await after.getState("pg-refund"))["resolution"]).toMatchObject({
        outcome: "sent",
        approvedBy: "--approve",
        revisions: 0,
      });
    } finally {
      await after.close();
    }
  });
});
