import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { SqliteCheckpointer } from "@graph/checkpoint-sqlite";
import { Runner } from "@graph/runtime";
import { DURABLE_LENGTH, runOurs } from "../src/lib/durable.js";
import { ourChain } from "../src/lib/graphs.js";
const n = 1000;
const graph = ourChain(DURABLE_LENGTH);
const plain = new Runner();
const out: string[] = [];
for (let rep = 0; rep < 4; rep++) {
  const d2 = fs.mkdtempSync(path.join(os.tmpdir(), "graph-ab-"));
  const r = new Runner({ checkpointer: new SqliteCheckpointer({ path: path.join(d2, "c.db") }) });
  await runOurs(r, graph, 200, `w${rep}`);
  await runOurs(plain, graph, 200, `w${rep}`);
  let c0 = process.cpuUsage();
  await runOurs(plain, graph, n, `p${rep}`);
  let c1 = process.cpuUsage(c0);
  const base = (c1.user + c1.system) / 1000 / n;
  c0 = process.cpuUsage();
  const t0 = performance.now();
  await runOurs(r, graph, n, `s${rep}`);
  c1 = process.cpuUsage(c0);
  out.push(`sqlite async ${((c1.user + c1.system) / 1000 / n).toFixed(3)} cpu (${((performance.now() - t0) / n).toFixed(3)} wall), plain ${base.toFixed(3)}`);
  await r.close();
  fs.rmSync(d2, { recursive: true, force: true });
}
console.log(out.join("\n"));
