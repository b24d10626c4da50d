// Behaviour specific to the Redis adapter (the contract itself is covered by conformance.int.test.ts).
import type { CheckpointError } from "@graph/checkpoint";
import { defaultSerializer } from "@graph/checkpoint";
import { rejection, stepRecord } from "@graph/checkpoint-conformance";
import { startRedisServer } from "@graph/test-redis";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { RedisCheckpointer } from "../src/index.js";
import { clearPrefixes, randomPrefix, redisUrl } from "./fixtures/store.js";

const prefixes: string[] = [];
const clients: Redis[] = [];
afterAll(async () => {
  for (const client of clients) client.disconnect();
  await clearPrefixes(prefixes);
});

function open(options: Partial<ConstructorParameters<typeof RedisCheckpointer>[0]> = {}): RedisCheckpointer {
  const prefix = randomPrefix("redis");
  prefixes.push(prefix);
  return new RedisCheckpointer({ url: redisUrl(), prefix, ...options });
}

async function keysOf(prefix: string): Promise<string[]> {
  const client = new Redis(redisUrl());
  clients.push(client);
  const found: string[] = [];
  let cursor = "0";
  do {
    const [next, keys] = await client.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
    cursor = next;
    found.push(...keys);
  } while (cursor !== "0");
  return found.sort();
}

