import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { accumulatorSeeds, type GraphSpec, graphSpec, loopNeeds, type NodeSpec } from "./loopRule.js";

// The compiler infers what the plain-code rule says: random graphs (most of them with loops) are written out as
// TypeScript, each with the rule's answer as `expectTypeOf` assertions, and compiled by the real `tsc`. With
// loopNeeds.test.ts (the rule never demands more than the runtime) this shows the types never do either.
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../../..");
const work = fs.mkdtempSync(path.join(here, "../.tmp-loops-"));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const union = (keys: readonly string[]) => (keys.length === 0 ? "never" : keys.map((k) => `"${k}"`).join(" | "));

function nodeSource(n: NodeSpec, id: string): string {
  const pattern = n.inputs.map((i) => (n.defaults.includes(i) ? `${i} = 0` : i)).join(", ");
  const type = n.inputs.map((i) => (n.defaults.includes(i) ? `${i}?: number` : `${i}: number`)).join("; ");
  const output = n.outputs.length === 1 ? `"${n.outputs[0]}"` : `[${n.outputs.map((o) => `"${o}"`).join(", ")}]`;
  const result = n.outputs.length === 1 ? "0" : "[0, 0]";
  const param = `{ ${pattern} }: { ${type} }`;
  return n.literalName
    ? `const ${id} = node({ name: "${n.name}", output: ${output} }, (${param}) => ${result});`
    : `const ${id} = node({ output: ${output} }, function ${n.name}(${param}) { return ${result}; });`;
}

/** A graph's source and the assertions of what a fresh run needs. */
function graphSource(spec: GraphSpec, g: number): string {
  const lines = spec.nodes.map((n, i) => nodeSource(n, `g${g}n${i}`));
  const ids = spec.nodes.map((_, i) => `g${g}n${i}`);
  if (spec.gate !== undefined) {
    const targets = spec.gate.targets.map((t) => (t === "END" ? "END" : `"n${t}"`)).join(", ");
    lines.push(
      `const g${g}gate = route({ name: "gate", targets: [${targets}] }, ({ ${spec.gate.reads} }: { ${spec.gate.reads}: number }) => END);`,
    );
    ids.push(`g${g}gate`);
  }
  const options = spec.entry === undefined ? "" : `, { entrypoint: "n${spec.entry}" }`;
  lines.push(`const g${g} = new Graph([${ids.join(", ")}]${options});`);
  const needs = loopNeeds(spec);
  const produced = new Set(spec.nodes.flatMap((n) => n.outputs));
  const inputs = new Set<string>();
  for (const n of spec.nodes) for (const i of n.inputs) if (!produced.has(i) && !n.defaults.includes(i)) inputs.add(i);
  if (spec.gate !== undefined && !produced.has(spec.gate.reads)) inputs.add(spec.gate.reads);
  const required = [...new Set([...inputs, ...accumulatorSeeds(spec), ...needs.required])].sort();
  lines.push(`expectTypeOf<Required<typeof g${g}>>().toEqualTypeOf<${union(required)}>();`);
  lines.push(`expectTypeOf<Choice<typeof g${g}>>().toEqualTypeOf<${union(needs.choice)}>();`);
  return lines.join("\n");
}

/** Graphs where the rule has something to say first (a required seed, a choice), then a few without. */
function sample(): GraphSpec[] {
  const all = fc.sample(graphSpec, { seed: 23, numRuns: 600 });
  const says = (s: GraphSpec) => {
    const n = loopNeeds(s);
    return n.required.length + n.choice.length > 0;
  };
  const entry = all.filter((s) => s.entry !== undefined && loopNeeds(s).required.length > 0).slice(0, 12);
  const choice = all.filter((s) => loopNeeds(s).choice.length > 0).slice(0, 24);
  const plain = all.filter((s) => !says(s)).slice(0, 12);
  return [...entry, ...choice, ...plain];
}

describe("the static types implement the loop-needs rule", () => {
  it("on random graphs, InputsOf's required keys and the seed choice are the rule's", () => {
    const graphs = sample();
    expect(graphs.length).toBe(48);
    const file = path.join(work, "graphs.ts");
    fs.writeFileSync(
      file,
      `import { expectTypeOf } from "vitest";
import { END, Graph, type InputsOf, node, route } from "../src/index.js";
type Required<G> = { [K in keyof InputsOf<G>]-?: {} extends Pick<InputsOf<G>, K> ? never : K }[keyof InputsOf<G>];
type Choice<G> = G extends { readonly "~types": { readonly meta: { readonly seedChoice: infer C } } } ? C : "none";
${graphs.map(graphSource).join("\n\n")}
`,
    );
    const config = path.join(work, "tsconfig.json");
    fs.writeFileSync(
      config,
      JSON.stringify({
        extends: path.join(root, "tsconfig.base.json"),
        compilerOptions: { noEmit: true },
        files: [file],
      }),
    );
    const result = spawnSync(
      process.execPath,
      [path.join(root, "node_modules/typescript/bin/tsc"), "-p", config, "--pretty", "false"],
      { encoding: "utf8", cwd: work },
    );
    expect(`${result.stdout}${result.stderr}`).toBe("");
    expect(result.status).toBe(0);
  }, 240_000);
});
