// RemoteRunner.submit against a workflow a live run holds: the submitter writes nothing over it (it used to clear
// the holder's pending stop request).

import { RedisCheckpointer } from "@graph/checkpoint-redis";
import { Graph, node } from "@graph/core";
import { Runner } from "@graph/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RemoteRunner } from "../src/index.js";
import { type TestEnv, testEnv } from "./fixtures/env.js";

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

describe("RemoteRunner.submit on a workflow held by a live run", () => {
  it("leaves the stored record byte-identical, the holder's stop request included", async () => {
    let open = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const hold = node({ name: "hold", output: "held" }, async ({ tag }: { tag: string }) => {
      await gate;
      return tag;
    });
    const graph = new Graph([hold], { name: "submit-conflict" });
    // No stop poll or renewal during the test: the record changes only if someone else writes.
    // Its own checkpointer on the workers' storage (closing the runner closes it).
    const own = new RedisCheckpointer({ url: env.redisUrl, prefix: env.workerEnv["CHECKPOINT_PREFIX"]! });
    const holder = new Runner({
      checkpointer: own,
      leaseTtlMs: 60_000,
      leaseRenewIntervalMs: 30_000,
      stopPollIntervalMs: 30_000,
    });
    const workflowId = `submit-conflict-${Date.now()}`;
    try {
      const running = holder.start(graph, { workflowId, values: { tag: "a" } });
      for (let i = 0; i < 200 && (await env.checkpointer.getWorkflow(workflowId))?.lease === undefined; i++)
        await new Promise((r) => setTimeout(r, 5));
      const flagged = await env.checkpointer.requestStop(workflowId, { info: { by: "ops" } });
      expect(flagged?.stopRequested?.info).toEqual({ by: "ops" });
      const read = async () =>
        JSON.stringify({
          workflow: await env.checkpointer.getWorkflow(workflowId),
          steps: await env.checkpointer.getSteps(workflowId, { includeInputs: true }),
        });
      const before = await read();
      const submitted = remote.start(graph, { workflowId, values: { tag: "b" } });
      submitted.result.catch(() => {});
      // The submission's writes are done once its job is queued (no worker takes it in this test).
      await new Promise((r) => setTimeout(r, 1000));
      expect(await read()).toBe(before);
      open();
      const result = await running.result;
      // The holder saw its stop request at the end (it was never cleared by the submitter).
      expect(["completed", "stopped"]).toContain(result.status);
    } finally {
      open();
      await holder.close();
    }
  }, 60_000);
});
