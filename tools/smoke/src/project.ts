// An empty consumer project with the packed tarballs installed by plain npm: no workspace, no pnpm, nothing of the
// repository on its module path. What a user gets from `npm i @graph/…`.

import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { exec, type Published, readJson, root } from "./pack.js";

const fixtures = path.join(root, "tools/smoke/fixtures");

/** Packages a user adds next to ours: an OpenTelemetry SDK for `@graph/otel`, Node's types for `tsc`. */
function extras(): Record<string, string> {
  const otel = readJson<{ devDependencies: Record<string, string> }>(path.join(root, "packages/otel/package.json"));
  // A React page written in TypeScript has React's types: the consumer compiles @graph/react's declarations with them.
  const react = readJson<{ devDependencies: Record<string, string> }>(path.join(root, "packages/react/package.json"));
  const workspace = readJson<{ devDependencies: Record<string, string> }>(path.join(root, "package.json"));
  const caret = (version: string | undefined, name: string) => {
    if (version === undefined) throw new Error(`no version of ${name} in the workspace manifests`);
    return `^${version.replace(/^[\^~]/, "")}`;
  };
  return {
    "@opentelemetry/sdk-trace-base": caret(otel.devDependencies["@opentelemetry/sdk-trace-base"], "sdk-trace-base"),
    "@types/node": caret(workspace.devDependencies["@types/node"], "@types/node"),
    "@types/react": caret(react.devDependencies["@types/react"], "@types/react"),
  };
}

/** The better-sqlite3 the workspace installed (and built from source): its version and folder. */
function workspaceSqlite(): { version: string; dir: string } | undefined {
  try {
    const require = createRequire(path.join(root, "packages/checkpoint-sqlite/package.json"));
    const manifest = require.resolve("better-sqlite3/package.json");
    return { version: readJson<{ version: string }>(manifest).version, dir: path.dirname(manifest) };
  } catch {
    return undefined;
  }
}

/**
 * better-sqlite3's install script runs `prebuild-install`, which downloads a prebuilt binding for the user's Node
 * and platform, else compiles SQLite from source (~75 s on 2 cores). This machine cannot reach the download host, so
 * the binding the workspace's own install compiled from the same version's source is offered to `prebuild-install`
 * as a local prebuild (its `npm_config_<package>_local_prebuilds` setting). The install script still has to be
 * allowed to run and still installs the binding: the step a user's install goes through is the same, only the
 * download is local. Without a built workspace copy the script compiles from source, as on a user's machine.
 */
export async function localPrebuild(dir: string): Promise<{ env: Record<string, string>; version?: string }> {
  const sqlite = workspaceSqlite();
  if (sqlite === undefined) return { env: {} };
  const binding = path.join(sqlite.dir, "build/Release/better_sqlite3.node");
  // prebuild-install names musl builds differently; there a source build it is.
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  const glibc = process.platform !== "linux" || report?.header?.glibcVersionRuntime !== undefined;
  if (!fs.existsSync(binding) || !glibc) return { env: {} };
  const staging = path.join(dir, "staging");
  fs.mkdirSync(path.join(staging, "build/Release"), { recursive: true });
  fs.copyFileSync(binding, path.join(staging, "build/Release/better_sqlite3.node"));
  const prebuilds = path.join(dir, "prebuilds");
  fs.mkdirSync(prebuilds, { recursive: true });
  const name = `better-sqlite3-v${sqlite.version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const packed = await exec("tar", ["-czf", path.join(prebuilds, name), "-C", staging, "build"], { cwd: dir });
  if (packed.code !== 0) throw new Error(`could not pack the local better-sqlite3 prebuild: ${packed.output}`);
  return { env: { npm_config_better_sqlite3_local_prebuilds: prebuilds }, version: sqlite.version };
}

export interface SmokeProject {
  readonly dir: string;
  /** What `npm install` printed. */
  readonly installOutput: string;
  readonly installMs: number;
}

/**
 * Creates `<dir>/app` with a package.json that depends on every tarball (by `file:` path), the packages' peers (by
 * their declared ranges) and `extras()`, copies the smoke scripts next to it, and runs `npm install`.
 */
export async function installProject(
  packages: readonly Published[],
  tarballs: ReadonlyMap<string, string>,
  dir: string,
): Promise<SmokeProject> {
  const app = path.join(dir, "app");
  fs.mkdirSync(app, { recursive: true });
  const dependencies: Record<string, string> = {};
  for (const pkg of packages) {
    const tarball = tarballs.get(pkg.name);
    if (tarball === undefined) throw new Error(`no tarball for ${pkg.name}`);
    dependencies[pkg.name] = `file:${tarball}`;
    for (const [peer, range] of Object.entries(pkg.manifest.peerDependencies ?? {})) {
      // Required peers only, as a user installs them (an optional one, like the kit's esbuild, is the user's pick).
      const optional = pkg.manifest.peerDependenciesMeta?.[peer]?.optional === true;
      if (!peer.startsWith("@graph/") && !optional) dependencies[peer] ??= range;
    }
  }
  Object.assign(dependencies, extras());
  const prebuild = await localPrebuild(dir);
  // The version the local prebuild was made from (a user gets the newest in the package's range).
  if (prebuild.version !== undefined) dependencies["better-sqlite3"] = prebuild.version;
  const manifest = {
    name: "graph-smoke-app",
    private: true,
    type: "module",
    dependencies,
    // What `npm approve-scripts better-sqlite3` and `npm deny-scripts msgpackr-extract` write (docs/install.md):
    // npm 11 asks a project to review every dependency's install script (npm 11.19 warns, a coming release blocks
    // unreviewed ones). better-sqlite3 needs its script for its native binding; msgpackr-extract (through bullmq)
    // is an optional accelerator that works without it.
    allowScripts: { "better-sqlite3": true, "msgpackr-extract": false },
  };
  fs.writeFileSync(path.join(app, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  for (const file of fs.readdirSync(fixtures)) fs.copyFileSync(path.join(fixtures, file), path.join(app, file));
  const started = Date.now();
  const env = userEnv({ ...prebuild.env, npm_config_update_notifier: "false" });
  const installed = await exec(
    "npm",
    ["install", "--no-audit", "--no-fund", "--prefer-offline", "--foreground-scripts"],
    { cwd: app, env, timeoutMs: 540_000 },
  );
  if (installed.code !== 0) throw new Error(`npm install failed in ${app}:\n${installed.output}`);
  return { dir: app, installOutput: installed.output, installMs: Date.now() - started };
}

/** The environment a smoke script runs with: the user's own, minus anything of the workspace. */
export function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env))
    if (/^(npm_|pnpm_|PNPM_|NODE_OPTIONS$|VITEST|TEST$|INIT_CWD$)/.test(key)) delete env[key];
  env["PATH"] = (env["PATH"] ?? "")
    .split(path.delimiter)
    .filter((entry) => !entry.startsWith(root))
    .join(path.delimiter);
  return { ...env, ...extra };
}

export const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "graph-smoke-"));
