import fs from "node:fs";
import { SqliteCheckpointer } from "@graph/checkpoint-sqlite";
fs.rmSync("/tmp/graph-ad.db", { force: true }); fs.rmSync("/tmp/graph-ad.db-wal", { force: true });
const cp = new SqliteCheckpointer({ path: "/tmp/graph-ad.db" });
await cp.setup();
const step = (id: string, i: number) => ({ workflowId: id, superstep: i, nodeName: `n${i}`, index: i, status: "completed" as const, inputVersions: { [`v${i}`]: i }, values: { [`v${i + 1}`]: i + 1 }, truncated: false, startedAt: new Date(), completedAt: new Date() });
const adapterRun = async (id: string) => {
  await cp.getWorkflow(id);
  const { lease } = await cp.startWorkflow({ id, graphName: "g", graphHash: "h" }, { owner: "me", ttlMs: 30000 });
  await cp.finishWorkflow({ workflowId: id, steps: [{ steps: Array.from({ length: 11 }, (_, i) => step(id, i)), fence: { epoch: lease.epoch } }], update: { status: "completed", pause: null, error: null, stopRequested: null }, fence: { epoch: lease.epoch }, release: lease });
};
const end = performance.now() + 4000; let i = 0;
while (performance.now() < end) await adapterRun(`a-${i++}`);
console.log(i, (4000 / i).toFixed(3), "ms/run");
await cp.close();
