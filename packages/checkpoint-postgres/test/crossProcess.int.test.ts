import { fileURLToPath } from "node:url";
import { describeDueWake } from "@graph/checkpoint-conformance";
import { afterAll, beforeAll } from "vitest";
import { PostgresCheckpointer } from "../src/index.js";
import { DATABASE_URL, dropSchemas, randomSchema, requirePostgres } from "./fixtures/server.js";

// The other processes are children on the same schema: one pauses a workflow with a due time and is SIGKILLed.
const schema = randomSchema("cross");
beforeAll(requirePostgres);
afterAll(() => dropSchemas([schema]));

const options = {
  name: "postgres",
  create: () => new PostgresCheckpointer({ connectionString: DATABASE_URL, schema }),
  engine: {
    childProcess: {
      module: fileURLToPath(new URL("./fixtures/engineAdapter.ts", import.meta.url)),
      args: { connectionString: DATABASE_URL, schema },
    },
  },
};

describeDueWake(options);
