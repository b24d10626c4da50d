// Retention housekeeping under load on a SQLite file: three child processes start runs (two under a ttlMs policy,
// one without) while the test process sweeps the expired workflows in batches. 10,000 here; 100,000 in
// `npm run test:scale`.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describeSweeperUnderLoad } from "@graph/checkpoint-conformance";
import { afterAll } from "vitest";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "graph-sqlite-sweeper-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describeSweeperUnderLoad({
  name: "sqlite",
  childProcess: {
    module: fileURLToPath(new URL("./fixtures/engineAdapter.ts", import.meta.url)),
    args: { path: path.join(dir, "sweeper.db") },
  },
  concurrency: 1,
});
