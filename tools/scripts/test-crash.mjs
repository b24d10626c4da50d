#!/usr/bin/env node
// `npm run test:crash`: the full crash matrix of @graph/checkpoint-conformance — every kill point × every
// durability mode — and the engine suite's SIGKILL after every step boundary, on the SQLite, PostgreSQL and Redis
// adapters, and a BullMQ worker SIGKILLed at every node of a chain (`npm test` runs a fixed sample of each). Sets
// GRAPH_CRASH_MATRIX=full (or keeps the caller's value, e.g. a number of kill points per mode), finds PostgreSQL
// like `npm test` does, and prints each backend's duration. Extra arguments go to vitest.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ensurePostgres, testDatabaseUrl } from "./services.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const KIT = "crash matrix|SIGKILL of a child process";
const backends = [
  ["sqlite", "packages/checkpoint-sqlite", "test/conformance.processes.int.test.ts", KIT],
  ["postgres", "packages/checkpoint-postgres", "test/conformance.processes.int.test.ts", KIT],
  ["redis", "packages/checkpoint-redis", "test/conformance.processes.int.test.ts", KIT],
  ["bullmq workers", "packages/queue-bullmq", "test/crash.int.test.ts", "SIGKILL at the start"],
];

const postgres = await ensurePostgres();
process.on("exit", () => postgres.stop());
const env = {
  ...process.env,
  GRAPH_CRASH_MATRIX: process.env.GRAPH_CRASH_MATRIX || "full",
  DATABASE_URL: testDatabaseUrl(postgres.url),
  PATH: `${path.join(root, "node_modules/.bin")}${path.delimiter}${process.env.PATH ?? ""}`,
};
const results = [];
for (const [name, dir, file, filter] of backends) {
  process.stderr.write(`› crash matrix on ${name} (GRAPH_CRASH_MATRIX=${env.GRAPH_CRASH_MATRIX})\n`);
  const started = Date.now();
  const run = spawnSync("vitest", ["run", file, "-t", filter, ...process.argv.slice(2)], {
    cwd: path.join(root, dir),
    env,
    stdio: "inherit",
  });
  results.push({ name, ok: run.status === 0, seconds: (Date.now() - started) / 1000 });
}
for (const r of results)
  process.stderr.write(`› ${r.name}: ${r.ok ? "passed" : "FAILED"} in ${r.seconds.toFixed(1)} s\n`);
process.exit(results.every((r) => r.ok) ? 0 : 1);
