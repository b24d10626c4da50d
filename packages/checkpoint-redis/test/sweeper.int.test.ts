// Retention housekeeping under load on Redis: three child processes start runs (two under a ttlMs policy, one
// without) while the test process sweeps the expired workflows in batches. 10,000 here; 100,000 in
// `npm run test:scale`.
import { fileURLToPath } from "node:url";
import { describeSweeperUnderLoad } from "@graph/checkpoint-conformance";
import { afterAll } from "vitest";
import { clearPrefixes, randomPrefix, redisUrl } from "./fixtures/store.js";

const prefix = randomPrefix("sweeper");
afterAll(() => clearPrefixes([prefix]));

describeSweeperUnderLoad({
  name: "redis",
  childProcess: {
    module: fileURLToPath(new URL("./fixtures/engineAdapter.ts", import.meta.url)),
    args: { url: redisUrl(), prefix },
  },
  concurrency: 32,
});
