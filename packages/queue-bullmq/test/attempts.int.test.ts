// A worker SIGKILLed during attempt 2 of a node with `retry: { attempts: 4 }`: the worker that adopts the run goes on
// at attempt 2 (the killed attempt once more), then 3 and 4, then the node fails — the attempt number and the retry
// budget survive the worker's death (each attempt start is stored, durability "sync" on the workers).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RemoteRunner } from "../src/index.js";
import { type TestEnv, testEnv } from "./fixtures/env.js";
import { charger } from "./fixtures/graphs.mjs";
import { logFile, readLog, startWorker } from "./fixtures/processes.js";

let env: TestEnv;
let remote: RemoteRunner;

beforeAll(async () => {
  env = await testEnv("redis");
  remote = new RemoteRunner(env.submitter);
});

afterAll(async () => {
  await remote?.close();
  await env?.dispose();
});

describe("durable attempts on the worker pool", () => {
  it("SIGKILL during attempt 2 of 4: the rescuer calls attempts 2, 3, 4 and the run fails — 5 calls, never more", async () => {
    const log = logFile("attempts");
    const tag = "a2";
    const workflowId = "attempts-kill-2";
    const lease = { LEASE_TTL_MS: "1500", LOCK_MS: "1500" };
    const doomed = await startWorker({ ...env.workerEnv, ...lease, LOG_FILE: log, CRASH_ATTEMPT: "2" });
    const handle = remote.start(charger, { values: { order: "o-1", tag }, workflowId });
    const failed = handle.result.then(
      () => undefined,
      (error: unknown) => error,
    );
    await Promise.race([
      doomed.next((m) => m.type === "node-start" && m.tag === tag),
      failed.then((e) => {
        throw new Error(`the run ended before attempt 2 hung: ${String(e)} / ${JSON.stringify(readLog(log))}`);
      }),
    ]);
    const rescuer = await startWorker({ ...env.workerEnv, ...lease, LOG_FILE: log });
    try {
      await doomed.kill("SIGKILL");
      const error = (await failed) as { _tag?: string; remoteTag?: string; message?: string } | undefined;
      expect(error?._tag).toBe("RemoteRunError");
      expect(error?.remoteTag).toBe("NodeExecutionError");
      expect(error?.message).toContain("bank down (attempt 4)");
      const calls = readLog(log).filter((l) => l.node === "charge" && l.tag.startsWith(`${tag}#`));
      expect(calls.map((l) => Number(l.tag.slice(tag.length + 1)))).toEqual([1, 2, 2, 3, 4]);
      expect(calls.map((l) => l.pid)).toEqual([doomed.pid, doomed.pid, rescuer.pid, rescuer.pid, rescuer.pid]);
      const steps = (await env.checkpointer.getSteps(workflowId)).map((s) => ({
        status: s.status,
        attempt: s.attempt,
      }));
      expect(steps).toEqual([
        { status: "running", attempt: { number: 2, repeats: 0 } },
        { status: "failed", attempt: { number: 4, repeats: 1 } },
      ]);
      expect((await env.checkpointer.getWorkflow(workflowId))?.status).toBe("failed");
    } finally {
      await rescuer.close();
    }
  }, 90_000);
});
