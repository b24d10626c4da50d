// Stop from another process, through the checkpointer's stop request: a running run stops quickly (p99 < 500 ms
// over 20 trials), a queued run never starts a node.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RemoteRunner } from "../src/index.js";
import { type TestEnv, testEnv } from "./fixtures/env.js";
import { holding } from "./fixtures/graphs.mjs";
import { logFile, readLog, startWorker, type WorkerProcess } from "./fixtures/processes.js";

let env: TestEnv;
let remote: RemoteRunner;
let worker: WorkerProcess;
const log = logFile("stop");

beforeAll(async () => {
  env = await testEnv("redis");
  worker = await startWorker({ ...env.workerEnv, LOG_FILE: log, CONCURRENCY: "1" });
  remote = new RemoteRunner(env.submitter);
});

afterAll(async () => {
  await remote?.close();
  await worker?.kill();
  await env?.dispose();
});

describe("RemoteRunner.stop", () => {
  it("stops a running run on a worker process, p99 under 500 ms", async () => {
    const latencies: number[] = [];
    for (let i = 0; i < 20; i++) {
      const tag = `s${i}`;
      const handle = remote.start(holding, { values: { tag }, workflowId: `stop-${i}` });
      await worker.next((m) => m.type === "node-start" && m.tag === tag);
      const t0 = performance.now();
      await remote.stop(`stop-${i}`, { by: "test" });
      const result = await handle.result;
      latencies.push(performance.now() - t0);
      expect(result.status).toBe("stopped");
    }
    latencies.sort((a, b) => a - b);
    const p99 = latencies[Math.ceil(0.99 * latencies.length) - 1]!;
    console.log(`remote stop latency: median ${latencies[10]!.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms (20 trials)`);
    expect(p99).toBeLessThan(500);
    // The node after the stopped one never ran.
    expect(readLog(log).filter((l) => l.node === "after")).toEqual([]);
  }, 120_000);

  it("a run stopped while queued never starts a node", async () => {
    const busy = remote.start(holding, { values: { tag: "busy" }, workflowId: "busy-1" });
    await worker.next((m) => m.type === "node-start" && m.tag === "busy");
    // The worker's only slot is taken: this one waits in the queue.
    const queued = remote.start(holding, { values: { tag: "queued" }, workflowId: "queued-1" });
    expect(await remote.stop("queued-1")).toBe(true);
    await remote.stop("busy-1");
    expect((await busy.result).status).toBe("stopped");
    const result = await queued.result;
    expect(result.status).toBe("stopped");
    expect(result.values).toEqual({});
    expect(readLog(log).filter((l) => l.tag === "queued")).toEqual([]);
    // The submission created the workflow; the stop is recorded (and handled) there, and no node left a step.
    const stored = (await env.checkpointer.getWorkflow("queued-1"))!;
    expect(stored.status).toBe("stopped");
    expect(stored.stopRequested).toBeUndefined();
    expect(await env.checkpointer.getSteps("queued-1")).toEqual([]);
    expect((await env.checkpointer.getState("queued-1"))["tag"]).toBe("queued");
  }, 60_000);
});
