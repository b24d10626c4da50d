// Budgets through RemoteRunner on real worker processes: the budget travels with the job, a run paused for it on
// one worker is granted more on another, and the totals go on from the stored ones.
import { BUDGET_KEY } from "@graph/core";
import { describe, expect, it } from "vitest";
import { RemoteRunner } from "../src/index.js";
import { testEnv } from "./fixtures/env.js";
import { spender } from "./fixtures/graphs.mjs";
import { poolTest } from "./fixtures/pool.js";
import { logFile, readLog, startWorker } from "./fixtures/processes.js";

const pool = poolTest();

describe("budgets on worker processes", () => {
  it("a run paused for its budget on one worker is granted more on another", async () => {
    pool.env = await testEnv("postgres");
    const log = logFile("budget");
    const a = await startWorker({ ...pool.env.workerEnv, LOG_FILE: log });
    pool.workers = [a];
    pool.remote = new RemoteRunner(pool.env.submitter);
    const paused = await pool.remote.run(spender, {
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
    const b = await startWorker({ ...pool.env.workerEnv, LOG_FILE: log });
    pool.workers.push(b);
    const done = await pool.remote.run(spender, {
      workflowId: "budget-1",
      values: { [BUDGET_KEY]: { tokens: 2_000 } },
    });
    expect({ status: done.status, pause: done.pause }).toEqual({ status: "completed", pause: undefined });
    expect(done.usage).toEqual({ tokens: 1_800, calls: 6 });
    expect(readLog(log).map((l) => `${l.node} ${l.pid}`)).toEqual([
      ...Array(3).fill(`think ${a.pid}`),
      ...Array(3).fill(`think ${b.pid}`),
    ]);
  }, 90_000);
});
