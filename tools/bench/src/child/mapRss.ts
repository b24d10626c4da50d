// Child process for the peak-RSS measurement of mapOver: `mapRss.ts <ours|floor> <items>`.
// Prints one JSON line (ChildReport). Started fresh by the map workload so only this run is counted.
import { Runner } from "@graph/runtime";
import { check, expectedMapTotal, floorMap, items, ourMap } from "../lib/graphs.js";
import { type ChildReport, maxRssMB, rssMB, startRssSampler } from "../lib/rss.js";

const [impl = "ours", countText = "100000"] = process.argv.slice(2);
const count = Number(countText);
const runner = new Runner();
const graph = ourMap();
(globalThis as { gc?: () => void }).gc?.();
const baselineRssMB = rssMB();

const xs = items(count);
const sampler = startRssSampler();
const start = performance.now();
let total: number;
if (impl === "ours") {
  total = (await runner.run(graph, { values: { x: xs } })).values["total"] as number;
} else if (impl === "floor") {
  total = await floorMap(xs);
} else {
  throw new Error(`unknown impl '${impl}' (use ours or floor)`);
}
const durationMs = performance.now() - start;
const sampledPeakRssMB = sampler.stop();
check(`${impl} map ${count}`, total, expectedMapTotal(count));
await runner.close();

const report: ChildReport = {
  impl,
  items: count,
  total,
  durationMs,
  baselineRssMB,
  sampledPeakRssMB,
  maxRssMB: maxRssMB(),
};
process.stdout.write(`${JSON.stringify(report)}\n`);
