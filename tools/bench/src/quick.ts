import { Graph, node } from "@graph/core";
import { Runner } from "@graph/runtime";
const n = Number(process.argv[2] ?? 10);
const nodes = Array.from({ length: n }, (_, i) =>
  node({ name: `n${i}`, inputs: [`v${i}`], output: `v${i + 1}` }, async (x: Record<string, number>) => x[`v${i}`]! + 1));
const g = new Graph(nodes as never, { name: `c${n}` });
const runner = new Runner();
const end = performance.now() + 8000;
while (performance.now() < end) await runner.run(g, { values: { v0: 0 }, maxIterations: n + 10 });
