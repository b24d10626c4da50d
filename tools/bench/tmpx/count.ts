import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { SqliteCheckpointer } from "@graph/checkpoint-sqlite";
import { Runner } from "@graph/runtime";
import { DURABLE_LENGTH, runOurs } from "../src/lib/durable.js";
import { ourChain } from "../src/lib/graphs.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "graph-count-"));
const durability = (process.argv[2] ?? "async") as "async" | "sync";
const cp = new SqliteCheckpointer({ path: path.join(dir, "c.db"), policy: { durability } });
await cp.setup();
const counts: Record<string, number> = {};
for (const m of ["getWorkflow", "startWorkflow", "finishWorkflow", "saveStep", "saveSteps", "saveStepBatch", "createWorkflow", "claimWorkflow", "updateWorkflow", "releaseWorkflow", "getStopRequest", "renewWorkflow"] as const) {
  const orig = (cp as any)[m].bind(cp);
  (cp as any)[m] = (...a: unknown[]) => { counts[m] = (counts[m] ?? 0) + 1; return orig(...a); };
}
const runner = new Runner({ checkpointer: cp });
const graph = ourChain(DURABLE_LENGTH);
await runOurs(runner, graph, 50, "warm");
for (const k in counts) delete counts[k];
const n = 500;
const t0 = performance.now(); const c0 = process.cpuUsage();
await runOurs(runner, graph, n, "wf");
const c1 = process.cpuUsage(c0); const t1 = performance.now();
await runner.close();
console.log(durability, "wall ms/run", ((t1 - t0) / n).toFixed(3), "cpu ms/run", ((c1.user + c1.system) / 1000 / n).toFixed(3));
console.log(Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, v / n])));
fs.rmSync(dir, { recursive: true, force: true });
