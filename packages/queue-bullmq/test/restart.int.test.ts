// The queue's redis-server restarted (AOF on) while runs are queued and running: every run finishes with the right
// values, and every node of every run ran once (nothing lost, nothing duplicated).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Runner } from "@graph/runtime";
import { freePort, type StartedServer, startRedisServer } from "@graph/test-redis";
import { afterAll, describe, expect, it } from "vitest";
import { RemoteRunner } from "../src/index.js";
import { type TestEnv, testEnv } from "./fixtures/env.js";
import { chain10 } from "./fixtures/graphs.mjs";
import { logFile, readLog, startWorker, type WorkerProcess } from "./fixtures/processes.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "graph-queue-aof-"));
const aof = ["--appendonly", "yes", "--appendfsync", "always", "--dir", dir];
let server: StartedServer | undefined;
let env: TestEnv | undefined;
let remote: RemoteRunner | undefined;
let workers: WorkerProcess[] = [];

afterAll(async () => {
  await remote?.close();
  await Promise.all(workers.map((w) => w.kill()));
  await env?.dispose();
  await server?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("the queue's Redis restarted mid-suite", () => {
  it("runs queued and running during the restart finish once, with the right values", async () => {
    const port = await freePort();
    server = await startRedisServer(port, { args: aof });
    // The checkpointer is PostgreSQL: only the queue goes down.
    env = await testEnv("postgres", server.url);
    const log = logFile("restart");
    // A long job lock: the restart must not look like a dead worker.
    const options = { ...env.workerEnv, LOG_FILE: log, LOCK_MS: "30000" };
    workers = await Promise.all([1, 2].map(() => startWorker(options)));
    remote = new RemoteRunner({ ...env.submitter, connection: server.url });
    const submit = (i: number) => remote!.start(chain10, { values: { x: i, tag: `a${i}` }, workflowId: `aof-${i}` });
    const before = Array.from({ length: 10 }, (_, i) => submit(i));
    await Promise.all(before.slice(0, 3).map((h) => h.result));
    await server.stop("SIGTERM");
    // Submitted while Redis is down: ioredis queues the commands until it is back.
    const during = Array.from({ length: 10 }, (_, i) => submit(10 + i));
    server = await startRedisServer(port, { args: aof });
    const results = await Promise.all([...before, ...during].map((h) => h.result));
    const local = new Runner();
    for (const [i, r] of results.entries()) {
      expect(r.status).toBe("completed");
      expect(r.values).toEqual((await local.run(chain10, { values: { x: i, tag: `a${i}` } })).values);
    }
    const counts = new Map<string, number>();
    for (const l of readLog(log)) counts.set(`${l.node} ${l.tag}`, (counts.get(`${l.node} ${l.tag}`) ?? 0) + 1);
    expect(counts.size).toBe(200);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
  }, 120_000);
});
