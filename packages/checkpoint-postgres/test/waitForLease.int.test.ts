import { fileURLToPath } from "node:url";
import { describeWaitForLease } from "@graph/checkpoint-conformance";
import { afterAll, beforeAll } from "vitest";
import { PostgresCheckpointer } from "../src/index.js";
import { DATABASE_URL, dropSchemas, randomSchema, requirePostgres } from "./fixtures/server.js";

// The holder is a child process on the same schema, SIGKILLed while it holds the workflow's lease.
const schema = randomSchema("wait");
beforeAll(requirePostgres);
afterAll(() => dropSchemas([schema]));

describeWaitForLease({
  name: "postgres",
  create: (options) => new PostgresCheckpointer({ connectionString: DATABASE_URL, schema, ...options }),
  engine: {
    childProcess: {
      module: fileURLToPath(new URL("./fixtures/engineAdapter.ts", import.meta.url)),
      args: { connectionString: DATABASE_URL, schema },
    },
  },
});
