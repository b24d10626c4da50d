#!/usr/bin/env node
// Entry point for the README's Quick start: works on a machine with only Node 20 and npm.
// It bootstraps the pinned pnpm (through npx), installs the workspace, then runs the demo, the tests or the bench.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ensurePostgres } from "./services.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const PNPM = "pnpm@12.21.0";
const [command, ...rest] = process.argv.slice(2);

const env = {
  ...process.env,
  // pnpm does not forward npm's nodedir to build scripts; without it node-gyp tries to download headers.
  npm_config_nodedir:
    process.env.npm_config_nodedir ?? (fs.existsSync("/usr/include/node/node.h") ? "/usr" : undefined),
  NX_DAEMON: "false",
  NX_NO_CLOUD: "true",
  NX_SKIP_NX_CACHE: process.env.NX_SKIP_NX_CACHE,
  // Nx runs package scripts through pnpm; the workspace's own copy must be on PATH.
  PATH: `${path.join(root, "node_modules/.bin")}${path.delimiter}${process.env.PATH ?? ""}`,
};
for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];

function run(cmd, args, options = {}) {
  const result = spawnSync(cmd, args, { cwd: root, stdio: "inherit", env, ...options });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

function pnpm(args) {
  const local = path.join(root, "node_modules/.bin/pnpm");
  return fs.existsSync(local) ? run(local, args) : run("npx", ["--yes", PNPM, ...args]);
}

function install() {
  const marker = path.join(root, "node_modules/.modules.yaml");
  const lock = path.join(root, "pnpm-lock.yaml");
  const fresh = fs.existsSync(marker) && fs.statSync(marker).mtimeMs >= fs.statSync(lock).mtimeMs;
  if (fresh && !process.env.CI) return;
  console.log(
    "› installing the workspace with " + PNPM + " (first run builds better-sqlite3 from source, about a minute)",
  );
  const status = pnpm(["install", "--frozen-lockfile", "--reporter=append-only"]);
  if (status !== 0) process.exit(status);
}

install();
const bin = (name) => path.join(root, "node_modules/.bin", name);

switch (command) {
  case "demo":
    process.exit(run(bin("pnpm"), ["--filter", "@graph/demo", "start", ...rest]));
  case "bench":
    process.exit(run(bin("pnpm"), ["--filter", "@graph/bench", "bench", ...rest]));
  case "test": {
    try {
      env.DATABASE_URL = await ensurePostgres();
    } catch (error) {
      console.error(String(error.message ?? error));
      process.exit(1);
    }
    // Only this run's reports count (Nx restores cached ones as outputs).
    for (const group of ["packages", "apps", "tools"]) {
      const dir = path.join(root, group);
      if (!fs.existsSync(dir)) continue;
      for (const name of fs.readdirSync(dir))
        fs.rmSync(path.join(dir, name, "reports"), { recursive: true, force: true });
    }
    const status = run(bin("nx"), [
      "run-many",
      "-t",
      "typecheck",
      "lint",
      "test",
      "typebudget",
      "--outputStyle=stream",
      "--nxBail=false",
      ...rest,
    ]);
    const summary = run(process.execPath, [path.join(root, "tools/scripts/summary.mjs")]);
    process.exit(status !== 0 ? status : summary);
  }
  default:
    console.error(`Unknown command '${command}'. Use one of: demo, test, bench.`);
    process.exit(2);
}
