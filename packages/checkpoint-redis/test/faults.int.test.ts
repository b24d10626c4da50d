// Failures of the server itself, on redis-servers this file starts and stops by PID (the shared test server is
// never touched): a stopped server, a frozen one, a dropped connection whose queued write is replayed after a
// takeover, and the maxmemory-policy check.
import type { CheckpointError } from "@graph/checkpoint";
import { rejection, stepRecord } from "@graph/checkpoint-conformance";
import type { StartedServer } from "@graph/test-redis";
import { freePort, startRedisServer } from "@graph/test-redis";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisCheckpointer } from "../src/index.js";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function timed<T>(promise: Promise<T>): Promise<{ readonly value: T; readonly ms: number }> {
  const start = Date.now();
  const value = await promise;
  return { value, ms: Date.now() - start };
}

describe("RedisCheckpointer when the server fails", () => {
  let server: StartedServer;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server.stop("SIGKILL");
  });

  it("a stopped server: calls fail with a CheckpointError naming host:port within 5 s; a restarted one is used again", async () => {
    const port = server.port;
    const checkpointer = new RedisCheckpointer({ url: server.url, prefix: "faults:stop:" });
    await checkpointer.setup();
    await checkpointer.createWorkflow({ id: "wf", graphName: "g", graphHash: "h" });
    await server.stop("SIGKILL");

    const read = await timed(rejection(checkpointer.getWorkflow("wf")));
    const error = read.value as CheckpointError;
    expect(error._tag).toBe("CheckpointError");
    expect(error.operation).toBe("getWorkflow");
    expect(error.workflowId).toBe("wf");
    expect(error.message).toContain(`Redis at 127.0.0.1:${port}`);
    expect(error.message).toContain("ECONNREFUSED");
    expect(read.ms).toBeLessThan(5000);

    const write = await timed(
      rejection(checkpointer.saveStep(stepRecord("wf", { superstep: 0, nodeName: "n", index: 0 }))),
    );
    expect((write.value as CheckpointError)._tag).toBe("CheckpointError");
    expect((write.value as CheckpointError).message).toContain(`127.0.0.1:${port}`);
    expect(write.ms).toBeLessThan(5000);

    // Same port again (an empty server: nothing was persisted): the client reconnects by itself.
    server = await startRedisServer(port);
    let created: boolean | undefined;
    for (let attempt = 0; attempt < 50 && created === undefined; attempt++) {
      created = await checkpointer
        .createWorkflow({ id: "wf", graphName: "g", graphHash: "h" })
        .then((result) => result.created)
        .catch(() => sleep(100).then(() => undefined));
    }
    expect(created).toBe(true);
    await checkpointer.close();
  }, 30_000);

  it("nothing listening: setup fails with a CheckpointError naming host:port within 5 s", async () => {
    const port = await freePort();
    const checkpointer = new RedisCheckpointer({ url: `redis://127.0.0.1:${port}` });
    const { value, ms } = await timed(rejection(checkpointer.setup()));
    expect((value as CheckpointError)._tag).toBe("CheckpointError");
    expect((value as CheckpointError).message).toContain(`cannot reach Redis at 127.0.0.1:${port}`);
    expect(ms).toBeLessThan(5000);
    await checkpointer.close();
  });

  it("a frozen server (SIGSTOP): a call fails after commandTimeoutMs with a CheckpointError", async () => {
    const checkpointer = new RedisCheckpointer({ url: server.url, prefix: "faults:frozen:", commandTimeoutMs: 500 });
    await checkpointer.setup();
    process.kill(server.process.pid!, "SIGSTOP");
    try {
      const { value, ms } = await timed(rejection(checkpointer.getWorkflow("wf")));
      expect((value as CheckpointError)._tag).toBe("CheckpointError");
      expect((value as CheckpointError).message).toContain(`Redis at 127.0.0.1:${server.port} did not answer`);
      expect(ms).toBeGreaterThanOrEqual(450);
      expect(ms).toBeLessThan(3000);
    } finally {
      process.kill(server.process.pid!, "SIGCONT");
    }
    await checkpointer.close();
  });

  it("a write queued while the connection was down is replayed after a takeover and rejected by its fence", async () => {
    const prefix = "faults:replay:";
    // The zombie's client reconnects only after 800 ms, so its write waits in the offline queue meanwhile.
    const zombieClient = new Redis(server.url, { retryStrategy: () => 800, maxRetriesPerRequest: 5 });
    const zombie = new RedisCheckpointer({ client: zombieClient, prefix });
    const other = new RedisCheckpointer({ url: server.url, prefix });
    await zombie.createWorkflow({ id: "wf", graphName: "g", graphHash: "h" });
    const lease = await zombie.claimWorkflow("wf", { owner: "zombie", ttlMs: 200 });
    await zombie.saveStep(stepRecord("wf", { superstep: 0, nodeName: "a", index: 0, values: { x: "zombie" } }), lease);

    const killer = new Redis(server.url);
    const clientId = await zombieClient.client("ID");
    const closed = new Promise<void>((resolve) => zombieClient.once("close", () => resolve()));
    await killer.client("KILL", "ID", String(clientId));
    await closed;
    expect(zombieClient.status).not.toBe("ready");
    const queued = zombie.saveStep(
      stepRecord("wf", { superstep: 1, nodeName: "b", index: 1, values: { x: "zombie-late" } }),
      lease,
    );

    await sleep(250); // the zombie's lease expires; another process takes over
    const taken = await other.claimWorkflow("wf", { owner: "other", ttlMs: 60_000 });
    expect(taken.epoch).toBe(lease.epoch + 1);
    await other.saveStep(stepRecord("wf", { superstep: 1, nodeName: "c", index: 1, values: { x: "other" } }), taken);

    const error = await rejection(queued);
    expect((error as { _tag?: string })._tag).toBe("WorkflowConflictError");
    expect(zombieClient.status).toBe("ready"); // it was replayed after reconnecting, not dropped
    const steps = await other.getSteps("wf");
    expect(steps.map((s) => [s.nodeName, s.values["x"]])).toEqual([
      ["a", "zombie"],
      ["c", "other"],
    ]);
    await zombie.close();
    zombieClient.disconnect();
    killer.disconnect();
    await other.close();
  }, 20_000);

  it("maxmemory-policy other than noeviction: setup warns (default), fails (evictionPolicy: 'fail') or ignores", async () => {
    const admin = new Redis(server.url);
    await admin.config("SET", "maxmemory-policy", "allkeys-lru");
    try {
      const warnings: string[] = [];
      const warn = new RedisCheckpointer({ url: server.url, onWarning: (message) => warnings.push(message) });
      await warn.setup();
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(`Redis at 127.0.0.1:${server.port} has maxmemory-policy allkeys-lru`);
      expect(warnings[0]).toContain("noeviction");
      await warn.close();

      const strict = new RedisCheckpointer({ url: server.url, evictionPolicy: "fail" });
      const error = (await rejection(strict.setup())) as CheckpointError;
      expect(error._tag).toBe("CheckpointError");
      expect(error.operation).toBe("setup");
      expect(error.message).toContain("allkeys-lru");
      // The first operation checks too: nothing runs against an evicting server.
      expect(((await rejection(strict.getWorkflow("x"))) as CheckpointError).message).toContain("allkeys-lru");
      await strict.close();

      const quiet: string[] = [];
      const ignoring = new RedisCheckpointer({
        url: server.url,
        evictionPolicy: "ignore",
        onWarning: (m) => quiet.push(m),
      });
      await ignoring.setup();
      expect(quiet).toEqual([]);
      await ignoring.close();
    } finally {
      await admin.config("SET", "maxmemory-policy", "noeviction");
    }
    const warnings: string[] = [];
    const safe = new RedisCheckpointer({ url: server.url, onWarning: (message) => warnings.push(message) });
    await safe.setup();
    expect(warnings).toEqual([]);
    await safe.close();
    admin.disconnect();
  });
});