describe("RedisCheckpointer", () => {
  it("keeps one workflow in three keys tagged with its root id plus the indexes, and deleteWorkflow removes every key", async () => {
    const checkpointer = open();
    const p = checkpointer.prefix;
    await checkpointer.createWorkflow({ id: "a", graphName: "g", graphHash: "h" });
    await checkpointer.createWorkflow({ id: "a/map/0", graphName: "g", graphHash: "h", parentId: "a" });
    await checkpointer.createWorkflow({ id: "ab", graphName: "g", graphHash: "h" });
    for (const id of ["a", "a/map/0", "ab"]) {
      await checkpointer.saveStep(stepRecord(id, { superstep: 0, nodeName: "n", index: 0, values: { v: 1 } }));
    }
    expect(await keysOf(p)).toEqual(
      [
        // A child's keys carry its root's hash tag: the same Cluster slot as the root, so a fenced child write is
        // checked against the root's lease in one script.
        `${p}{a}/map/0:o`,
        `${p}{a}/map/0:s`,
        `${p}{a}/map/0:w`,
        `${p}{a}:o`,
        `${p}{a}:s`,
        `${p}{a}:w`,
        `${p}{ab}:o`,
        `${p}{ab}:s`,
        `${p}{ab}:w`,
        `${p}{graph-index}:all`,
        `${p}{graph-index}:ids`,
        `${p}{graph-index}:roots`,
        `${p}{graph-index}:ttl`,
        // The listing sets of a graph and of a status.
        `${p}{graph-index}:graph:g`,
        `${p}{graph-index}:status:running`,
      ].sort(),
    );
    await checkpointer.deleteWorkflow("a");
    expect((await keysOf(p)).filter((key) => key.includes("{a"))).toEqual([`${p}{ab}:o`, `${p}{ab}:s`, `${p}{ab}:w`]);
    await checkpointer.deleteWorkflow("ab");
    expect(await keysOf(p)).toEqual([]);
    await checkpointer.close();
  });

  it("listing skips and removes an index entry whose workflow is gone (a crash between the two writes)", async () => {
    const checkpointer = open();
    for (const id of ["w1", "w2", "w3"]) await checkpointer.createWorkflow({ id, graphName: "g", graphHash: "h" });
    const admin = new Redis(redisUrl());
    clients.push(admin);
    await admin.unlink(`${checkpointer.prefix}{w2}:w`);
    const page = await checkpointer.listWorkflows({ limit: 10 });
    expect(page.workflows.map((w) => w.id)).toEqual(["w1", "w3"]);
    expect(await admin.zrange(`${checkpointer.prefix}{graph-index}:all`, 0, -1)).toEqual(["w1", "w3"]);
    // createWorkflow again repairs a missing index entry.
    await admin.zrem(`${checkpointer.prefix}{graph-index}:all`, "w3");
    expect((await checkpointer.createWorkflow({ id: "w3", graphName: "g", graphHash: "h" })).created).toBe(false);
    expect((await checkpointer.listWorkflows()).workflows.map((w) => w.id)).toEqual(["w1", "w3"]);
    await checkpointer.close();
  });

  it("a corrupt stored step is a CheckpointError naming the workflow and node", async () => {
    const checkpointer = open();
    await checkpointer.createWorkflow({ id: "wf", graphName: "g", graphHash: "h" });
    await checkpointer.saveStep(stepRecord("wf", { superstep: 2, nodeName: "embed", index: 0 }));
    const admin = new Redis(redisUrl());
    clients.push(admin);
    await admin.hset(`${checkpointer.prefix}{wf}:s`, "2:embed", "garbage");
    const error = (await rejection(checkpointer.getSteps("wf"))) as CheckpointError;
    expect(error._tag).toBe("CheckpointError");
    expect(error.workflowId).toBe("wf");
    expect(error.nodeName).toBe("embed");
    expect(error.message).toContain("corrupt");
    await checkpointer.close();
  });

  it("retention latest keeps memory flat: 500 saves of one node leave one step", async () => {
    const checkpointer = open({ policy: { retention: "latest" } });
    await checkpointer.createWorkflow({ id: "loop", graphName: "g", graphHash: "h" });
    for (let i = 0; i < 500; i++) {
      await checkpointer.saveStep(stepRecord("loop", { superstep: i, nodeName: "tick", index: i, values: { n: i } }));
    }
    const workflow = await checkpointer.getWorkflow("loop");
    expect(workflow?.stepCount).toBe(1);
    expect(workflow?.lastSuperstep).toBe(499);
    expect(await checkpointer.getState("loop")).toEqual({ n: 499 });
    expect(await checkpointer.storageBytes()).toBeLessThan(4096);
    await checkpointer.close();
  });

  it("rejects a prefix with braces, a non-Redis URL and a bad eviction option with CheckpointError", () => {
    for (const make of [
      () => new RedisCheckpointer({ url: redisUrl(), prefix: "a{b}:" }),
      () => new RedisCheckpointer({ url: "postgres://localhost" }),
      () => new RedisCheckpointer({ url: redisUrl(), evictionPolicy: "sometimes" as never }),
    ]) {
      let error: unknown;
      try {
        make();
      } catch (caught) {
        error = caught;
      }
      expect((error as CheckpointError)?._tag).toBe("CheckpointError");
      expect((error as CheckpointError).operation).toBe("constructor");
    }
  });

  it("exposes the serializer it stores values with (the runtime snapshots async/exit steps with it)", async () => {
    const custom = {
      serialize: (value: unknown) => JSON.stringify(value),
      deserialize: (text: string) => JSON.parse(text),
    };
    const plain = open();
    const withCustom = open({ serializer: custom });
    expect(plain.serializer).toBe(defaultSerializer);
    expect(withCustom.serializer).toBe(custom);
    await plain.close();
    await withCustom.close();
  });

  it("close leaves an application's client open; calls after close fail with CheckpointError", async () => {
    const client = new Redis(redisUrl());
    clients.push(client);
    const prefix = randomPrefix("client");
    prefixes.push(prefix);
    const checkpointer = new RedisCheckpointer({ client, prefix });
    await checkpointer.createWorkflow({ id: "wf", graphName: "g", graphHash: "h" });
    await checkpointer.close();
    expect(await client.ping()).toBe("PONG");
    const error = (await rejection(checkpointer.getWorkflow("wf"))) as CheckpointError;
    expect(error).toMatchObject({ _tag: "CheckpointError", operation: "getWorkflow" });
    expect(error.message).toContain("after close()");
  });

  it("without a redis-server binary the test setup fails with install instructions (never a skip)", async () => {
    const path = process.env["PATH"];
    process.env["PATH"] = "/nonexistent";
    try {
      const error = await startRedisServer().then(
        () => undefined,
        (caught: unknown) => caught as Error,
      );
      expect(error?.message).toContain("found no `redis-server` binary");
      expect(error?.message).toContain("apt-get install redis-server");
      expect(error?.message).toContain("REDIS_URL");
    } finally {
      process.env["PATH"] = path;
    }
  });
});
