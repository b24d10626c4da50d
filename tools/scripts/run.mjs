#!/usr/bin/env node
// Entry point for the README's Quick start: works on a machine with only Node and npm.
// It bootstraps the pinned pnpm, installs what the command needs, then runs the demo, the checks and tests, or the
// benchmarks. Everything it prints about itself goes to stderr, so `npm run demo -- --graph > g.mmd` stays clean.
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ensurePostgres, testDatabaseUrl } from "./services.mjs";
import { testAll } from "./testing.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const PNPM = "pnpm@12.21.0";
const [command, ...rest] = process.argv.slice(2);
const say = (line) => process.stderr.write(`› ${line}\n`);

const env = {
  ...process.env,
  NX_DAEMON: "false",
  NX_NO_CLOUD: "true",
  // Nx runs each package script with `npm run`: no "> script" banners, no warnings about the user's npmrc.
  npm_config_loglevel: "silent",
  // Package scripts run by Nx find the workspace's own tools (pnpm, vitest, tsc) first.
  PATH: `${path.join(root, "node_modules/.bin")}${path.delimiter}${process.env.PATH ?? ""}`,
};

function run(cmd, args, options = {}) {
  const result = spawnSync(cmd, args, { cwd: root, stdio: "inherit", env, ...options });
  if (result.error) throw result.error;
  if (result.signal) return 128 + (result.signal === "SIGINT" ? 2 : result.signal === "SIGTERM" ? 15 : 9);
  return result.status ?? 1;
}

// ───────────────────────────── install ─────────────────────────────

