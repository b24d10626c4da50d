// Priorities on the queue: runs submitted with a priority are taken lowest number first (BullMQ job priorities),
// whatever order they were submitted in; a priority out of range is refused before anything is written.

import { isInvalidOptionError } from "@graph/runtime";
import { describe, expect, it } from "vitest";
import { RemoteRunner } from "../src/index.js";
import { testEnv } from "./fixtures/env.js";
import { chain10 } from "./fixtures/graphs.mjs";
import { poolTest } from "./fixtures/pool.js";
import { logFile, readLog, startWorker } from "./fixtures/processes.js";

const pool = poolTest();

describe("RemoteRunner.submit with a priority", () => {
  it("a worker takes the waiting runs in priority order, not submission order", { timeout: 60_000 }, async () => {
    pool.env = await testEnv("redis");
    const log = logFile("priority");
    pool.remote = new RemoteRunner(pool.env.submitter);
    // Submitted before any worker is up, so all of them wait: 4 routine runs, then an urgent one, then 2 more.
    const plan = [
      ["routine-0", 5],
      ["routine-1", 5],
      ["routine-2", 5],
      ["routine-3", 5],
      ["urgent", 1],
      ["batch-0", 9],
      ["batch-1", 9],
    ] as const;
    const handles = plan.map(([tag, priority], i) =>
      pool.remote!.submit(chain10, { priority }, { values: { x: i, tag }, workflowId: `prio-${tag}` }),
    );
    await new Promise((resolve) => setTimeout(resolve, 300)); // every job is in the queue
    pool.workers = [await startWorker({ ...pool.env.workerEnv, LOG_FILE: log, CONCURRENCY: "1" })];
    const results = await Promise.all(handles.map((h) => h.result));
    expect(results.map((r) => r.status)).toEqual(plan.map(() => "completed"));
    const order = readLog(log)
      .filter((l) => l.node === "n0")
      .map((l) => l.tag);
    expect(order).toEqual(["urgent", "routine-0", "routine-1", "routine-2", "routine-3", "batch-0", "batch-1"]);
  });

  it("refuses a priority that is not an integer from 1 to 2,097,152, and an unknown option", async () => {
    pool.env = await testEnv("redis");
    pool.remote = new RemoteRunner(pool.env.submitter);
    for (const priority of [0, 1.5, 3_000_000]) {
      let error: unknown;
      try {
        pool.remote.submit(chain10, { priority }, { values: { x: 1, tag: "bad" }, workflowId: `bad-${priority}` });
      } catch (e) {
        error = e;
      }
      expect(isInvalidOptionError(error)).toBe(true);
      expect((error as Error).message).toContain("option 'priority' must be an integer from 1 (most urgent)");
    }
    expect(() => pool.remote!.submit(chain10, { prio: 1 } as never, { values: { x: 1, tag: "bad" } })).toThrow(
      /has no option 'prio' \(its options are delay, startAt, priority, concurrency, rateLimit, fairness\)/,
    );
    expect(await pool.env.checkpointer.getWorkflow("bad-0")).toBeUndefined();
  });
});
