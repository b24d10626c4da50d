// The cold start a serverless handler or a CLI pays on every invocation: a fresh `node` imports the built
// `@graph/core` and `@graph/runtime` and runs one async node. The number of modules it loads is deterministic (the
// lockfile pins every version), so it has a budget; the import time is reported beside it but not asserted on, since
// wall time on a shared machine is noise.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * Measured at 292 (Effect 3.22 submodules 155, our own packages 134, graphology 2, croner 1; zod is not imported,
 * 356 before it went lazy). Wave 3's time, schedules, node limits, bulk operations, node cache and frames added 29
 * of our own modules to the import path (263 before them). A change that pulls in a barrel (the whole `effect`
 * index alone is ~600 modules), zod, or a new dependency on the import path goes over. Wave 4 added 16 of our own
 * (308): durable retry attempts, answers that name their pause, due times pushed to idle runners, list filters, the
 * retention sweeper, private state of nested graphs, and their errors (kept in the one errors module).
 */
const MODULE_BUDGET = 310;

const bench = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const root = path.resolve(bench, "../..");
const entries = ["packages/core/dist/index.js", "packages/runtime/dist/index.js"];

// Counts every module the ESM loader loads (builtins and inline `data:` modules aside). The hooks run on the loader
// thread, so the count is read back through a module whose source the resolve hook writes.
const hooks = `
const seen = new Set();
export async function resolve(specifier, context, next) {
  if (specifier === "coldstart:modules") {
    return { url: "data:text/javascript,export default " + encodeURIComponent(JSON.stringify([...seen])), shortCircuit: true };
  }
  return next(specifier, context);
}
export async function load(url, context, next) {
  if (!url.startsWith("node:") && !url.startsWith("data:")) seen.add(url);
  return next(url, context);
}`;

const probe = `
import { register } from "node:module";
import { performance } from "node:perf_hooks";
register("data:text/javascript," + encodeURIComponent(${JSON.stringify(hooks)}));
const started = performance.now();
const { Graph, node } = await import("@graph/core");
const { Runner } = await import("@graph/runtime");
const imported = performance.now();
const graph = new Graph([node({ output: "y" }, async function double({ x }) { return x * 2; })], { name: "cold" });
const result = await new Runner().run(graph, { values: { x: 21 } });
const ran = performance.now();
const modules = (await import("coldstart:modules")).default;
console.log(JSON.stringify({
  status: result.status,
  y: result.values.y,
  modules,
  importMs: imported - started,
  firstRunMs: ran - imported,
  rssMb: process.memoryUsage().rss / 2 ** 20,
}));
`;

interface Probe {
  status: string;
  y: unknown;
  modules: string[];
  importMs: number;
  firstRunMs: number;
  rssMb: number;
}

function runProbe(): Probe {
  const missing = entries.filter((entry) => !fs.existsSync(path.join(root, entry)));
  if (missing.length > 0) {
    throw new Error(
      `The cold-start check imports the built packages, but ${missing.join(", ")} is missing.\n  How to fix: build first, ./node_modules/.bin/nx run-many -t build (npm test builds before it tests).`,
    );
  }
  // Without the `@graph/source` condition (and any NODE_OPTIONS the runner carries) the packages resolve to dist.
  const { NODE_OPTIONS: _ignored, ...env } = process.env;
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", probe], {
    cwd: bench,
    env,
    encoding: "utf8",
    timeout: 60_000,
  });
  if (child.status !== 0) throw new Error(`The cold-start probe failed (exit ${child.status}):\n${child.stderr}`);
  return JSON.parse(child.stdout.trim().split("\n").at(-1) ?? "") as Probe;
}

describe("cold start of @graph/core + @graph/runtime (built)", () => {
  it("loads at most the module budget, never the effect barrel nor zod, and runs a 1-node graph", () => {
    const result = runProbe();
    const byPackage = new Map<string, number>();
    for (const url of result.modules) {
      const name = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
      const key = name ?? /\/packages\/([^/]+)\//.exec(url)?.[1] ?? url;
      byPackage.set(key, (byPackage.get(key) ?? 0) + 1);
    }
    console.log(
      `cold start: ${result.modules.length} modules (budget ${MODULE_BUDGET}; ${[...byPackage].map(([k, n]) => `${k} ${n}`).join(", ")}), import ${result.importMs.toFixed(0)} ms, first run ${result.firstRunMs.toFixed(1)} ms, RSS ${result.rssMb.toFixed(0)} MB`,
    );
    expect(result.status).toBe("completed");
    expect(result.y).toBe(42);
    expect(result.modules.filter((url) => /\/effect\/dist\/esm\/index\.js$/.test(url))).toEqual([]);
    // Core describes node schemas through the schemas themselves (packages/core/src/internal/zod.ts).
    expect(byPackage.get("zod")).toBeUndefined();
    expect(result.modules.length).toBeLessThanOrEqual(MODULE_BUDGET);
  });
});
