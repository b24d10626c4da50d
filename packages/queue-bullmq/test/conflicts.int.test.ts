// The conformance kit's conflict matrix for the queue's entry point: a `RemoteRunner` submission that loses —
// the workflow is held by a live run elsewhere (the worker's claim fails and the job is retried later), or the
// submitted graph is another version of the stored workflow (the worker's run fails before claiming) — must leave
// the stored workflow exactly as it was, in each state the kit prepares (live holder, completed, failed, paused).

import {
  CONFLICT_STATES,
  CONFLICT_VALUES,
  type ConflictWorkflow,
  prepareConflictWorkflow,
  storedWorkflowTree,
  workflowTreeChanges,
} from "@graph/checkpoint-conformance/conflicts";
import { RedisCheckpointer } from "@graph/checkpoint-redis";
import { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RemoteRunner } from "../src/index.js";
import { jobIdOf } from "../src/internal/keys.js";
import { type TestEnv, testEnv } from "./fixtures/env.js";
import { conflictBase, conflictNext } from "./fixtures/graphs.mjs";
import { startWorker, type WorkerProcess } from "./fixtures/processes.js";

const SLOW = 120_000;
let env: TestEnv;
let worker: WorkerProcess | undefined;
let remote: RemoteRunner;
let holder: RedisCheckpointer;
const prepared: ConflictWorkflow[] = [];

// One worker and one submitter for the file (worker processes are slow to start on a loaded machine); each test
// has its own workflow. The live-holder test runs last: it stops the worker while the job waits for a retry.
beforeAll(async () => {
  env = await testEnv("redis");
  const { workerEnv } = env;
  // The holder's own handle on the workers' storage (the kit's runner leaves it open).
  holder = new RedisCheckpointer({ url: workerEnv["CHECKPOINT_REDIS_URL"]!, prefix: workerEnv["CHECKPOINT_PREFIX"]! });
  worker = await startWorker(env.workerEnv);
  remote = new RemoteRunner(env.submitter);
}, SLOW);

afterAll(async () => {
  await remote.close();
  await worker?.kill();
  for (const workflow of prepared) await workflow.finish();
  await holder.close();
  await env.dispose();
}, SLOW);

describe("RemoteRunner submissions that lose write nothing", () => {
  for (const state of CONFLICT_STATES) {
    it(`a submission of another graph version × ${state}: VersionMismatchError, the stored workflow is untouched`, {
      timeout: SLOW,
    }, async () => {
      const workflow = await prepareConflictWorkflow(holder, state, `submit-version-${state.replace(" ", "-")}`);
      prepared.push(workflow);
      const before = await storedWorkflowTree(env.checkpointer, workflow.workflowId);
      const error = await remote.run(conflictNext, { workflowId: workflow.workflowId, values: CONFLICT_VALUES }).then(
        (result) => new Error(`the submission was to fail, it ended ${result.status}`),
        (e: unknown) => e,
      );
      expect(error, String(error)).toMatchObject({ _tag: "RemoteRunError", remoteTag: "VersionMismatchError" });
      const after = await storedWorkflowTree(env.checkpointer, workflow.workflowId);
      expect(workflowTreeChanges(before, after).join("\n"), "what the losing submission changed").toBe("");
      expect(after).toStrictEqual(before);
    });
  }

  it("a submission of a workflow a live run holds: the worker's claim fails, the job waits for a retry, the stored workflow is untouched", {
    timeout: SLOW,
  }, async () => {
    const workflow = await prepareConflictWorkflow(holder, "live holder", "submit-live");
    prepared.push(workflow);
    // The kit returns the live holder once what it wrote before its hold has settled.
    const before = await storedWorkflowTree(env.checkpointer, workflow.workflowId);
    remote.start(conflictBase, { workflowId: workflow.workflowId, values: CONFLICT_VALUES });
    const queue = new Queue(env.queue, { connection: { url: env.redisUrl }, prefix: "graph" });
    try {
      // The worker's first attempt failed once BullMQ counts it (the job moved to its retry delay).
      let attempts = 0;
      for (let i = 0; i < 1200 && attempts < 1; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        attempts = (await queue.getJob(jobIdOf(workflow.workflowId)))?.attemptsMade ?? 0;
      }
      expect(attempts, "the worker tried the submission").toBeGreaterThanOrEqual(1);
      await worker?.kill();
      worker = undefined;
      const after = await storedWorkflowTree(env.checkpointer, workflow.workflowId);
      expect(workflowTreeChanges(before, after).join("\n"), "what the losing submission changed").toBe("");
      expect(after).toStrictEqual(before);
    } finally {
      await queue.close();
    }
  });
});
