#!/usr/bin/env node
// Checks what a package would publish, from the tarball itself: packs the package in the current directory with
// pnpm (as a release would: `workspace:*` becomes a version), then runs publint --strict (package.json fields, files,
// exports) and attw with the ESM-only profile (every export's types resolve for node16/nodenext and bundlers).
// Run by the `check-package` Nx target after `build`.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bin = (name) => path.join(root, "node_modules/.bin", name);
const pkgDir = process.cwd();
const out = fs.mkdtempSync(path.join(os.tmpdir(), "graph-pack-"));

function run(cmd, args) {
  const result = spawnSync(cmd, args, { cwd: pkgDir, stdio: "inherit" });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

let status = 1;
try {
  const packed = spawnSync(bin("pnpm"), ["pack", "--pack-destination", out], { cwd: pkgDir, encoding: "utf8" });
  const tarball = fs.readdirSync(out).find((f) => f.endsWith(".tgz"));
  if (packed.status !== 0 || tarball === undefined) {
    process.stderr.write(packed.stdout + packed.stderr);
    throw new Error(`pnpm pack failed in ${pkgDir}`);
  }
  const file = path.join(out, tarball);
  const listing = spawnSync("tar", ["-tzf", file], { encoding: "utf8" }).stdout.split("\n");
  const missing = ["package/LICENSE", "package/package.json"].filter((f) => !listing.includes(f));
  if (missing.length > 0) console.error(`${tarball} lacks ${missing.join(", ")}`);
  // A package without a README still works; say so loudly rather than fail every run while it is being written.
  if (!listing.includes("package/README.md")) console.warn(`warning: ${tarball} has no README.md`);
  const publint = run(bin("publint"), ["run", file, "--strict"]);
  const attw = run(bin("attw"), [file, "--profile", "esm-only", "--format", "ascii"]);
  status = missing.length === 0 && publint === 0 && attw === 0 ? 0 : 1;
} finally {
  fs.rmSync(out, { recursive: true, force: true });
}
process.exit(status);
