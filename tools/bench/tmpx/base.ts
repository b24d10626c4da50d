import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { SqliteCheckpointer } from "@graph/checkpoint-sqlite";
import { Runner } from "@graph/runtime";
import { DURABLE_LENGTH, runOurs } from "../src/lib/durable.js";
import { ourChain } from "../src/lib/graphs.js";

const n = 1000;
const cpu = async (label: string, body: () => Promise<void>) => {
  const c0 = process.cpuUsage();
  await body();
  const c1 = process.cpuUsage(c0);
  console.log(label, "cpu ms/run", ((c1.user + c1.system) / 1000 / n).toFixed(3));
};
const runner = new Runner();
const graph = ourChain(DURABLE_LENGTH);
await runOurs(runner, graph, 200, "warm");
await cpu("no store", () => runOurs(runner, graph, n, "wf"));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "graph-count-"));
const cp = new SqliteCheckpointer({ path: path.join(dir, "c.db") });
await cp.setup();
const step = (id: string, i: number) => ({ workflowId: id, superstep: i, nodeName: `n${i}`, index: i, status: "completed" as const, inputVersions: { [`v${i}`]: i }, values: { [`v${i + 1}`]: i + 1 }, truncated: false, startedAt: new Date(), completedAt: new Date() });
const adapterRun = async (id: string) => {
  await cp.getWorkflow(id);
  const { lease } = await cp.startWorkflow({ id, graphName: "g", graphHash: "h" }, { owner: "me", ttlMs: 30000 });
  await cp.finishWorkflow({ workflowId: id, steps: [{ steps: Array.from({ length: 11 }, (_, i) => step(id, i)), fence: { epoch: lease.epoch } }], update: { status: "completed", pause: null, error: null, stopRequested: null }, fence: { epoch: lease.epoch }, release: lease });
};
for (let i = 0; i < 200; i++) await adapterRun(`warm-${i}`);
await cpu("adapter only (3 calls)", async () => { for (let i = 0; i < n; i++) await adapterRun(`a-${i}`); });
await cp.close();
fs.rmSync(dir, { recursive: true, force: true });
const { MemoryCheckpointer } = await import("@graph/checkpoint");
for (const durability of ["async", "sync"] as const) {
  const mem = new Runner({ checkpointer: new MemoryCheckpointer({ policy: { durability } }) });
  await runOurs(mem, graph, 200, `mwarm${durability}`);
  await cpu(`memory checkpointer ${durability}`, () => runOurs(mem, graph, n, `m${durability}`));
  await mem.close();
}
for (const durability of ["async", "sync"] as const) {
  const d2 = fs.mkdtempSync(path.join(os.tmpdir(), "graph-count-"));
  const r = new Runner({ checkpointer: new SqliteCheckpointer({ path: path.join(d2, "c.db"), policy: { durability } }) });
  await runOurs(r, graph, 200, `swarm${durability}`);
  await cpu(`sqlite ${durability}`, () => runOurs(r, graph, n, `s${durability}`));
  await r.close();
}
