// Packing the published packages the way a release does (`pnpm pack`: `workspace:` ranges become versions, `files`
// decides what ships) and reading what ended up in each tarball.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/** A package of `packages/` that is published (not `private`). */
export interface Published {
  readonly name: string;
  /** Folder name under `packages/`, e.g. `checkpoint-sqlite`. */
  readonly folder: string;
  readonly dir: string;
  readonly manifest: Manifest;
}

export interface Manifest {
  readonly name: string;
  readonly version: string;
  readonly private?: boolean;
  readonly files?: readonly string[];
  readonly scripts?: Record<string, string>;
  readonly dependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  readonly devDependencies?: Record<string, string>;
}

export const readJson = <T>(file: string): T => JSON.parse(fs.readFileSync(file, "utf8")) as T;

export function publishedPackages(): Published[] {
  const dir = path.join(root, "packages");
  return fs
    .readdirSync(dir)
    .sort()
    .filter((folder) => fs.existsSync(path.join(dir, folder, "package.json")))
    .map((folder) => {
      const manifest = readJson<Manifest>(path.join(dir, folder, "package.json"));
      return { name: manifest.name, folder, dir: path.join(dir, folder), manifest };
    })
    .filter((pkg) => pkg.manifest.private !== true);
}

/** The workspace's pnpm (the pinned one), as the release tooling runs it. */
const pnpm = path.join(root, "node_modules/.bin/pnpm");

/** Runs a command, collecting its output; resolves with the exit code (never rejects on a non-zero exit). */
export function exec(
  cmd: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: "pipe" });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            output += `\n[killed after ${options.timeoutMs} ms]`;
            child.kill("SIGKILL");
          }, options.timeoutMs);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      if (timer !== undefined) clearTimeout(timer);
      resolve({ code: code ?? (signal === null ? 1 : 128), output });
    });
  });
}

/** Packs every published package into `dest`; returns package name → tarball path. */
export async function packAll(packages: readonly Published[], dest: string): Promise<Map<string, string>> {
  fs.mkdirSync(dest, { recursive: true });
  const tarballs = new Map<string, string>();
  // A few at a time: each is a short pnpm process, and the machine may be busy with the rest of `npm test`.
  const queue = [...packages];
  const worker = async () => {
    for (let pkg = queue.shift(); pkg !== undefined; pkg = queue.shift()) {
      const out = path.join(dest, pkg.folder);
      fs.mkdirSync(out, { recursive: true });
      const packed = await exec(pnpm, ["pack", "--pack-destination", out], { cwd: pkg.dir, timeoutMs: 60_000 });
      const tarball = fs.readdirSync(out).find((file) => file.endsWith(".tgz"));
      if (packed.code !== 0 || tarball === undefined) {
        throw new Error(`pnpm pack failed in ${path.relative(root, pkg.dir)}:\n${packed.output}`);
      }
      tarballs.set(pkg.name, path.join(out, tarball));
    }
  };
  await Promise.all([worker(), worker(), worker()]);
  return tarballs;
}

/** The files in a tarball, relative to its `package/` folder. */
export function tarballFiles(tarball: string): string[] {
  const listed = spawnSync("tar", ["-tzf", tarball], { encoding: "utf8" });
  if (listed.status !== 0) throw new Error(`tar -tzf ${tarball} failed: ${listed.stderr}`);
  return listed.stdout
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => line.replace(/^package\//, ""))
    .sort();
}

/** The `package.json` inside a tarball: what npm shows and installs. */
export function tarballManifest(tarball: string): Manifest & Record<string, unknown> {
  const shown = spawnSync("tar", ["-xzOf", tarball, "package/package.json"], { encoding: "utf8" });
  if (shown.status !== 0) throw new Error(`no package.json in ${tarball}: ${shown.stderr}`);
  return JSON.parse(shown.stdout) as Manifest & Record<string, unknown>;
}
