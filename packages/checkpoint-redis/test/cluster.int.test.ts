// The conformance kit on a real Redis Cluster (one node owning every slot, started here and stopped by PID).
// A cluster node rejects any command or script whose keys hash to different slots (CROSSSLOT), so this proves
// that every script touches one slot and that one workflow's keys share it.
import { describeCheckpointer } from "@graph/checkpoint-conformance";
import { Cluster, Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisCheckpointer } from "../src/index.js";
import type { StartedServer } from "./fixtures/server.js";
import { startRedisServer } from "./fixtures/server.js";

let server: StartedServer | undefined;
const clients: Cluster[] = [];

beforeAll(async () => {
  server = await startRedisServer(undefined, { cluster: true });
  const admin = new Redis(server.url);
  await admin.call("CLUSTER", "ADDSLOTSRANGE", "0", "16383");
  for (let attempt = 0; attempt < 100; attempt++) {
    if (/cluster_state:ok/.test(String(await admin.call("CLUSTER", "INFO")))) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  admin.disconnect();
}, 30_000);

afterAll(async () => {
  for (const client of clients) client.disconnect();
  await server?.stop("SIGKILL");
});

function clusterClient(): Cluster {
  const client = new Cluster([{ host: "127.0.0.1", port: server!.port }], { enableAutoPipelining: true });
  clients.push(client);
  return client;
}

let instance = 0;
describeCheckpointer({
  name: "redis cluster",
  create: (options) => new RedisCheckpointer({ client: clusterClient(), prefix: `cluster${instance++}:`, ...options }),
  storageBytes: (checkpointer) => (checkpointer as RedisCheckpointer).storageBytes(),
});

describe("keys on a cluster", () => {
  it("one workflow's keys share a slot whatever its id (braces escaped), and deleteWorkflow removes every key", async () => {
    const client = clusterClient();
    const checkpointer = new RedisCheckpointer({ client, prefix: "slots:" });
    for (const id of ["{a}", "x{y}z", "}{", "%7B", "plain"]) {
      await checkpointer.createWorkflow({ id, graphName: "g", graphHash: "h" });
      await checkpointer.createWorkflow({ id: `${id}/child`, graphName: "g", graphHash: "h", parentId: id });
      await checkpointer.saveStep({
        workflowId: id,
        superstep: 0,
        nodeName: "n",
        index: 0,
        status: "completed",
        inputVersions: {},
        values: { v: id },
        truncated: false,
        startedAt: new Date(0),
        completedAt: new Date(0),
      });
      expect(await checkpointer.getState(id)).toEqual({ v: id });
    }
    for (const id of ["{a}", "x{y}z", "}{", "%7B", "plain"]) await checkpointer.deleteWorkflow(id);
    const node = client.nodes("master")[0]!;
    const [, left] = await node.scan("0", "MATCH", "slots:{*}:*", "COUNT", 10_000);
    expect(left).toEqual([]);
    const index = await node.zcard("slots:{graph-index}:all");
    expect(index).toBe(0);
  });
});

describe("commands used", () => {
  it("the whole suite above never sent KEYS (SCAN only)", async () => {
    const admin = new Redis(server!.url);
    const stats = await admin.info("commandstats");
    admin.disconnect();
    expect(stats).toContain("cmdstat_scan:");
    expect(stats).toContain("cmdstat_evalsha:");
    expect(stats).not.toContain("cmdstat_keys:");
  });
});
