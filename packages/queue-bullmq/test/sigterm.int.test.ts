// SIGTERM on a worker: `close()` lets the run go on for closeTimeoutMs, then stops it (its steps are checkpointed,
// its lease released) and hands the job back; another worker resumes it; the closed worker exits by itself.
import { afterAll, describe, expect, it } from "vitest";
import { RemoteRunner } from "../src/index.js";
import { type TestEnv, testEnv } from "./fixtures/env.js";
import { holding } from "./fixtures/graphs.mjs";
import { logFile, readLog, startWorker, type WorkerProcess } from "./fixtures/processes.js";

let env: TestEnv | undefined;
let remote: RemoteRunner | undefined;
let workers: WorkerProcess[] = [];

afterAll(async () => {
  await remote?.close();
  await Promise.all(workers.map((w) => w.kill()));
  await env?.dispose();
});

describe("SIGTERM", () => {
  it("a closing worker hands its run back and another worker resumes it", async () => {
    env = await testEnv("redis");
    const log = logFile("sigterm");
    const options = { ...env.workerEnv, LOG_FILE: log, CLOSE_TIMEOUT_MS: "300", LEASE_TTL_MS: "1500" };
    const first = await startWorker(options);
    workers = [first];
    remote = new RemoteRunner(env.submitter);
    const handle = remote.start(holding, { values: { tag: "term" }, workflowId: "term-1" });
    await first.next((m) => m.type === "node-start" && m.tag === "term");
    const second = await startWorker(options);
    workers.push(second);
    const exited = new Promise<number | null>((resolve) => first.child.once("exit", (code) => resolve(code)));
    first.child.kill("SIGTERM");
    expect(await exited).toBe(0);
    await second.next((m) => m.type === "node-start" && m.tag === "term");
    await remote.stop("term-1");
    const result = await handle.result;
    expect(result.status).toBe("stopped");
    expect(readLog(log).map((l) => [l.node, l.pid])).toEqual([
      ["hold", first.pid],
      ["hold", second.pid],
    ]);
  }, 60_000);
});
