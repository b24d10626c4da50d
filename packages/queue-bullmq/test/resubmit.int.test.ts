// The next turn of a workflow submitted while the previous turn's job is still in the queue although its worker has
// answered it (BullMQ had not completed the job yet, or the worker missed a lock renewal on a loaded machine and the
// job waits to be delivered again): the new turn runs, with its own inputs, instead of reading the old turn's stream
// (which replayed that turn's events and result as the new one's and dropped the new answer).
import type { GraphEvent } from "@graph/runtime";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { RemoteRunner } from "../src/index.js";
import { jobIdOf, queueKeys } from "../src/internal/keys.js";
import type { RunJobData } from "../src/internal/wire.js";
import { testEnv } from "./fixtures/env.js";
import { approve } from "./fixtures/graphs.mjs";
import { poolTest } from "./fixtures/pool.js";
import { logFile, readLog, startWorker } from "./fixtures/processes.js";

const pool = poolTest();

describe("a turn submitted while the previous turn's answered job is still queued", () => {
  it("runs with its own answer instead of replaying the previous turn", async () => {
    pool.env = await testEnv("redis");
    const log = logFile("resubmit");
    const a = await startWorker({ ...pool.env.workerEnv, LOG_FILE: log });
    pool.workers = [a];
    pool.remote = new RemoteRunner(pool.env.submitter);
    const id = "resubmit-1";
    const paused = await pool.remote.run(approve, { values: { topic: "dogs", tag: "rs" }, workflowId: id });
    expect(paused.status).toBe("paused");
    await a.close();

    // Put the answered turn's job back as its worker left it: same job id, same submission, nobody holding it.
    const redis = new Redis(pool.env.redisUrl);
    const queue = new Queue<RunJobData>(pool.env.queue, { connection: { url: pool.env.redisUrl }, prefix: "graph" });
    try {
      const streams = await redis.keys(queueKeys(pool.env.queue).events(id, "*"));
      expect(streams).toHaveLength(1);
      const submission = streams[0]!.split(":").at(-1)!;
      const stale: RunJobData = {
        graphName: "approve",
        definitionHash: approve.definitionHash,
        workflowId: id,
        submission,
        hasValues: true,
        options: {},
      };
      await queue.add("approve", stale, { jobId: jobIdOf(id), removeOnComplete: true, removeOnFail: true });

      const handle = pool.remote.start(approve, { workflowId: id, values: { decision: "yes" } });
      const b = await startWorker({ ...pool.env.workerEnv, LOG_FILE: log });
      pool.workers.push(b);
      const events: GraphEvent[] = [];
      for await (const e of handle.events) events.push(e);
      const done = await handle.result;
      expect(done.status).toBe("completed");
      expect(done.values.final).toBe("about dogs: yes");
      // This turn's events only: draft replayed, the answered approval and finalize run, no pause.
      expect(events.filter((e) => e.type === "Paused")).toEqual([]);
      const ends = events.filter((e) => e.type === "NodeEnd") as (GraphEvent & {
        nodeName: string;
        replayed?: boolean;
      })[];
      expect(ends.filter((e) => e.replayed !== true).map((e) => e.nodeName)).toEqual(["approval", "finalize"]);
      expect(readLog(log)).toEqual([
        { node: "draft", tag: "rs", pid: a.pid },
        { node: "finalize", tag: "rs", pid: b.pid },
      ]);
    } finally {
      await queue.close();
      redis.disconnect();
    }
  }, 60_000);
});
