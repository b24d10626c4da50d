import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { stepRecord } from "@graph/checkpoint-conformance";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteCheckpointer } from "../src/index.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "graph-sqlite-sync-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("SqliteCheckpointer's synchronous statements", () => {
  it("writes interleaved with async read transactions on the same connection all land, in order", async () => {
    const cp = new SqliteCheckpointer({ path: path.join(dir, "interleaved.db") });
    const { lease } = await cp.startWorkflow!(
      { id: "wf", graphName: "g", graphHash: "h" },
      { owner: "me", ttlMs: 60_000 },
    );
    const fence = { epoch: lease.epoch };
    // getCheckpoint holds a Kysely read transaction across awaits; writes issued meanwhile must wait for it
    // (the synchronous path is only taken when no transaction is open) and never fail or nest.
    const work: Promise<unknown>[] = [];
    for (let i = 0; i < 50; i++) {
      work.push(cp.getCheckpoint("wf"));
      work.push(cp.saveStep(stepRecord("wf", { superstep: i, nodeName: "n", index: i, values: { v: i } }), fence));
    }
    await Promise.all(work);
    const stored = await cp.getWorkflow("wf");
    expect(stored).toMatchObject({ stepCount: 50, lastSuperstep: 49 });
    expect((await cp.getSteps("wf")).map((s) => s.values["v"])).toEqual(Array.from({ length: 50 }, (_, i) => i));
    await cp.close();
  });

  it("two checkpointers of one process on one file: concurrent merged writes neither deadlock nor lose a step", async () => {
    const file = path.join(dir, "shared.db");
    const a = new SqliteCheckpointer({ path: file });
    const b = new SqliteCheckpointer({ path: file });
    await Promise.all([a.setup(), b.setup()]);
    const runs = Array.from({ length: 20 }, async (_, i) => {
      const cp = i % 2 === 0 ? a : b;
      const id = `wf-${i}`;
      const { lease } = await cp.startWorkflow!(
        { id, graphName: "g", graphHash: "h" },
        { owner: `o${i}`, ttlMs: 60_000 },
      );
      // A read transaction of the other checkpointer is open while this one writes.
      await Promise.all([
        (i % 2 === 0 ? b : a).getCheckpoint(id),
        cp.finishWorkflow!({
          workflowId: id,
          steps: [
            {
              steps: [stepRecord(id, { superstep: 0, nodeName: "n", index: 0, values: { i } })],
              fence: { epoch: lease.epoch },
            },
          ],
          update: { status: "completed" },
          fence: { epoch: lease.epoch },
          release: lease,
        }),
      ]);
    });
    await Promise.all(runs);
    for (let i = 0; i < 20; i++) {
      expect(await a.getWorkflow(`wf-${i}`)).toMatchObject({ status: "completed", stepCount: 1 });
      expect(await b.getState(`wf-${i}`)).toEqual({ i });
    }
    await Promise.all([a.close(), b.close()]);
  });
});
