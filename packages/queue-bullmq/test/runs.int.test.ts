// Runs through RemoteRunner on real worker processes: values equal the in-process Runner's, double submits run
// once, an interrupt paused on one worker is answered on another, a worker refuses an unknown graph.
import { Graph, node } from "@graph/core";
import type { GraphEvent } from "@graph/runtime";
import { Runner } from "@graph/runtime";
import { describe, expect, it } from "vitest";
import { isUnknownGraphError, RemoteRunner } from "../src/index.js";
import { testEnv } from "./fixtures/env.js";
import { allGraphs, approve, chain10 } from "./fixtures/graphs.mjs";
import { poolTest } from "./fixtures/pool.js";
import { logFile, readLog, startWorker } from "./fixtures/processes.js";

const pool = poolTest();

describe("RemoteRunner on worker processes", () => {
  it("50 runs on 3 workers (PostgreSQL checkpointer) give the in-process Runner's values", async () => {
    pool.env = await testEnv("postgres");
    const log = logFile("fifty");
    pool.workers = await Promise.all([1, 2, 3].map(() => startWorker({ ...pool.env!.workerEnv, LOG_FILE: log })));
    pool.remote = new RemoteRunner(pool.env.submitter);
    const local = new Runner();
    const ids = Array.from({ length: 50 }, (_, i) => i);
    const handles = ids.map((i) =>
      pool.remote!.start(chain10, { values: { x: i, tag: `r${i}` }, workflowId: `fifty-${i}` }),
    );
    const events: GraphEvent[] = [];
    for await (const e of handles[0]!.events) events.push(e);
    const results = await Promise.all(handles.map((h) => h.result));
    for (const i of ids) {
      const expected = await local.run(chain10, { values: { x: i, tag: `r${i}` } });
      expect(results[i]!.status).toBe("completed");
      expect(results[i]!.values).toEqual(expected.values);
      expect((results[i]!.values as Record<string, unknown>)["v9"]).toBe(expected.values["v9"]);
    }
    // Events arrive in order, from the run's start to its end.
    expect(events[0]!.type).toBe("RunStart");
    expect(events.at(-1)!.type).toBe("RunEnd");
    expect(events.filter((e) => e.type === "NodeEnd").map((e) => (e as { nodeName: string }).nodeName)).toEqual([
      ...chain10.nodes.keys(),
    ]);
    // Every node of every run ran exactly once, and more than one worker did work.
    const lines = readLog(log);
    expect(lines).toHaveLength(500);
    expect(new Set(lines.map((l) => `${l.node} ${l.tag}`)).size).toBe(500);
    expect(new Set(lines.map((l) => l.pid)).size).toBeGreaterThan(1);
    await local.close();
  }, 120_000);

  it("submitting the same workflow twice at once runs it once", async () => {
    pool.env = await testEnv("redis");
    const log = logFile("double");
    pool.workers = await Promise.all([1, 2].map(() => startWorker({ ...pool.env!.workerEnv, LOG_FILE: log })));
    pool.remote = new RemoteRunner(pool.env.submitter);
    const other = new RemoteRunner(pool.env.submitter);
    try {
      const [a, b] = await Promise.all([
        pool.remote.run(chain10, { values: { x: 3, tag: "dup" }, workflowId: "dup-1" }),
        other.run(chain10, { values: { x: 3, tag: "dup" }, workflowId: "dup-1" }),
      ]);
      expect(a.status).toBe("completed");
      expect(b.values).toEqual(a.values);
      expect(a.runId).toBe(b.runId);
      expect(readLog(log).map((l) => l.node)).toEqual([...chain10.nodes.keys()]);
    } finally {
      await other.close();
    }
  }, 60_000);

  it("an interrupt paused on worker A is answered and finished on worker B", async () => {
    pool.env = await testEnv("redis");
    const log = logFile("interrupt");
    const a = await startWorker({ ...pool.env.workerEnv, LOG_FILE: log });
    pool.workers = [a];
    pool.remote = new RemoteRunner(pool.env.submitter);
    const paused = await pool.remote.run(approve, { values: { topic: "cats", tag: "int" }, workflowId: "int-1" });
    expect(paused.status).toBe("paused");
    expect(paused.pause?.responseKey).toBe("decision");
    await a.close();
    const b = await startWorker({ ...pool.env.workerEnv, LOG_FILE: log });
    pool.workers.push(b);
    const done = await pool.remote.run(approve, { workflowId: "int-1", values: { decision: "ok" } });
    expect(done.status).toBe("completed");
    expect(done.values.final).toBe("about cats: ok");
    expect(readLog(log)).toEqual([
      { node: "draft", tag: "int", pid: a.pid },
      { node: "finalize", tag: "int", pid: b.pid },
    ]);
  }, 60_000);

  it("a worker refuses a graph it does not know with UnknownGraphError", async () => {
    pool.env = await testEnv("redis");
    pool.workers = [await startWorker(pool.env.workerEnv)];
    pool.remote = new RemoteRunner(pool.env.submitter);
    const stranger = new Graph([node({ name: "inc", output: "y" }, ({ x }: { x: number }) => x + 1)], {
      name: "stranger",
    });
    const error = await pool.remote
      .run(stranger, { values: { x: 1 }, workflowId: "unknown-1" })
      .catch((e: unknown) => e);
    expect(isUnknownGraphError(error)).toBe(true);
    expect(error).toMatchObject({ graphName: "stranger", workflowId: "unknown-1" });
    // Every graph the worker fixture knows, in the order it was given them.
    expect((error as { known: string[] }).known).toEqual(allGraphs.map((g) => g.name));
  }, 60_000);
});
