// Budgets through RemoteRunner on real worker processes: the budget travels with the job, a run paused for it on
// one worker is granted more on another, and the totals go on from the stored ones.
import { BUDGET_KEY } from "@graph/core";
import { afterEach, describe, expect, it } from "vitest";
import { RemoteRunner } from "../src/index.js";
import { type TestEnv, testEnv } from "./fixtures/env.js";
import { spender } from "./fixtures/graphs.mjs";
import { logFile, readLog, startWorker, type WorkerProcess } from "./fixtures/processes.js";

let env: TestEnv | undefined;
let workers: WorkerProcess[] = [];
let remote: RemoteRunner | undefined;

afterEach(async () => {
  await remote?.close();
  await Promise.all(workers.map((w) => w.kill()));
  await env?.dispose();
  remote = undefined;
  workers = [];
  env = undefined;
});

describe("budgets on worker processes", () => {
  it("a run paused for its budget on one worker is granted more on another", async () => {
    env = await testEnv("postgres");
    const log = logFile("budget");
    const a = await startWorker({ ...env.workerEnv, LOG_FILE: log });
    workers = [a];
    remote = new RemoteRunner(env.submitter);
    const paused = await remote.run(spender, {
      values: { history: [], tag: "b" },
      workflowId: "budget-1",
      budget: { tokens: 700 },
    });
    expect(paused.status).toBe("paused");
    expect(paused.pause).toMatchObject({
      reason: "budget",
      nodeName: "think",
      responseKey: BUDGET_KEY,
      value: { spent: { tokens: 900, calls: 3 }, budget: { tokens: 700 }, exceeded: ["tokens"] },
    });
    expect(paused.usage).toEqual({ tokens: 900, calls: 3 });
    await a.close();
    const b = await startWorker({ ...env.workerEnv, LOG_FILE: log });
    workers.push(b);
    const done = await remote.run(spender, { workflowId: "budget-1", values: { [BUDGET_KEY]: { tokens: 2_000 } } });
    expect({ status: done.status, pause: done.pause }).toEqual({ status: "completed", pause: undefined });
    expect(done.usage).toEqual({ tokens: 1_800, calls: 6 });
    expect(readLog(log).map((l) => `${l.node} ${l.pid}`)).toEqual([
      ...Array(3).fill(`think ${a.pid}`),
      ...Array(3).fill(`think ${b.pid}`),
    ]);
  }, 90_000);
});