/** The pinned pnpm: the workspace's own copy, else the one `npx` fetches (located once, then run directly). */
function pnpmPath() {
  const local = path.join(root, "node_modules/.bin/pnpm");
  if (fs.existsSync(local)) return local;
  const found = spawnSync("npx", ["--yes", "-p", PNPM, "-c", "command -v pnpm"], {
    cwd: root,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  const bin = found.stdout?.trim().split("\n").pop();
  if (found.status !== 0 || !bin) {
    console.error(`Could not fetch ${PNPM} with npx. Install it with \`npm i -g ${PNPM}\` and run again.`);
    process.exit(1);
  }
  return bin;
}

const marker = path.join(root, "node_modules/.graph-install.json");
const lockHash = () =>
  crypto
    .createHash("sha256")
    .update(fs.readFileSync(path.join(root, "pnpm-lock.yaml")))
    .digest("hex");

/** What the last install covered ("all" or "demo"), if it was made from the current lockfile. */
function installed() {
  try {
    const state = JSON.parse(fs.readFileSync(marker, "utf8"));
    return state.lock === lockHash() ? state.scope : undefined;
  } catch {
    return undefined;
  }
}

/** Whether node_modules holds an install with devDependencies, whoever made it. */
function hasFullInstall() {
  try {
    return /"?devDependencies"?\s*:\s*true/.test(
      fs.readFileSync(path.join(root, "node_modules/.modules.yaml"), "utf8"),
    );
  } catch {
    return false;
  }
}

/**
 * The peer dependencies of the workspace packages (effect, zod, kysely, …). The demo runs the packages from their
 * source folders, so a package's import of its peer resolves from `packages/<name>/node_modules`, where only its own
 * devDependency puts it. Without devDependencies the demo's install hoists these to the root `node_modules`
 * instead (the demo itself depends on the versions it uses).
 */
function externalPeers() {
  const names = new Set();
  const dir = path.join(root, "packages");
  for (const name of fs.readdirSync(dir)) {
    const manifest = path.join(dir, name, "package.json");
    if (!fs.existsSync(manifest)) continue;
    const peers = JSON.parse(fs.readFileSync(manifest, "utf8")).peerDependencies ?? {};
    for (const [peer, range] of Object.entries(peers)) if (!String(range).startsWith("workspace:")) names.add(peer);
  }
  return [...names].sort();
}

/**
 * Installs the workspace ("all") or only the demo and the packages it uses ("demo"). pnpm's output goes to stderr.
 * Only this pnpm process gets `npm_config_nodedir`: node-gyp (building better-sqlite3) reads it, while every npm
 * process that saw it would warn about an unknown config.
 */
function install(scope) {
  const have = installed();
  if (have === "all" || have === scope) return;
  // A full node_modules (made from an older lockfile, or by a plain `pnpm install`) is updated as a whole: pnpm
  // refuses to narrow it to the demo's packages in place (it was made with other hoisting settings).
  if (scope === "demo" && hasFullInstall()) scope = "all";
  if (scope === "demo") say(`installing the demo and the @graph packages it uses with ${PNPM}`);
  else say(`installing the workspace with ${PNPM}`);
  if (!fs.existsSync(path.join(root, "node_modules/.modules.yaml"))) {
    say(
      "better-sqlite3 has no prebuilt binary for every platform: this first install may build it from source (~1 min)",
    );
  }
  const nodedir = process.env.npm_config_nodedir ?? (fs.existsSync("/usr/include/node/node.h") ? "/usr" : undefined);
  // A demo install leaves out devDependencies, so going from it to the whole workspace changes what node_modules
  // holds: pnpm then rebuilds it, and must not stop to ask (there is no terminal in CI).
  const args = ["install", "--frozen-lockfile", "--reporter=append-only", "--config.confirm-modules-purge=false"];
  // The demo and the packages it depends on at run time. `--prod` keeps out every devDependency, the workspace
  // root's own tools (nx, vitest, biome, …) included, which `--filter-prod` alone still installs.
  if (scope === "demo") {
    args.push("--prod", "--filter-prod", "@graph/demo...");
    for (const name of externalPeers()) args.push(`--public-hoist-pattern=${name}`);
  }
  const status = run(pnpmPath(), args, {
    stdio: ["ignore", process.stderr, process.stderr],
    env: { ...env, npm_config_loglevel: undefined, ...(nodedir === undefined ? {} : { npm_config_nodedir: nodedir }) },
  });
  if (status !== 0) process.exit(status);
  fs.writeFileSync(marker, JSON.stringify({ scope, lock: lockHash() }));
}

const bin = (name) => path.join(root, "node_modules/.bin", name);

// ───────────────────────────── commands ─────────────────────────────

/**
 * Runs a TypeScript entry point of a workspace app with node directly (not through a package manager), so its exit
 * code reaches the shell as it is. Ctrl-C is left to the app (the demo stops the run on the first one and quits on
 * the second); this process just waits for it.
 */
function runApp(dir, args, nodeFlags = []) {
  process.on("SIGINT", () => {});
  process.on("SIGTERM", () => {});
  return run(
    process.execPath,
    ["--conditions=@graph/source", "--import", "tsx", ...nodeFlags, "src/main.ts", ...args],
    {
      cwd: path.join(root, dir),
      env: { ...env, INIT_CWD: process.env.INIT_CWD ?? process.cwd() },
    },
  );
}

/** Every check and test (tools/scripts/testing.mjs), with the PostgreSQL the integration tests need. */
async function test() {
  install("all");
  let postgres;
  try {
    postgres = await ensurePostgres();
  } catch (error) {
    console.error(String(error.message ?? error));
    return 1;
  }
  // A throwaway server this run started is stopped however the run ends.
  const stop = () => postgres.stop();
  process.on("exit", stop);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"])
    process.on(signal, () => {
      stop();
      process.exit(130);
    });
  env.DATABASE_URL = testDatabaseUrl(postgres.url);
  return testAll({ root, env, bin });
}

switch (command) {
  case "demo":
    install("demo");
    process.exit(runApp("apps/demo", rest));
    break;
  case "chat":
    install("all");
    process.exit(runApp("apps/chat", rest));
    break;
  case "bench":
    install("all");
    process.exit(runApp("tools/bench", rest, ["--expose-gc"]));
    break;
  case "test":
    process.exit(await test());
    break;
  default:
    console.error(`Unknown command '${command}'. Use one of: demo, chat, test, bench.`);
    process.exit(2);
}
