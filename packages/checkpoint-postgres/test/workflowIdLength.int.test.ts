import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, describe, it } from "vitest";
// The runtime's check (see planExecute.int.test.ts for why it runs from here).
import { workflowIdLengthIsLimited } from "../../runtime/test/workflows/workflowIdLength.js";
import { PostgresCheckpointer } from "../src/index.js";

const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const schema = `id_length_${randomUUID().slice(0, 8)}`;

afterAll(async () => {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
});

describe("workflow ids are limited to 1,024 UTF-8 bytes (PostgreSQL, through the runtime)", () => {
  it("longer ids fail up front naming the limit (not 'check the database is reachable'); 1,024 bytes run", () =>
    workflowIdLengthIsLimited(new PostgresCheckpointer({ connectionString: DATABASE_URL, schema })));
});
