import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startWorker } from "@graph/checkpoint-conformance";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteCheckpointer } from "../src/index.js";

const script = fileURLToPath(new URL("./fixtures/finisher.ts", import.meta.url));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "graph-sqlite-finish-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("finishWorkflow and a process crash", () => {
  it("a SIGKILL during a run of finishWorkflow calls leaves each workflow all written or not at all", async () => {
    const file = path.join(dir, "crash.db");
    const count = 40;
    const steps = 2_000;
    const worker = startWorker(script, [file, "wf", String(count), String(steps)]);
    await worker.ready;
    // The first finish is committed; the kill lands somewhere in the following ones (often inside a transaction).
    expect(await worker.result).toEqual({ type: "finished" });
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      worker.child.once("exit", (_, signal) => resolve(signal)),
    );
    worker.child.kill("SIGKILL");
    expect(await exited).toBe("SIGKILL");

    const check = new SqliteCheckpointer({ path: file });
    let finished = 0;
    for (let i = 0; i < count; i++) {
      const id = `wf-${i}`;
      const workflow = await check.getWorkflow(id);
      const stored = await check.getSteps(id);
      if (workflow?.status === "completed") {
        finished++;
        expect(workflow).toMatchObject({ stepCount: steps, lastSuperstep: steps - 1 });
        expect(workflow.lease).toBeUndefined();
        expect(stored).toHaveLength(steps);
        expect(stored[steps - 1]?.values).toEqual({ x: steps - 1, text: `value ${steps - 1} of ${id}` });
      } else {
        expect(workflow).toMatchObject({ status: "running", stepCount: 0, lastSuperstep: -1 });
        expect(workflow?.lease?.owner).toBe("finisher");
        expect(stored).toEqual([]);
      }
    }
    expect(finished).toBeGreaterThanOrEqual(1);
    await check.close();
  }, 60_000);
});
