import { describeCheckpointer } from "@graph/checkpoint-conformance";
import { afterAll, beforeAll } from "vitest";
import { PostgresCheckpointer } from "../src/index.js";
import { DATABASE_URL, dropSchemas, randomSchema, requirePostgres } from "./fixtures/server.js";

// A fresh schema per instance; `setup()` creates it. All are dropped when the file ends.
const schemas: string[] = [];
beforeAll(requirePostgres);
afterAll(() => dropSchemas(schemas));

describeCheckpointer({
  name: "postgres",
  create: (options) => {
    const schema = randomSchema("conformance");
    schemas.push(schema);
    return new PostgresCheckpointer({ connectionString: DATABASE_URL, schema, ...options });
  },
  storageBytes: (checkpointer) => (checkpointer as PostgresCheckpointer).storageBytes(),
});
