// A fenced step write on PostgreSQL is one statement (row lock + fence, upsert, counters in one WITH … UPDATE) in
// its transaction: three round trips where the full path takes five (BEGIN, lock, upsert, counters, COMMIT). Counted on
// pg's Client.query, which every statement of the pool goes through. Concurrent writers of one workflow, and of one
// step, keep the counters exact.
import { stepRecord } from "@graph/checkpoint-conformance";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { PostgresCheckpointer } from "../src/index.js";
import { DATABASE_URL, dropSchemas, randomSchema, requirePostgres } from "./fixtures/server.js";

const schemas: string[] = [];
beforeAll(requirePostgres);
afterAll(() => dropSchemas(schemas));
afterEach(() => vi.restoreAllMocks());

function open(schema?: string) {
  const name = schema ?? randomSchema("step1");
  if (schema === undefined) schemas.push(name);
  return { cp: new PostgresCheckpointer({ connectionString: DATABASE_URL, schema: name }), schema: name };
}

async function started(cp: PostgresCheckpointer, id = "wf") {
  const { lease } = await cp.startWorkflow!({ id, graphName: "g", graphHash: "h" }, { owner: "me", ttlMs: 60_000 });
  return { epoch: lease.epoch };
}

describe("a fenced step write on PostgreSQL", () => {
  it("is BEGIN, one statement, COMMIT, fenced or not", async () => {
    const { cp } = open();
    const fence = await started(cp);
    const query = vi.spyOn(pg.Client.prototype, "query");
    await cp.saveStep(stepRecord("wf", { superstep: 0, nodeName: "a", index: 0, values: { v: 1 } }), fence);
    await cp.saveStep(stepRecord("wf", { superstep: 1, nodeName: "b", index: 1, values: { v: 2 } }));
    const texts = query.mock.calls.map((call) => {
      const text = String(call[0]);
      return text.startsWith("WITH fenced AS") ? "WITH fenced AS" : text.toUpperCase();
    });
    expect(texts).toEqual(["BEGIN", "WITH fenced AS", "COMMIT", "BEGIN", "WITH fenced AS", "COMMIT"]);
    query.mockRestore();
    expect(await cp.getWorkflow("wf")).toMatchObject({ stepCount: 2, lastSuperstep: 1 });
    await cp.close();
  });

  it("a stale fence or an unknown workflow writes nothing and fails as the full path does", async () => {
    const { cp } = open();
    const fence = await started(cp);
    const step = stepRecord("wf", { superstep: 0, nodeName: "a", index: 0, values: { v: 1 } });
    const stale = await cp.saveStep(step, { epoch: fence.epoch + 1 }).catch((e: unknown) => e);
    expect(stale).toMatchObject({ _tag: "WorkflowConflictError", workflowId: "wf" });
    expect(await cp.getWorkflow("wf")).toMatchObject({ stepCount: 0, lastSuperstep: -1 });
    expect(await cp.getSteps("wf")).toEqual([]);
    const unknown = await cp.saveStep({ ...step, workflowId: "nope" }, fence).catch((e: unknown) => e);
    expect(unknown).toMatchObject({ _tag: "CheckpointError", operation: "saveStep", workflowId: "nope" });
    await cp.close();
  });

  it("concurrent writers (two checkpointers, 40 steps, each written twice) count every step once", async () => {
    const { cp: a, schema } = open();
    const { cp: b } = open(schema);
    const fence = await started(a);
    const writes = Array.from({ length: 80 }, (_, i) => {
      const n = i % 40;
      const step = stepRecord("wf", { superstep: n % 7, nodeName: `n${n}`, index: n, values: { v: i } });
      return (i % 2 === 0 ? a : b).saveStep(step, fence);
    });
    await Promise.all(writes);
    expect(await a.getWorkflow("wf")).toMatchObject({ stepCount: 40, lastSuperstep: 6 });
    expect(await b.getSteps("wf")).toHaveLength(40);
    await Promise.all([a.close(), b.close()]);
  });

  it("a write that waits for the row lock is fenced out by the claim that held it, and writes nothing", async () => {
    const { cp, schema } = open();
    const fence = await started(cp);
    const holder = new pg.Client({ connectionString: DATABASE_URL });
    await holder.connect();
    try {
      // Another process's claim, in flight: the row is locked and the epoch moves when it commits.
      await holder.query("BEGIN");
      await holder.query(
        `UPDATE "${schema}".workflows SET lease_epoch = lease_epoch + 1, lease_owner = 'other' WHERE id = 'wf'`,
      );
      const step = stepRecord("wf", { superstep: 0, nodeName: "a", index: 0, values: { v: 1 } });
      const write = cp.saveStep(step, fence).catch((e: unknown) => e);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await holder.query("COMMIT");
      expect(await write).toMatchObject({ _tag: "WorkflowConflictError", workflowId: "wf" });
      expect(await cp.getWorkflow("wf")).toMatchObject({ stepCount: 0, lastSuperstep: -1 });
      expect(await cp.getSteps("wf")).toEqual([]);
    } finally {
      await holder.end();
    }
    await cp.close();
  });

  it("a write of a step committed while it waited for the row lock does not count it again", async () => {
    const { cp, schema } = open();
    const fence = await started(cp);
    const step = stepRecord("wf", { superstep: 2, nodeName: "a", index: 0, values: { v: 1 } });
    const holder = new pg.Client({ connectionString: DATABASE_URL });
    await holder.connect();
    try {
      // Another writer of the same step holds the row (after the waiting write took its snapshot) and commits it.
      await holder.query("BEGIN");
      await holder.query(`SELECT id FROM "${schema}".workflows WHERE id = 'wf' FOR NO KEY UPDATE`);
      const write = cp.saveStep(step, fence);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await holder.query(
        `INSERT INTO "${schema}".steps (workflow_id, superstep, node_name, idx, status, input_versions, value_keys, ` +
          `"values", started_at, completed_at) VALUES ('wf', 2, 'a', 0, 'completed', '{}', '[]', '{}', 0, 0)`,
      );
      await holder.query(`UPDATE "${schema}".workflows SET step_count = 1, last_superstep = 2 WHERE id = 'wf'`);
      await holder.query("COMMIT");
      await write;
      expect(await cp.getWorkflow("wf")).toMatchObject({ stepCount: 1, lastSuperstep: 2 });
      expect((await cp.getSteps("wf")).map((s) => s.values)).toEqual([{ v: 1 }]);
    } finally {
      await holder.end();
    }
    await cp.close();
  });
});
