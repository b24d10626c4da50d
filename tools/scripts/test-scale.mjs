#!/usr/bin/env node
// `npm run test:scale`: the conformance kit's scale area and the retention sweeper under concurrent starts at
// 100,000 stored workflows (GRAPH_SCALE=100000, or the caller's value) on the SQLite, PostgreSQL and Redis adapters
// (`npm test` runs them at 10,000). Finds PostgreSQL like `npm test` does and prints each backend's duration. Extra
// arguments go to vitest.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ensurePostgres, testDatabaseUrl } from "./services.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const backends = [
  ["sqlite", "packages/checkpoint-sqlite", ["test/scale.test.ts", "test/sweeper.int.test.ts"]],
  ["postgres", "packages/checkpoint-postgres", ["test/scale.int.test.ts", "test/sweeper.int.test.ts"]],
  ["redis", "packages/checkpoint-redis", ["test/scale.int.test.ts", "test/sweeper.int.test.ts"]],
];

const postgres = await ensurePostgres();
process.on("exit", () => postgres.stop());
const env = {
  ...process.env,
  GRAPH_SCALE: process.env.GRAPH_SCALE || "100000",
  DATABASE_URL: testDatabaseUrl(postgres.url),
  PATH: `${path.join(root, "node_modules/.bin")}${path.delimiter}${process.env.PATH ?? ""}`,
};
const results = [];
for (const [name, dir, files] of backends) {
  process.stderr.write(`› scale tests on ${name} (GRAPH_SCALE=${env.GRAPH_SCALE})\n`);
  const started = Date.now();
  const run = spawnSync(
    "vitest",
    ["run", ...files, "--testTimeout", "3600000", "--hookTimeout", "3600000", ...process.argv.slice(2)],
    {
      cwd: path.join(root, dir),
      env,
      stdio: "inherit",
    },
  );
  results.push({ name, ok: run.status === 0, seconds: (Date.now() - started) / 1000 });
}
for (const r of results)
  process.stderr.write(`› ${r.name}: ${r.ok ? "passed" : "FAILED"} in ${r.seconds.toFixed(1)} s\n`);
process.exit(results.every((r) => r.ok) ? 0 : 1);
