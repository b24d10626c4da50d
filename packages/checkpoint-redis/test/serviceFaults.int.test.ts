// The kit's service-fault tests on Redis: the server is restarted in the middle of a run, in each durability mode.
// It is a redis-server this file starts on a free port and stops by its PID (the shared test server is never
// touched), with an append-only file synced on every write, so a restart keeps what was written — as a production
// Redis with persistence does.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describeServiceFaults } from "@graph/checkpoint-conformance";
import type { StartedServer } from "@graph/test-redis";
import { startRedisServer } from "@graph/test-redis";
import { afterAll, beforeAll } from "vitest";
import { RedisCheckpointer } from "../src/index.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "graph-redis-restart-"));
const persistence = ["--appendonly", "yes", "--appendfsync", "always", "--dir", dir];
let server: StartedServer;
beforeAll(async () => {
  server = await startRedisServer(undefined, { args: persistence });
});
afterAll(async () => {
  await server.stop("SIGKILL");
  fs.rmSync(dir, { recursive: true, force: true });
});

describeServiceFaults({
  name: "Redis restarted",
  open: (durability) => new RedisCheckpointer({ url: server.url, prefix: "service-faults:", policy: { durability } }),
  inject: async ({ proceed }) => {
    // SIGTERM: redis-server finishes its append-only file and exits; the run's next write meets a closed port.
    await server.stop("SIGTERM");
    proceed();
  },
  recover: async () => {
    server = await startRedisServer(server.port, { args: persistence });
  },
  // The lease renewal may be the first call to meet the stopped server: the run then ends with LeaseLostError.
  tags: ["CheckpointError", "LeaseLostError"],
});
