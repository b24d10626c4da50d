import { fileURLToPath } from "node:url";
import { describeCheckpointer } from "@graph/checkpoint-conformance";
import { afterAll, beforeAll } from "vitest";
import { PostgresCheckpointer } from "../src/index.js";
import { DATABASE_URL, dropSchemas, randomSchema, requirePostgres } from "./fixtures/server.js";

// Storage tests: a fresh schema per instance (`setup()` creates it). Engine tests with child processes: one
// schema that the test process and the SIGKILLed children share. All are dropped when the file ends.
const schemas: string[] = [];
const engineSchema = randomSchema("engine");
schemas.push(engineSchema);
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
  engine: {
    childProcess: {
      module: fileURLToPath(new URL("./fixtures/engineAdapter.ts", import.meta.url)),
      args: { connectionString: DATABASE_URL, schema: engineSchema },
    },
  },
});
