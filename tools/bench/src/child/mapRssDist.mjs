// Child process for the peak-RSS measurement of mapOver against the BUILT packages (dist/*.js), in a plain Node
// process with no TypeScript loader — what a user's production process looks like. Plain JavaScript on purpose:
// the tsx loader runs its hooks in a second V8 isolate that alone adds ~70 MB of RSS. Mirrors mapRss.ts and the
// map graph of lib/graphs.ts (keep them in sync). Usage: `node --expose-gc mapRssDist.mjs <ours|floor> <items>`.
import { resourceUsage } from "node:process";
import { Graph, node } from "@graph/core";
import { Runner } from "@graph/runtime";

const MB = 1024 * 1024;
const [impl = "ours", countText = "100000"] = process.argv.slice(2);
const count = Number(countText);

async function square({ x }) {
  return x * x;
}
function sum({ y }) {
  let total = 0;
  for (const v of y) total += v;
  return total;
}
const inner = new Graph([node({ name: "square", output: "y" }, square)], { name: "item" });
const graph = new Graph([inner.asNode().mapOver("x"), node({ name: "sum", output: "total" }, sum)], {
  name: "mapReduce",
});
const runner = new Runner();
globalThis.gc?.();
const baselineRssMB = process.memoryUsage().rss / MB;

const xs = Array.from({ length: count }, (_, i) => i);
let peak = process.memoryUsage().rss;
const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
const start = performance.now();
let total;
if (impl === "ours") {
  total = (await runner.run(graph, { values: { x: xs } })).values.total;
} else {
  const y = new Array(xs.length);
  for (let i = 0; i < xs.length; i++) y[i] = await square({ x: xs[i] });
  total = sum({ y });
}
const durationMs = performance.now() - start;
clearInterval(timer);
peak = Math.max(peak, process.memoryUsage().rss);
const expected = ((count - 1) * count * (2 * count - 1)) / 6;
// Above ~2^53 the float sum and the closed form round differently: compare relatively.
if (Math.abs(total - expected) > expected * 1e-9)
  throw new Error(`${impl} map ${count}: expected ${expected}, got ${total}`);
await runner.close();
process.stdout.write(
  `${JSON.stringify({ impl, items: count, total, durationMs, baselineRssMB, sampledPeakRssMB: peak / MB, maxRssMB: (resourceUsage().maxRSS * 1024) / MB })}\n`,
);
