import type { StepRecord } from "@graph/checkpoint";
import { isCheckpointError, isWorkflowConflictError } from "@graph/checkpoint";
import { rejection, stepRecord } from "@graph/checkpoint-conformance";
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresCheckpointer } from "../src/index.js";
import { admin, DATABASE_URL, dropSchemas, randomSchema, requirePostgres } from "./fixtures/server.js";

const schemas: string[] = [];
const schema = (label = "pg") => {
  const name = randomSchema(label);
  schemas.push(name);
  return name;
};
beforeAll(requirePostgres);
afterAll(() => dropSchemas(schemas));

const step = (workflowId: string, index: number, fields: Partial<StepRecord> = {}): StepRecord =>
  stepRecord(workflowId, {
    superstep: index,
    nodeName: `n${index}`,
    index,
    values: { [`v${index}`]: index },
    ...fields,
  });

describe("PostgresCheckpointer", () => {
  it("creates its schema and tables, and setup is idempotent (also concurrently)", async () => {
    const name = schema();
    const a = new PostgresCheckpointer({ connectionString: DATABASE_URL, schema: name });
    const b = new PostgresCheckpointer({ connectionString: DATABASE_URL, schema: name });
    await Promise.all([a.setup(), b.setup(), a.setup(), b.setup()]);
    await a.setup();
    const tables = await admin<{ tablename: string }>(
      "SELECT tablename FROM pg_tables WHERE schemaname = $1 ORDER BY tablename",
      [name],
    );
    expect(tables.map((t) => t.tablename)).toEqual(["migrations", "node_cache", "steps", "structures", "workflows"]);
    await a.createWorkflow({ id: "wf", graphName: "g", graphHash: "h" });
    expect((await b.getWorkflow("wf"))?.graphName).toBe("g");
    await Promise.all([a.close(), b.close()]);
  });

  it("round-trips every field, Dates, Maps, BigInts, -0 and key order exactly", async () => {
    const cp = new PostgresCheckpointer({ connectionString: DATABASE_URL, schema: schema() });
    await cp.createWorkflow({ id: "wf", graphName: "g", graphHash: "h", parentId: "root" });
    const values = {
      z: 1,
      a: -0,
      when: new Date(0),
      m: new Map<unknown, unknown>([[1n, new Set(["x"])]]),
      u: undefined,
      dup: { b: 1, a: 2 },
    };
    const saved = step("wf", 3, {
      status: "paused",
      values,
      inputVersions: { q: 0, r: 2 },
      decision: null,
      childWorkflowId: "wf/sub",
      pause: { value: { question: "ok?" }, responseKey: "answer" },
      truncated: true,
      error: { name: "TypeError", message: "boom", tag: "NodeExecutionError" },
    });
    await cp.saveStep(saved);
    const [read] = await cp.getSteps("wf");
    expect(read).toEqual(saved);
    expect(Object.is((read!.values as { a: number }).a, -0)).toBe(true);
    expect(Object.keys(read?.values ?? {})).toEqual(Object.keys(values));
    const wf = await cp.updateWorkflow("wf", {
      status: "paused",
      pause: { nodeName: "approve", value: { draft: "hi" }, responseKey: "approval" },
      error: { name: "E", message: "m" },
    });
    expect(wf).toMatchObject({ status: "paused", parentId: "root", lastSuperstep: 3, stepCount: 1 });
    expect(wf.pause).toEqual({ nodeName: "approve", value: { draft: "hi" }, responseKey: "approval" });
    const cleared = await cp.updateWorkflow("wf", { status: "completed", pause: null, error: null });
    expect(cleared.pause).toBeUndefined();
    expect(cleared.error).toBeUndefined();
    await cp.close();
  });

  it("stores ids with quotes, LIKE wildcards, SQL fragments and unicode verbatim", async () => {
    const cp = new PostgresCheckpointer({ connectionString: DATABASE_URL, schema: schema() });
    const ids = ['it\'s "quoted"', "50%_off", "x'); DROP TABLE steps; --", "$1 $$ E'\\n'", "日本語/🙂", "a\\b", "Ω≈ç√"];
    for (const id of ids) {
      await cp.createWorkflow({ id, graphName: id, graphHash: id });
      await cp.saveStep(step(id, 0, { nodeName: "n'; --", values: { [id]: id } }));
      expect(await cp.getWorkflow(id)).toMatchObject({ id, graphName: id, graphHash: id, stepCount: 1 });
      expect(await cp.getState(id)).toEqual({ [id]: id });
    }
    for (const id of ["50%_off/child", "50%_off/child/grand", "50X_off/child", "50%_off-sibling", "50%_offx/child"]) {
      await cp.createWorkflow({ id, graphName: "g", graphHash: "h" });
      await cp.saveStep(step(id, 0));
    }
    await cp.deleteWorkflow("50%_off");
    const left = (await cp.listWorkflows()).workflows.map((w) => w.id).sort();
    expect(left).toEqual(
      ["50%_off-sibling", "50%_offx/child", "50X_off/child", ...ids.filter((id) => id !== "50%_off")].sort(),
    );
    expect(await cp.getSteps("50%_off/child/grand")).toEqual([]);
    await cp.close();
  });

  it("a server that is down gives a CheckpointError naming host and port and how to fix it", async () => {
    const cp = new PostgresCheckpointer({
      connectionString: "postgres://postgres@127.0.0.1:5999/postgres",
      schema: schema(),
    });
    const error = await rejection(cp.setup());
    expect(isCheckpointError(error)).toBe(true);
    const message = (error as Error).message;
    expect(message).toContain("Cannot connect to PostgreSQL at 127.0.0.1:5999 (ECONNREFUSED)");
    expect(message).toContain("Is the server running? Set DATABASE_URL or pass connectionString.");
    const again = await rejection(cp.getWorkflow("wf"));
    expect((again as Error).message).toContain("127.0.0.1:5999");
    await cp.close();
  });

  it("names the configured host for localhost URLs and for application pools", async () => {
    const viaUrl = new PostgresCheckpointer({ connectionString: "postgres://postgres@localhost:5999/postgres" });
    expect(((await rejection(viaUrl.setup())) as Error).message).toContain(
      "Cannot connect to PostgreSQL at localhost:5999 (ECONNREFUSED)",
    );
    await viaUrl.close();
    const pool = new pg.Pool({ host: "127.0.0.1", port: 5999, user: "postgres" });
    const viaPool = new PostgresCheckpointer({ pool });
    expect(((await rejection(viaPool.setup())) as Error).message).toContain("at 127.0.0.1:5999 (ECONNREFUSED)");
    await viaPool.close();
    await pool.end();
  });

  it("an unknown host is named too", async () => {
    const cp = new PostgresCheckpointer({ connectionString: "postgres://postgres@no-such-host.invalid:5432/postgres" });
    const error = await rejection(cp.setup());
    expect((error as Error).message).toMatch(
      /Cannot connect to PostgreSQL at no-such-host\.invalid:5432 \((ENOTFOUND|EAI_AGAIN)\)/,
    );
    await cp.close();
  });

  it("accepts an application-owned pool and leaves it open on close", async () => {
    const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
    const cp = new PostgresCheckpointer({ pool, schema: schema() });
    await cp.createWorkflow({ id: "wf", graphName: "g", graphHash: "h" });
    await cp.close();
    expect((await pool.query("SELECT 1 AS one")).rows[0]).toEqual({ one: 1 });
    await pool.end();
  });

  it("accepts an application-owned Kysely instance and leaves it open on close", async () => {
    const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
    const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }) });
    const cp = new PostgresCheckpointer({ db, schema: schema() });
    await cp.createWorkflow({ id: "wf", graphName: "g", graphHash: "h" });
    await cp.close();
    expect((await sql<{ one: number }>`SELECT 1 AS one`.execute(db)).rows).toEqual([{ one: 1 }]);
    await db.destroy();
  });

  it("without a connection string or DATABASE_URL it says what to pass", () => {
    const saved = process.env["DATABASE_URL"];
    delete process.env["DATABASE_URL"];
    try {
      expect(() => new PostgresCheckpointer({})).toThrow(
        expect.objectContaining({ _tag: "CheckpointError", path: "connectionString" }),
      );
    } finally {
      if (saved !== undefined) process.env["DATABASE_URL"] = saved;
    }
    expect(() => new PostgresCheckpointer({ connectionString: DATABASE_URL, schema: "bad name" })).toThrow(
      expect.objectContaining({ _tag: "CheckpointError", path: "schema" }),
    );
  });

  it("concurrent claims from two checkpointers (two pools): exactly one wins, 20 times", async () => {
    const name = schema();
    const a = new PostgresCheckpointer({ connectionString: DATABASE_URL, schema: name });
    const b = new PostgresCheckpointer({ connectionString: DATABASE_URL, schema: name });
    await Promise.all([a.setup(), b.setup()]);
    for (let round = 0; round < 20; round++) {
      const id = `race-${round}`;
      await a.createWorkflow({ id, graphName: "g", graphHash: "h" });
      const outcomes = await Promise.allSettled([
        a.claimWorkflow(id, { owner: "a", ttlMs: 60_000 }),
        b.claimWorkflow(id, { owner: "b", ttlMs: 60_000 }),
        a.claimWorkflow(id, { owner: "c", ttlMs: 60_000 }),
        b.claimWorkflow(id, { owner: "d", ttlMs: 60_000 }),
      ]);
      expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
      for (const o of outcomes) if (o.status === "rejected") expect(isWorkflowConflictError(o.reason)).toBe(true);
    }
    await Promise.all([a.close(), b.close()]);
  });

  it("concurrent saves of the same step from two pools count it once", async () => {
    const name = schema();
    const a = new PostgresCheckpointer({ connectionString: DATABASE_URL, schema: name });
    const b = new PostgresCheckpointer({ connectionString: DATABASE_URL, schema: name });
    await a.createWorkflow({ id: "dup", graphName: "g", graphHash: "h" });
    for (let round = 0; round < 30; round++) {
      await Promise.all([
        a.saveStep(step("dup", round, { values: { x: "a" } })),
        b.saveStep(step("dup", round, { values: { x: "b" } })),
        a.saveStep(step("dup", round, { values: { x: "c" } })),
      ]);
    }
    expect((await a.getWorkflow("dup"))?.stepCount).toBe(30);
    expect(await a.getSteps("dup")).toHaveLength(30);
    await Promise.all([a.close(), b.close()]);
  });

  it("fencing, expiry and release follow the contract", async () => {
    const cp = new PostgresCheckpointer({ connectionString: DATABASE_URL, schema: schema() });
    await cp.createWorkflow({ id: "wf", graphName: "g", graphHash: "h" });
    const first = await cp.claimWorkflow("wf", { owner: "a", ttlMs: 1 });
    await new Promise((resolve) => setTimeout(resolve, 10));
    const second = await cp.claimWorkflow("wf", { owner: "b", ttlMs: 60_000 });
    expect(second.epoch).toBe(first.epoch + 1);
    expect(isWorkflowConflictError(await rejection(cp.saveStep(step("wf", 0), { epoch: first.epoch })))).toBe(true);
    expect(
      isWorkflowConflictError(await rejection(cp.updateWorkflow("wf", { status: "failed" }, { epoch: first.epoch }))),
    ).toBe(true);
    expect((await cp.getWorkflow("wf"))?.status).toBe("running");
    await cp.releaseWorkflow("wf", first);
    expect((await cp.getWorkflow("wf"))?.lease?.owner).toBe("b");
    await cp.releaseWorkflow("wf", second);
    expect((await cp.getWorkflow("wf"))?.lease).toBeUndefined();
    await cp.close();
  });

  it("a non-serialisable value and a corrupt row give CheckpointErrors; nothing half-written", async () => {
    const name = schema();
    const cp = new PostgresCheckpointer({ connectionString: DATABASE_URL, schema: name });
    await cp.createWorkflow({ id: "wf", graphName: "g", graphHash: "h" });
    const error = await rejection(cp.saveStep(step("wf", 0, { nodeName: "embed", values: { x: { y: Symbol("s") } } })));
    expect(error).toMatchObject({ _tag: "CheckpointError", workflowId: "wf", nodeName: "embed", path: "values.x.y" });
    expect((await cp.getWorkflow("wf"))?.stepCount).toBe(0);
    await cp.saveStep(step("wf", 0, { nodeName: "embed" }));
    await admin(`UPDATE "${name}".steps SET "values" = '{broken' WHERE workflow_id = 'wf'`);
    const corrupt = await rejection(cp.getState("wf"));
    expect(corrupt).toMatchObject({ _tag: "CheckpointError", workflowId: "wf", nodeName: "embed" });
    await cp.close();
  });

  it("listWorkflows skips a corrupt workflow row and reports it, on every page", async () => {
    const name = schema();
    const cp = new PostgresCheckpointer({ connectionString: DATABASE_URL, schema: name });
    for (const id of ["a", "b", "c", "d"]) await cp.createWorkflow({ id, graphName: "g", graphHash: "h" });
    await admin(`UPDATE "${name}".workflows SET status = 'exploded' WHERE id = 'b'`);
    await admin(`UPDATE "${name}".workflows SET pause = '{not json' WHERE id = 'c'`);
    const first = await cp.listWorkflows({ limit: 2 });
    expect(first.workflows.map((w) => w.id)).toEqual(["a"]);
    expect(first.skipped?.map((s) => s.id)).toEqual(["b"]);
    expect(isCheckpointError(first.skipped?.[0]?.error)).toBe(true);
    expect(first.skipped?.[0]?.error).toMatchObject({
      workflowId: "b",
      operation: "listWorkflows",
      path: "workflow column status",
    });
    const second = await cp.listWorkflows({ limit: 2, ...(first.nextCursor ? { cursor: first.nextCursor } : {}) });
    expect(second.workflows.map((w) => w.id)).toEqual(["d"]);
    expect(second.skipped?.map((s) => s.id)).toEqual(["c"]);
    const whole = await cp.listWorkflows();
    expect(whole.workflows.map((w) => w.id)).toEqual(["a", "d"]);
    expect(whole.skipped?.map((s) => s.id)).toEqual(["b", "c"]);
    await cp.close();
  });

  it("rejects a bad pool size, connection timeout or serializer with CheckpointErrors", () => {
    for (const [options, path] of [
      [{ max: 0 }, "max"],
      [{ max: 2.5 }, "max"],
      [{ connectionTimeoutMs: -1 }, "connectionTimeoutMs"],
      [{ serializer: { serialize: "x" } }, "serializer"],
    ] as const) {
      let error: unknown;
      try {
        new PostgresCheckpointer({ connectionString: DATABASE_URL, schema: "unused", ...(options as object) });
      } catch (e) {
        error = e;
      }
      expect(isCheckpointError(error)).toBe(true);
      expect(error).toMatchObject({ path });
    }
  });

  it("a workflow id over the limit is rejected up front, naming the limit (not connection advice)", async () => {
    const cp = new PostgresCheckpointer({ connectionString: DATABASE_URL, schema: schema() });
    const error = await rejection(cp.createWorkflow({ id: "w".repeat(3000), graphName: "g", graphHash: "h" }));
    expect(isCheckpointError(error)).toBe(true);
    expect((error as Error).message).toMatch(/3000 UTF-8 bytes long; the limit is 1024 bytes/);
    expect((error as Error).message).not.toMatch(/reachable/);
    await cp.close();
  });

  it("stores well under 1 KB per trivial step", { timeout: 120_000 }, async () => {
    const cp = new PostgresCheckpointer({ connectionString: DATABASE_URL, schema: schema() });
    await cp.createWorkflow({ id: "size", graphName: "g", graphHash: "h" });
    const before = await cp.storageBytes();
    const count = 300;
    for (let i = 0; i < count; i++) {
      await cp.saveStep(step("size", i, { nodeName: `node${i % 10}`, inputVersions: { x: i }, values: { x: i + 1 } }));
    }
    const perStep = ((await cp.storageBytes()) - before) / count;
    expect(perStep).toBeGreaterThan(0);
    expect(perStep).toBeLessThan(1024);
    await cp.close();
  });
});
