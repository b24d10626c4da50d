// Retention housekeeping under load on PostgreSQL: three child processes start runs (two under a ttlMs policy, one
// without) while the test process sweeps the expired workflows in batches. 10,000 here; 100,000 in
// `npm run test:scale`.
import { fileURLToPath } from "node:url";
import { describeSweeperUnderLoad } from "@graph/checkpoint-conformance";
import { afterAll, beforeAll } from "vitest";
import { DATABASE_URL, dropSchemas, randomSchema, requirePostgres } from "./fixtures/server.js";

const schema = randomSchema("sweeper");
beforeAll(requirePostgres);
afterAll(() => dropSchemas([schema]));

describeSweeperUnderLoad({
  name: "postgres",
  childProcess: {
    module: fileURLToPath(new URL("./fixtures/engineAdapter.ts", import.meta.url)),
    args: { connectionString: DATABASE_URL, schema },
  },
  concurrency: 16,
});
