import fs from "node:fs";
const files = process.argv.slice(2);
let best: any; let bestN = 0;
for (const f of files) { const p = JSON.parse(fs.readFileSync(f, "utf8")); if (p.samples.length > bestN) { best = p; bestN = p.samples.length; } }
const p = best;
const byId = new Map<number, any>(p.nodes.map((n: any) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const selfCount = new Map<number, number>();
for (const s of p.samples) selfCount.set(s, (selfCount.get(s) ?? 0) + 1);
const incl = new Map<string, number>();
const total = p.samples.length;
for (const [id, count] of selfCount) {
  const seen = new Set<string>();
  let cur: number | undefined = id;
  while (cur !== undefined) {
    const n = byId.get(cur); const cf = n.callFrame;
    const key = `${cf.functionName || "(anon)"} ${cf.url.replace(/.*\/(packages|node_modules)\//, "$1/")}:${cf.lineNumber}`;
    if (!seen.has(key)) { seen.add(key); incl.set(key, (incl.get(key) ?? 0) + count); }
    cur = parent.get(cur);
  }
}
const filter = process.env.FILTER ? new RegExp(process.env.FILTER) : /packages\//;
[...incl.entries()].filter(([k]) => filter.test(k)).sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 45)).forEach(([k, v]) => console.log((100 * v / total).toFixed(1).padStart(6), k));
