// What `npm run test:crash` and `npm run test:scale` share: find PostgreSQL like `npm test` does, run vitest once per
// backend folder with the workspace's tools on PATH, print each backend's duration, and exit non-zero if any failed.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ensurePostgres, testDatabaseUrl } from "./services.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * Runs each `{ name, dir, args }` (`args` for `vitest run`, the caller's extra arguments appended) with `env` added
 * to the environment, `label` naming the run in what it prints; then exits.
 */
export async function runPerBackend(label, backends, env) {
  const postgres = await ensurePostgres();
  process.on("exit", () => postgres.stop());
  const runEnv = {
    ...process.env,
    ...env,
    DATABASE_URL: testDatabaseUrl(postgres.url),
    PATH: `${path.join(root, "node_modules/.bin")}${path.delimiter}${process.env.PATH ?? ""}`,
  };
  const results = [];
  for (const { name, dir, args } of backends) {
    process.stderr.write(`› ${label} on ${name}\n`);
    const started = Date.now();
    const run = spawnSync("vitest", ["run", ...args, ...process.argv.slice(2)], {
      cwd: path.join(root, dir),
      env: runEnv,
      stdio: "inherit",
    });
    results.push({ name, ok: run.status === 0, seconds: (Date.now() - started) / 1000 });
  }
  for (const r of results)
    process.stderr.write(`› ${r.name}: ${r.ok ? "passed" : "FAILED"} in ${r.seconds.toFixed(1)} s\n`);
  process.exit(results.every((r) => r.ok) ? 0 : 1);
}
