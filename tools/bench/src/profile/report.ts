// Summarises a V8 .cpuprofile: top functions by self time, and self time per package / file.
// Usage: node --import tsx src/profile/report.ts <file.cpuprofile>… [top=25]
// Given several files (--cpu-prof also profiles tsx's loader thread), it reports the busiest one.
import fs from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const args = process.argv.slice(2);
const topText = args.length > 1 && /^\d+$/.test(args[args.length - 1]!) ? args.pop()! : "25";
if (args.length === 0) throw new Error("usage: report.ts <file.cpuprofile>… [top]");
const busySamples = (p: Profile): number => {
  const idle = new Set(p.nodes.filter((n) => n.callFrame.functionName === "(idle)").map((n) => n.id));
  return p.samples.filter((id) => !idle.has(id)).length;
};
const profile = args
  .map((file) => JSON.parse(fs.readFileSync(file, "utf8")) as Profile)
  .reduce((a, b) => (busySamples(b) > busySamples(a) ? b : a));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
profile.samples.forEach((id, i) => {
  self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const total = [...self.values()].reduce((a, b) => a + b, 0);

function where(url: string): string {
  if (url === "") return "(native/V8)";
  const m = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1]!;
  const p = /\/(packages\/[^/]+)\//.exec(url);
  if (p) return p[1]!;
  if (url.startsWith("node:")) return "node:internal";
  return url.replace(/^file:\/\//, "");
}
const short = (url: string) => url.replace(/^file:\/\//, "").replace(/^.*\/(packages|node_modules)\//, "$1/");

const fnSelf = new Map<string, number>();
const pkgSelf = new Map<string, number>();
const fileSelf = new Map<string, number>();
for (const [id, t] of self) {
  const n = byId.get(id)!;
  const { functionName, url, lineNumber } = n.callFrame;
  const key = `${functionName || "(anonymous)"}  ${short(url)}:${lineNumber + 1}`;
  fnSelf.set(key, (fnSelf.get(key) ?? 0) + t);
  pkgSelf.set(where(url), (pkgSelf.get(where(url)) ?? 0) + t);
  if (url !== "") fileSelf.set(short(url), (fileSelf.get(short(url)) ?? 0) + t);
}
const pct = (t: number) => `${((100 * t) / total).toFixed(1).padStart(5)}%`;
const top = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);
console.log(`total sampled: ${(total / 1000).toFixed(0)} ms`);
console.log("\nself time by package:");
for (const [k, t] of top(pkgSelf, 12)) console.log(`  ${pct(t)}  ${k}`);
console.log("\nself time by file:");
for (const [k, t] of top(fileSelf, 15)) console.log(`  ${pct(t)}  ${k}`);
console.log("\ntop functions by self time:");
for (const [k, t] of top(fnSelf, Number(topText))) console.log(`  ${pct(t)}  ${k}`);
