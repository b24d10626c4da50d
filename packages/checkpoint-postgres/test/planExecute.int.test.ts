import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, describe, it } from "vitest";
// The runtime's ported plan-and-execute workflow, resumed on this adapter (it lives here, not in the runtime's
// tests, because the runtime can't depend on its adapters: their tests depend on the runtime).
import { resumeAfterPause, resumeAfterStop } from "../../runtime/test/workflows/planExecute.js";
import { PostgresCheckpointer } from "../src/index.js";

const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const schemas: string[] = [];
const fresh = () => {
  const schema = `plan_execute_${randomUUID().slice(0, 8)}`;
  schemas.push(schema);
  return new PostgresCheckpointer({ connectionString: DATABASE_URL, schema });
};

afterAll(async () => {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    for (const s of schemas) await client.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
  } finally {
    await client.end();
  }
});

describe("plan-and-execute on PostgreSQL: resuming a nested loop continues it", () => {
  it("after a stop during the second step", () => resumeAfterStop(fresh(), "pe-stop"));
  it("after each pause for an approval", () => resumeAfterPause(fresh(), "pe-pause"));
});
