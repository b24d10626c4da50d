// Recovery honours a stop: a run asked to stop while its worker was frozen, then SIGKILLed, is delivered again; the
// next worker ends it "stopped" without starting a node (the runtime's `recover` mode) instead of resuming it. An
// explicit resume afterwards (a new submission) runs the rest.
import { Runner } from "@graph/runtime";
import { afterAll, describe, expect, it } from "vitest";
import { RemoteRunner } from "../src/index.js";
import { type TestEnv, testEnv } from "./fixtures/env.js";
import { chain10 } from "./fixtures/graphs.mjs";
import { logFile, readLog, startWorker, type WorkerProcess } from "./fixtures/processes.js";

let env: TestEnv | undefined;
let remote: RemoteRunner | undefined;
let workers: WorkerProcess[] = [];

afterAll(async () => {
  await remote?.close();
  await Promise.all(workers.map((w) => w.kill()));
  await env?.dispose();
});

describe("a stop requested before the worker died", () => {
  it("the redelivered job ends stopped, no node runs after the request; a fresh submission resumes it", async () => {
    env = await testEnv("redis");
    const log = logFile("recover");
    const lease = { LEASE_TTL_MS: "1500", LOCK_MS: "1500" };
    const doomed = await startWorker({ ...env.workerEnv, ...lease, LOG_FILE: log, CRASH_AT: "n3" });
    workers = [doomed];
    remote = new RemoteRunner(env.submitter);
    const handle = remote.start(chain10, { values: { x: 3, tag: "r" }, workflowId: "recover-1" });
    await doomed.next((m) => m.type === "node-start" && m.tag === "r");
    // Frozen, it cannot carry the stop out: the request stays pending in the checkpointer when it dies.
    doomed.child.kill("SIGSTOP");
    expect(await remote.stop("recover-1", { by: "test" })).toBe(true);
    const pending = (await env.checkpointer.getWorkflow("recover-1"))!;
    expect(pending.stopRequested?.info).toEqual({ by: "test" });
    expect(pending.status).toBe("running");
    await doomed.kill("SIGKILL");
    const linesAtStop = readLog(log).filter((l) => l.tag === "r");
    expect(linesAtStop.map((l) => l.node)).toEqual(["n0", "n1", "n2"]);
    const rescuer = await startWorker({ ...env.workerEnv, ...lease, LOG_FILE: log });
    workers.push(rescuer);
    const result = await handle.result;
    expect(result.status).toBe("stopped");
    expect(result.values).toEqual({ v0: 6, v1: 13, v2: 28 });
    expect(readLog(log).filter((l) => l.tag === "r")).toEqual(linesAtStop);
    const stopped = (await env.checkpointer.getWorkflow("recover-1"))!;
    expect(stopped.status).toBe("stopped");
    expect(stopped.stopRequested).toBeUndefined();
    expect((await env.checkpointer.getSteps("recover-1")).map((s) => s.nodeName)).toEqual(["n0", "n1", "n2"]);
    // An explicit resume is a new submission: it runs the rest, once.
    const resumed = await remote.run(chain10, { workflowId: "recover-1" });
    const clean = await new Runner().run(chain10, { values: { x: 3, tag: "r" } });
    expect(resumed.status).toBe("completed");
    expect(resumed.values).toEqual(clean.values);
    const lines = readLog(log).filter((l) => l.tag === "r");
    expect(lines.map((l) => l.node)).toEqual([...chain10.nodes.keys()]);
    expect(lines.slice(3).every((l) => l.pid === rescuer.pid)).toBe(true);
  }, 60_000);
});
