/**
 * Child scripts as one plain JavaScript file each: a TypeScript script and the workspace sources it imports are
 * bundled with esbuild (third-party packages stay external, imported by absolute path), so a child starts with no
 * loader hooks. Started through `tsx` instead, every child spends over a second of CPU resolving and transforming
 * hundreds of modules — the crash, race and zombie tests start hundreds of children, on machines with few cores.
 *
 * A graph's definition hash includes its functions' source text, and a bundle reprints code: a graph that both
 * the parent (vitest) and a bundled child load from plain JavaScript with comments in its functions hashes
 * differently in each (the runtime then refuses the workflow as another version). TypeScript modules are printed
 * by esbuild on both sides; keep graphs shared with a child in TypeScript, or start that child through tsx.
 *
 * Bundles are cached on disk, keyed by the entry and checked against the modification times of every input, so
 * an edited source is always rebuilt. The build runs in a separate Node process (`spawnSync`) so starting a child
 * stays synchronous for the callers.
 */
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** Where adapter modules bundled into a child register themselves (read by `loadFactory` before importing). */
export const PRELOADED_MODULES = Symbol.for("@graph/checkpoint-conformance/preloaded-modules");

/** How to start a script: the file to fork and the Node options it needs. */
export interface ScriptCommand {
  readonly script: string;
  readonly execArgv: readonly string[];
}

/** The Node options that run TypeScript sources directly (the fallback when esbuild is not installed). */
const TSX_EXEC_ARGV: readonly string[] = ["--conditions=@graph/source", "--import", "tsx"];

// Runs in its own process: builds the bundle and writes the list of inputs with their modification times.
const BUILDER = `
const [esbuildPath, specJson] = process.argv.slice(1);
const spec = JSON.parse(specJson);
const esbuild = await import(esbuildPath);
const path = await import("node:path");
const fs = await import("node:fs");
const PRELOAD = "graph-preload";
const externals = {
  name: "graph-externals",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.path.startsWith("@graph/") || args.path.startsWith(PRELOAD + ":") || args.pluginData?.inner) return undefined;
      const found = await build.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        pluginData: { inner: true },
      });
      if (found.errors.length > 0) return { errors: found.errors };
      if (found.external || !path.isAbsolute(found.path)) return { path: args.path, external: true };
      return { path: found.path, external: true };
    });
    build.onResolve({ filter: /^graph-preload:/ }, (args) => ({ path: args.path.slice(PRELOAD.length + 1), namespace: PRELOAD }));
    build.onLoad({ filter: /.*/, namespace: PRELOAD }, (args) => ({
      contents:
        "import * as loaded from " + JSON.stringify(args.path) + ";\\n" +
        "const key = Symbol.for(" + JSON.stringify(spec.registry) + ");\\n" +
        "(globalThis[key] ??= {})[" + JSON.stringify(spec.preloadUrl) + "] = loaded;\\n",
      resolveDir: path.dirname(args.path),
      loader: "js",
    }));
  },
};
const imports = (spec.preload ? ["graph-preload:" + spec.preload] : []).concat([spec.entry]);
const tmp = spec.outfile + "." + process.pid + ".tmp";
const result = await esbuild.build({
  stdin: { contents: imports.map((i) => "import " + JSON.stringify(i) + ";").join("\\n"), resolveDir: path.dirname(spec.entry), loader: "js" },
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // The child script is imported for its side effects; "sideEffects": false in a package must not drop it.
  ignoreAnnotations: true,
  conditions: ["@graph/source"],
  outfile: tmp,
  metafile: true,
  logLevel: "silent",
  plugins: [externals],
});
const inputs = {};
for (const input of Object.keys(result.metafile.inputs)) {
  const file = input.startsWith(PRELOAD + ":") ? input.slice(PRELOAD.length + 1) : path.resolve(input);
  if (fs.existsSync(file)) inputs[file] = fs.statSync(file).mtimeMs;
}
fs.renameSync(tmp, spec.outfile);
fs.writeFileSync(spec.manifest + "." + process.pid + ".tmp", JSON.stringify(inputs));
fs.renameSync(spec.manifest + "." + process.pid + ".tmp", spec.manifest);
`;

const built = new Map<string, ScriptCommand>();

/**
 * esbuild's entry, when it is installed (it comes with tsx and vite); undefined otherwise. Resolved, not
 * imported: the build runs in another process (knip cannot see this use).
 */
function esbuildEntry(): string | undefined {
  try {
    return pathToFileURL(createRequire(import.meta.url).resolve("esbuild")).href;
  } catch {
    return undefined;
  }
}

/** True when every input recorded in the manifest still has the modification time it was built from. */
function fresh(outfile: string, manifest: string): boolean {
  if (!fs.existsSync(outfile) || !fs.existsSync(manifest)) return false;
  try {
    const inputs = JSON.parse(fs.readFileSync(manifest, "utf8")) as Record<string, number>;
    return Object.entries(inputs).every(([file, mtime]) => fs.existsSync(file) && fs.statSync(file).mtimeMs === mtime);
  } catch {
    return false;
  }
}

/**
 * How to start the child script `entry`: a JavaScript file runs as it is; a TypeScript one is bundled (with the
 * adapter module `preload`, whose exports the child then finds without importing it) and runs with no loader; if
 * esbuild is missing, it runs through tsx. A bundle that fails to build throws esbuild's message.
 */
export function scriptCommand(entry: string, preload?: string): ScriptCommand {
  if (!entry.endsWith(".ts")) return { script: entry, execArgv: [] };
  const preloadFile = preload?.endsWith(".ts") ? toPath(preload) : undefined;
  const key = `${entry}\0${preloadFile ?? ""}`;
  const known = built.get(key);
  if (known !== undefined) return known;
  const esbuild = esbuildEntry();
  if (esbuild === undefined) return { script: entry, execArgv: TSX_EXEC_ARGV };
  const dir = path.join(os.tmpdir(), `graph-child-scripts-${process.getuid?.() ?? "user"}`);
  fs.mkdirSync(dir, { recursive: true });
  const hash = crypto.createHash("sha256").update(key).digest("hex").slice(0, 16);
  const outfile = path.join(dir, `${path.basename(entry, ".ts")}-${hash}.mjs`);
  const manifest = `${outfile}.inputs.json`;
  if (!fresh(outfile, manifest)) {
    const spec = {
      entry,
      outfile,
      manifest,
      preload: preloadFile,
      preloadUrl: preloadFile === undefined ? undefined : pathToFileURL(preloadFile).href,
      registry: PRELOADED_MODULES.description,
    };
    const result = spawnSync(process.execPath, ["--input-type=module", "-e", BUILDER, esbuild, JSON.stringify(spec)], {
      encoding: "utf8",
    });
    if (result.status !== 0)
      throw new Error(`Could not bundle the child script ${entry} with esbuild:\n${result.stderr}${result.stdout}`);
  }
  const command = { script: outfile, execArgv: [] };
  built.set(key, command);
  return command;
}

function toPath(module: string): string {
  return module.startsWith("file:") ? fileURLToPath(module) : path.resolve(module);
}
