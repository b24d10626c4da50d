#!/usr/bin/env node
// Checks what a package would publish, from the tarball itself: packs the package in the current directory with
// pnpm (as a release would: `workspace:*` becomes a version), then runs publint --strict (package.json fields, files,
// exports) and attw with the ESM-only profile (every export's types resolve for node16/nodenext and bundlers), and
// checks the metadata npm shows (repository, homepage, bugs, license, engines) against the workspace root's, and that
// the published declarations import only what a user's install brings (no types from a devDependency).
// Run by the `check-package` Nx target after `build`.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { builtinModules } from "node:module";
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

/**
 * What npm shows about the package must point at the canonical repository (the root package.json's `repository`,
 * see CONTRIBUTING.md) and this package's folder in it, with the license, author, keywords and engines every package
 * carries. Returns the problems.
 */
function metadataProblems() {
  const workspace = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
  const manifest = JSON.parse(fs.readFileSync(path.join(pkgDir, "package.json"), "utf8"));
  const directory = path.relative(root, pkgDir).split(path.sep).join("/");
  const base = workspace.homepage.replace(/#readme$/, "");
  const expected = {
    license: workspace.license,
    repository: { ...workspace.repository, directory },
    homepage: `${base}/tree/main/${directory}#readme`,
    bugs: workspace.bugs,
    engines: workspace.engines,
  };
  const problems = Object.entries(expected)
    .filter(([key, value]) => JSON.stringify(manifest[key]) !== JSON.stringify(value))
    .map(([key, value]) => `"${key}" must be ${JSON.stringify(value)} (is ${JSON.stringify(manifest[key])})`);
  if (typeof manifest.author !== "string" || manifest.author === "") problems.push('"author" is missing');
  if (!Array.isArray(manifest.keywords) || manifest.keywords.length === 0) problems.push('"keywords" is missing');
  if (typeof manifest.description !== "string" || manifest.description === "")
    problems.push('"description" is missing');
  return problems;
}

/** The package name of a bare module specifier (`kysely`, `@graph/core` from `@graph/core/effect`), or undefined. */
function packageOf(specifier) {
  if (specifier.startsWith(".") || specifier.startsWith("node:") || path.isAbsolute(specifier)) return undefined;
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

function declarationFiles(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return declarationFiles(file);
    return entry.name.endsWith(".d.ts") ? [file] : [];
  });
}

/**
 * A user compiling with `skipLibCheck: false` type-checks our `.d.ts` files: every module they import must come
 * with the install — a dependency or peer dependency, with its types (its own, or `@types/x` as a dependency too;
 * `@types/x` only in devDependencies is what a user will not have). Returns the problems.
 */
function typeImportProblems() {
  const manifest = JSON.parse(fs.readFileSync(path.join(pkgDir, "package.json"), "utf8"));
  const installed = new Set([
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
  ]);
  const devOnly = new Set(Object.keys(manifest.devDependencies ?? {}));
  const problems = new Set();
  const imports = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["']([^"']+)["']/g;
  for (const file of declarationFiles(path.join(pkgDir, "dist"))) {
    const code = fs
      .readFileSync(file, "utf8")
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .replace(/^\s*\/\/.*$/gm, "");
    for (const [, specifier] of code.matchAll(imports)) {
      const name = packageOf(specifier);
      if (name === undefined || name === manifest.name || builtinModules.includes(name)) continue;
      const where = path.relative(pkgDir, file);
      if (!installed.has(name))
        problems.add(`${where} imports "${specifier}", which is not a dependency or peer dependency`);
      else if (!installed.has(`@types/${name}`) && devOnly.has(`@types/${name}`))
        problems.add(`${where} imports "${specifier}", whose types (@types/${name}) are only a devDependency`);
    }
  }
  return [...problems];
}

let status = 1;
try {
  const problems = [...metadataProblems(), ...typeImportProblems()];
  for (const problem of problems) console.error(`${path.relative(root, pkgDir)}/package.json: ${problem}`);
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
  status = problems.length === 0 && missing.length === 0 && publint === 0 && attw === 0 ? 0 : 1;
} finally {
  fs.rmSync(out, { recursive: true, force: true });
}
process.exit(status);
