#!/usr/bin/env node
// Type-checking cost guard for the static graph types. Generates two graphs — a 100-node chain and a 400-node graph
// built from 20 subgraphs of 20 nodes — each typed end to end (InputsOf/OutputsOf, runner.run values, result.get),
// and checks tsc's instantiation counts (deterministic, unlike seconds) against budgets. The counts are measured
// as a delta over a baseline file that imports the same modules and runs a one-node graph, so the budgets cover
// the graph types only, not the libraries' own declarations.
//
// Usage: node tools/scripts/type-budget.mjs [--json]
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
// Inside the runtime package so `@graph/core` and the runtime's source resolve as a user's code would see them.
const dir = path.join(root, "packages/runtime/.tmp/type-budget");
const tsc = path.join(root, "node_modules/typescript/bin/tsc");

const BUDGETS = { chain100: 50_000, subgraphs400: 200_000 };

const header = `import { Graph, type InputsOf, node, type OutputsOf } from "@graph/core";
import { Runner } from "../../src/index.js";
`;

function baseline() {
  return `${header}
const only = node({ name: "only", output: "v" }, ({ seed }: { seed: string }) => seed.length);
export const g = new Graph([only], { name: "g" });
export async function use() {
  const r = await new Runner().run(g, { values: { seed: "s" } });
  return r.get("v");
}
export type I = InputsOf<typeof g>;
export type O = OutputsOf<typeof g>;
`;
}

/** Node i of a chain: consumes the previous value and a shared config, produces its own value. */
function chainNode(prefix, i, first) {
  const params =
    i === 0
      ? `{ ${first}, cfg }: { ${first}: number; cfg: { k: number } }`
      : `{ ${prefix}v${i - 1}, cfg }: { ${prefix}v${i - 1}: number; cfg: { k: number } }`;
  const body = i === 0 ? `${first} + cfg.k` : `${prefix}v${i - 1} + cfg.k`;
  return `const ${prefix}n${i} = node({ name: "${prefix}n${i}", output: "${prefix}v${i}" }, (${params}) => ${body});\n`;
}

function chain(n) {
  let s = header;
  for (let i = 0; i < n; i++) s += chainNode("", i, "seed");
  s += `export const g = new Graph([${Array.from({ length: n }, (_, i) => `n${i}`).join(", ")}], { name: "g" });\n`;
  s += `export async function use() {
  const r = await new Runner().run(g, { values: { seed: 1, cfg: { k: 1 } } });
  return r.get("v${n - 1}");
}
export type I = InputsOf<typeof g>;
export type O = OutputsOf<typeof g>;
export const last: O["v${n - 1}"] = 1;
`;
  return s;
}

function subgraphs(groups, size) {
  let s = header;
  for (let j = 0; j < groups; j++) {
    const prefix = `s${j}`;
    // Each subgraph continues from the previous one's last value.
    const first = j === 0 ? "seed" : `s${j - 1}v${size - 1}`;
    for (let i = 0; i < size; i++) s += chainNode(prefix, i, first);
    s += `const g${j} = new Graph([${Array.from({ length: size }, (_, i) => `${prefix}n${i}`).join(", ")}], { name: "g${j}" });\n`;
  }
  s += `export const g = new Graph([${Array.from({ length: groups }, (_, j) => `g${j}.asNode()`).join(", ")}], { name: "g" });\n`;
  const last = `g${groups - 1}/s${groups - 1}v${size - 1}`;
  s += `export async function use() {
  const r = await new Runner().run(g, { values: { seed: 1, cfg: { k: 1 } } });
  return [r.get("${last}"), r.get("s${groups - 1}v${size - 1}")];
}
export type I = InputsOf<typeof g>;
export type O = OutputsOf<typeof g>;
`;
  return s;
}

function instantiations(name, source) {
  fs.writeFileSync(path.join(dir, `${name}.ts`), source);
  const config = path.join(dir, `tsconfig.${name}.json`);
  fs.writeFileSync(
    config,
    JSON.stringify({
      extends: "../../../../tsconfig.base.json",
      compilerOptions: { noEmit: true },
      files: [`${name}.ts`],
    }),
  );
  const result = spawnSync(process.execPath, [tsc, "-p", config, "--extendedDiagnostics"], { encoding: "utf8" });
  const out = `${result.stdout}${result.stderr}`;
  if (result.status !== 0) throw new Error(`tsc failed on the generated ${name}.ts:\n${out}`);
  const match = /Instantiations:\s+(\d+)/.exec(out);
  if (!match) throw new Error(`no instantiation count in tsc's output for ${name}:\n${out}`);
  return Number(match[1]);
}

fs.rmSync(dir, { recursive: true, force: true });
fs.mkdirSync(dir, { recursive: true });
let base;
let measured;
try {
  base = instantiations("baseline", baseline());
  measured = {
    chain100: instantiations("chain100", chain(100)) - base,
    subgraphs400: instantiations("subgraphs400", subgraphs(20, 20)) - base,
  };
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
let failed = false;
const rows = Object.entries(measured).map(([name, count]) => {
  const ok = count <= BUDGETS[name];
  if (!ok) failed = true;
  return { name, instantiations: count, budget: BUDGETS[name], ok };
});
if (process.argv.includes("--json")) console.log(JSON.stringify({ baseline: base, rows }, null, 2));
else {
  console.log(`type budget (tsc instantiations above a ${base}-instantiation baseline):`);
  for (const r of rows) console.log(`  ${r.ok ? "✓" : "✖"} ${r.name}: ${r.instantiations} (budget ${r.budget})`);
}
if (failed) {
  console.error("✖ type-checking cost over budget: some graph type is no longer linear in the number of nodes.");
  process.exit(1);
}
