// The conformance kit on a real Redis Cluster: three masters started here (stopped by PID), slots split between
// them. A cluster node rejects any command or script whose keys hash to different slots (CROSSSLOT) and redirects
// keys it does not own (MOVED), so this proves that every script touches one slot, that one workflow's keys share
// it, and that cross-workflow operations (listing, deleting children, SCAN) work across nodes.
import { describeCheckpointer } from "@graph/checkpoint-conformance";
import type { StartedServer } from "@graph/test-redis";
import { startRedisServer } from "@graph/test-redis";
import { Cluster, Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisCheckpointer } from "../src/index.js";

const servers: StartedServer[] = [];
const clients: Cluster[] = [];
const SLOT_RANGES = [
  [0, 5460],
  [5461, 10922],
  [10923, 16383],
] as const;

beforeAll(async () => {
  for (let i = 0; i < SLOT_RANGES.length; i++) servers.push(await startRedisServer(undefined, { cluster: true }));
  const admins = servers.map((server) => new Redis(server.url));
  try {
    for (const [i, admin] of admins.entries()) {
      await admin.call("CLUSTER", "ADDSLOTSRANGE", String(SLOT_RANGES[i]![0]), String(SLOT_RANGES[i]![1]));
      if (i > 0) await admins[0]!.call("CLUSTER", "MEET", "127.0.0.1", String(servers[i]!.port));
    }
    for (let attempt = 0; attempt < 200; attempt++) {
      const states = await Promise.all(admins.map((admin) => admin.call("CLUSTER", "INFO")));
      if (
        states.every((state) => /cluster_state:ok/.test(String(state)) && /cluster_known_nodes:3/.test(String(state)))
      ) {
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error("the three-node test cluster did not reach cluster_state:ok within 20 s");
  } finally {
    for (const admin of admins) admin.disconnect();
  }
}, 60_000);

afterAll(async () => {
  for (const client of clients) client.disconnect();
  for (const server of servers) await server.stop("SIGKILL");
});

function clusterClient(): Cluster {
  const client = new Cluster([{ host: "127.0.0.1", port: servers[0]!.port }], { enableAutoPipelining: true });
  clients.push(client);
  return client;
}

let instance = 0;
describeCheckpointer({
  name: "redis cluster",
  create: (options) => new RedisCheckpointer({ client: clusterClient(), prefix: `cluster${instance++}:`, ...options }),
  storageBytes: (checkpointer) => (checkpointer as RedisCheckpointer).storageBytes(),
  // The usage area closes one instance and reads with another: both on the same prefix.
  reopen: () => new RedisCheckpointer({ client: clusterClient(), prefix: "cluster-reopen:" }),
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
    const masters = client.nodes("master");
    expect(masters).toHaveLength(3);
    for (const node of masters) {
      const [, left] = await node.scan("0", "MATCH", "slots:*", "COUNT", 10_000);
      expect(left).toEqual([]);
    }
  });
});

describe("commands used", () => {
  it("the whole suite above never sent KEYS to any node (SCAN only)", async () => {
    let stats = "";
    for (const server of servers) {
      const admin = new Redis(server.url);
      stats += await admin.info("commandstats");
      admin.disconnect();
    }
    expect(stats).toContain("cmdstat_scan:");
    expect(stats).toContain("cmdstat_evalsha:");
    expect(stats).not.toContain("cmdstat_keys:");
  });
});

describe("auto-pipelining on a cluster", () => {
  // ioredis groups an auto-pipelined call by the slot of its first argument; the store's scripts that take their key
  // count per call would be grouped by the count, and a pipeline mixing nodes fails as a whole. Many stores on one
  // client, their prefixes hashing to different nodes, writing at once, is where that showed.
  it("writes of stores on one client whose slots live on different nodes, all at once: none fails", async () => {
    const client = clusterClient();
    const stores = Array.from(
      { length: 6 },
      (_, i) => new RedisCheckpointer({ client, prefix: `pipelined${i}-${Date.now()}:` }),
    );
    const writes: Promise<unknown>[] = [];
    for (let round = 0; round < 40; round++)
      for (const [i, store] of stores.entries())
        writes.push(
          store.createWorkflow({ id: `w${round}`, graphName: `g${i}`, graphHash: "h" }).then(() =>
            store.saveStep({
              workflowId: `w${round}`,
              superstep: 0,
              nodeName: "n",
              index: 0,
              status: "completed",
              inputVersions: {},
              values: { round },
              truncated: false,
              startedAt: new Date(0),
              completedAt: new Date(0),
            }),
          ),
        );
    const settled = await Promise.allSettled(writes);
    expect(
      settled.filter((s) => s.status === "rejected").map((s) => String((s as PromiseRejectedResult).reason)),
    ).toEqual([]);
    for (const store of stores) expect((await store.listWorkflows({ limit: 100 })).workflows).toHaveLength(40);
  });
});
