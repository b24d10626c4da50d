import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { StepRecord } from "@graph/checkpoint";
import { isCheckpointError, isWorkflowConflictError } from "@graph/checkpoint";
import { rejection, stepRecord } from "@graph/checkpoint-conformance";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteCheckpointer } from "../src/index.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "graph-sqlite-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
let files = 0;
const tmpFile = (name = "db") => path.join(dir, `${name}-${++files}.db`);

const step = (workflowId: string, index: number, fields: Partial<StepRecord> = {}): StepRecord =>
  stepRecord(workflowId, {
    superstep: index,
    nodeName: `n${index}`,
    index,
    values: { [`v${index}`]: index },
    ...fields,
  });

/**
 * Turns a current database back into what schema version 2 created (no due times, structures, node cache, usage or
 * attempts).
 */
const TO_VERSION_2 =
  "ALTER TABLE graph_steps DROP COLUMN attempt; ALTER TABLE graph_steps DROP COLUMN usage; ALTER TABLE graph_steps DROP COLUMN budget; DROP INDEX graph_workflows_due; DROP INDEX graph_workflows_waiting; ALTER TABLE graph_workflows DROP COLUMN wake_at; " +
  "ALTER TABLE graph_workflows DROP COLUMN waiting_event; ALTER TABLE graph_workflows DROP COLUMN waiting_key; " +
  "DROP TABLE graph_structures; DROP TABLE graph_node_cache; DROP INDEX graph_workflows_status; " +
  "DROP INDEX graph_workflows_graph; DROP INDEX graph_workflows_expiry; DELETE FROM graph_migrations WHERE version >= 3";

describe("SqliteCheckpointer", () => {
  it("setup() migrates a schema-version-1 database (no stop_requested column); its workflows keep working", async () => {
    const file = tmpFile("v1");
    const current = new SqliteCheckpointer({ path: file });
    await current.setup();
    await current.close();
    // Turn it back into what version 1 created, holding one running workflow.
    const raw = new Database(file);
    raw.exec(
      `${TO_VERSION_2}; ALTER TABLE graph_workflows DROP COLUMN stop_requested; DELETE FROM graph_migrations WHERE version = 2`,
    );
    raw
      .prepare(
        "INSERT INTO graph_workflows (id, status, graph_name, graph_hash, lease_owner, lease_epoch, lease_expires_at, created_at, updated_at) VALUES ('old', 'running', 'g', 'h', 'a', 3, ?, 1, 1)",
      )
      .run(Date.now() + 60_000);
    raw.close();
    const upgraded = new SqliteCheckpointer({ path: file });
    await upgraded.setup();
    expect((await upgraded.getWorkflow("old"))?.stopRequested).toBeUndefined();
    const stop = await upgraded.requestStop("old", { info: "upgrade" });
    expect(stop?.stopRequested?.info).toBe("upgrade");
    expect((await upgraded.renewWorkflow("old", { owner: "a", epoch: 3 }, { ttlMs: 1000 })).stopRequested?.info).toBe(
      "upgrade",
    );
    await upgraded.close();
    const check = new Database(file);
    expect(check.prepare("SELECT version FROM graph_migrations ORDER BY version").pluck().all()).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8,
    ]);
    check.close();
  });

  it("setup() migrates a schema-version-2 database (no due times); its paused workflows can then sleep and wait", async () => {
    const file = tmpFile("v2");
    const current = new SqliteCheckpointer({ path: file });
    await current.setup();
    await current.close();
    const raw = new Database(file);
    raw.exec(TO_VERSION_2);
    expect(raw.prepare("SELECT version FROM graph_migrations ORDER BY version").pluck().all()).toEqual([1, 2]);
    raw
      .prepare(
        "INSERT INTO graph_workflows (id, status, graph_name, graph_hash, lease_epoch, created_at, updated_at) VALUES ('old', 'paused', 'g', 'h', 2, 1, 1)",
      )
      .run();
    raw.close();
    const upgraded = new SqliteCheckpointer({ path: file });
    await upgraded.setup();
    const old = await upgraded.getWorkflow("old");
    expect(old?.status).toBe("paused");
    expect(old !== undefined && ("wakeAt" in old || "waitingFor" in old)).toBe(false);
    expect(await upgraded.listDue({ before: new Date(8_000_000_000_000) })).toEqual([]);
    expect(await upgraded.nextDue()).toBeUndefined();
    const wait = { event: "ticket.replied", key: '{"ticketId":"T-1"}' };
    await upgraded.updateWorkflow("old", { wakeAt: new Date(5000), waitingFor: wait }, { epoch: 2 });
    expect(await upgraded.listDue({ before: new Date(5000) })).toEqual([{ id: "old", wakeAt: new Date(5000) }]);
    expect(await upgraded.listWaiting(wait)).toEqual(["old"]);
    await upgraded.close();
    const check = new Database(file, { readonly: true });
    expect(check.prepare("SELECT version FROM graph_migrations ORDER BY version").pluck().all()).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8,
    ]);
    const indexes = check
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'graph_workflows_%' ORDER BY name")
      .pluck()
      .all();
    expect(indexes).toEqual([
      "graph_workflows_created",
      "graph_workflows_due",
      "graph_workflows_expiry",
      "graph_workflows_graph",
      "graph_workflows_status",
      "graph_workflows_waiting",
    ]);
    // The queries are index reads: SQLite plans them on the partial indexes, without a sort.
    const plan = (query: string, ...params: unknown[]) =>
      (check.prepare(`EXPLAIN QUERY PLAN ${query}`).all(...params) as { detail: string }[]).map((row) => row.detail);
    expect(
      plan(
        "SELECT id, wake_at FROM graph_workflows WHERE wake_at IS NOT NULL AND wake_at <= ? AND status || '' IN ('paused', 'running') ORDER BY wake_at, id LIMIT 100",
        1,
      ),
    ).toEqual([expect.stringContaining("USING INDEX graph_workflows_due")]);
    expect(
      plan(
        "SELECT id FROM graph_workflows WHERE waiting_event = ? AND waiting_key = ? AND status || '' = 'paused' ORDER BY created_at, id LIMIT 100",
        "e",
        "k",
      ),
    ).toEqual([expect.stringContaining("USING INDEX graph_workflows_waiting")]);
    check.close();
  });

  it("a corrupt due-time or wait column is a CheckpointError naming the column", async () => {
    const file = tmpFile("corrupt-times");
    const cp = new SqliteCheckpointer({ path: file });
    await cp.createWorkflow({ id: "late", graphName: "g", graphHash: "h", wakeAt: new Date(10) });
    await cp.createWorkflow({ id: "half", graphName: "g", graphHash: "h" });
    const raw = new Database(file);
    raw.exec("UPDATE graph_workflows SET wake_at = 'soon' WHERE id = 'late'");
    raw.exec("UPDATE graph_workflows SET waiting_event = 'e' WHERE id = 'half'");
    raw.close();
    for (const [id, column] of [
      ["late", "workflow column wake_at"],
      ["half", "workflow column waiting_event / waiting_key"],
    ] as const) {
      const error = await rejection(cp.getWorkflow(id));
      expect(isCheckpointError(error)).toBe(true);
      expect((error as Error).message).toContain(`Stored ${column} of workflow '${id}' is corrupt`);
    }
    // A text sorts after every number in SQLite: listDue never reaches it, nextDue does.
    expect(await cp.listDue({ before: new Date(100) })).toEqual([]);
    const listed = await rejection(cp.nextDue());
    expect((listed as Error).message).toContain("Stored workflow column wake_at of workflow 'late' is corrupt");
    await cp.close();
  });

  it("creates parent directories, uses WAL + synchronous NORMAL + foreign keys", async () => {
    const file = path.join(dir, "nested", "deeper", "graph.db");
    const cp = new SqliteCheckpointer({ path: file });
    await cp.setup();
    await cp.createWorkflow({ id: "wf", graphName: "g", graphHash: "h" });
    expect(fs.existsSync(file)).toBe(true);
    const raw = new Database(file, { readonly: true });
    expect(raw.pragma("journal_mode", { simple: true })).toBe("wal");
    const tables = raw.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
    expect(tables).toEqual([
      "graph_migrations",
      "graph_node_cache",
      "graph_steps",
      "graph_structures",
      "graph_workflows",
    ]);
    expect(raw.prepare("SELECT version FROM graph_migrations").pluck().all()).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    raw.close();
    await cp.close();
  });

  it("works in memory", async () => {
    const cp = new SqliteCheckpointer({ path: ":memory:" });
    await cp.createWorkflow({ id: "wf", graphName: "g", graphHash: "h" });
    await cp.saveStep(step("wf", 0));
    expect(await cp.getState("wf")).toEqual({ v0: 0 });
    await cp.close();
  });

  it("setup is idempotent, also across instances on one file", async () => {
    const file = tmpFile();
    const a = new SqliteCheckpointer({ path: file });
    const b = new SqliteCheckpointer({ path: file });
    await Promise.all([a.setup(), b.setup(), a.setup()]);
    await a.setup();
    await a.createWorkflow({ id: "wf", graphName: "g", graphHash: "h" });
    expect((await b.getWorkflow("wf"))?.graphName).toBe("g");
    await Promise.all([a.close(), b.close()]);
  });

  it("keeps tables apart with tablePrefix", async () => {
    const file = tmpFile();
    const a = new SqliteCheckpointer({ path: file, tablePrefix: "a_" });
    const b = new SqliteCheckpointer({ path: file, tablePrefix: "b_" });
    await a.createWorkflow({ id: "wf", graphName: "a", graphHash: "h" });
    expect(await b.getWorkflow("wf")).toBeUndefined();
    await Promise.all([a.close(), b.close()]);
  });

  it("stores ids with quotes, LIKE wildcards, SQL and unicode verbatim; deleting a parent never matches wildcards", async () => {
    const cp = new SqliteCheckpointer({ path: tmpFile() });
    const ids = ['it\'s "quoted"', "50%_off", "x'); DROP TABLE graph_steps; --", "日本語/🙂", "a\\b"];
    for (const id of ids) {
      await cp.createWorkflow({ id, graphName: "g", graphHash: "h" });
      await cp.saveStep(step(id, 0, { nodeName: "n'; --", values: { [id]: id } }));
      expect((await cp.getWorkflow(id))?.id).toBe(id);
      expect(await cp.getState(id)).toEqual({ [id]: id });
    }
    for (const id of ["50%_off/child", "50%_off/child/grand", "50X_off/child", "50%_off-sibling", "50%_offx/child"]) {
      await cp.createWorkflow({ id, graphName: "g", graphHash: "h", parentId: "50%_off" });
      await cp.saveStep(step(id, 0));
    }
    await cp.deleteWorkflow("50%_off");
    const left = (await cp.listWorkflows()).workflows.map((w) => w.id).sort();
    expect(left).toEqual(
      ["50%_off-sibling", "50%_offx/child", "50X_off/child", ...ids.filter((id) => id !== "50%_off")].sort(),
    );
    expect(await cp.getSteps("50%_off/child")).toEqual([]);
    expect(await cp.getSteps("50X_off/child")).toHaveLength(1);
    await cp.close();
  });

  it("a value that cannot be serialised writes nothing and names workflow, node and path", async () => {
    const cp = new SqliteCheckpointer({ path: tmpFile() });
    await cp.createWorkflow({ id: "wf", graphName: "g", graphHash: "h" });
    const error = await rejection(
      cp.saveStep(step("wf", 0, { nodeName: "embed", values: { doc: { meta: [1, 2, () => 3] } } })),
    );
    expect(isCheckpointError(error)).toBe(true);
    expect(error).toMatchObject({ workflowId: "wf", nodeName: "embed", path: "values.doc.meta[2]" });
    expect(await cp.getSteps("wf")).toEqual([]);
    expect((await cp.getWorkflow("wf"))?.stepCount).toBe(0);
    await cp.close();
  });

  it("rejects stale fences and leases of other owners; a released lease is claimable", async () => {
    const cp = new SqliteCheckpointer({ path: tmpFile() });
    await cp.createWorkflow({ id: "wf", graphName: "g", graphHash: "h" });
    const first = await cp.claimWorkflow("wf", { owner: "a", ttlMs: 60_000 });
    expect(first.epoch).toBe(1);
    expect((await cp.claimWorkflow("wf", { owner: "a", ttlMs: 60_000 })).epoch).toBe(1);
    expect(isWorkflowConflictError(await rejection(cp.claimWorkflow("wf", { owner: "b", ttlMs: 1000 })))).toBe(true);
    await cp.releaseWorkflow("wf", first);
    const second = await cp.claimWorkflow("wf", { owner: "b", ttlMs: 60_000 });
    expect(second.epoch).toBe(2);
    const stale = await rejection(cp.saveStep(step("wf", 0), { epoch: first.epoch }));
    expect(isWorkflowConflictError(stale)).toBe(true);
    expect(await cp.getSteps("wf")).toEqual([]);
    await cp.saveStep(step("wf", 0), { epoch: second.epoch });
    expect(await cp.getSteps("wf")).toHaveLength(1);
    await cp.close();
  });

  it("an expired lease can be taken over", async () => {
    const cp = new SqliteCheckpointer({ path: tmpFile() });
    await cp.createWorkflow({ id: "wf", graphName: "g", graphHash: "h" });
    await cp.claimWorkflow("wf", { owner: "dead", ttlMs: 1 });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await cp.claimWorkflow("wf", { owner: "alive", ttlMs: 60_000 })).toMatchObject({ owner: "alive", epoch: 2 });
    await cp.close();
  });

  it("retention latest keeps state and versions, and bounds the number of rows", async () => {
    const cp = new SqliteCheckpointer({ path: tmpFile(), policy: { retention: "latest" } });
    await cp.createWorkflow({ id: "loop", graphName: "g", graphHash: "h" });
    for (let i = 0; i < 50; i++) {
      await cp.saveStep(
        step("loop", i, { nodeName: i % 2 === 0 ? "A" : "B", values: { [i % 2 === 0 ? "a" : "b"]: i } }),
      );
    }
    const checkpoint = await cp.getCheckpoint("loop");
    expect(checkpoint?.values).toEqual({ a: 48, b: 49 });
    expect(checkpoint?.versions).toEqual({ a: 48, b: 49 });
    expect(checkpoint?.steps.map((s) => s.index)).toEqual([48, 49]);
    expect((await cp.getWorkflow("loop"))?.stepCount).toBe(2);
    expect((await cp.getWorkflow("loop"))?.lastSuperstep).toBe(49);
    await cp.close();
  });

  it("upserts on (workflow, superstep, node) without double counting", async () => {
    const cp = new SqliteCheckpointer({ path: tmpFile() });
    await cp.createWorkflow({ id: "wf", graphName: "g", graphHash: "h" });
    await cp.saveStep(step("wf", 0, { status: "paused", pause: { value: { q: "ok?" }, responseKey: "answer" } }));
    await cp.saveStep(step("wf", 0, { values: { done: true }, decision: ["a", "b"], childWorkflowId: "wf/sub" }));
    const steps = await cp.getSteps("wf");
    expect(steps).toHaveLength(1);
    expect(steps[0]).toMatchObject({
      status: "completed",
      values: { done: true },
      decision: ["a", "b"],
      childWorkflowId: "wf/sub",
    });
    expect(steps[0]?.pause).toBeUndefined();
    expect((await cp.getWorkflow("wf"))?.stepCount).toBe(1);
    await cp.close();
  });

  it("a corrupt row gives a CheckpointError naming the workflow, never a crash", async () => {
    const file = tmpFile();
    const cp = new SqliteCheckpointer({ path: file });
    await cp.createWorkflow({ id: "wf", graphName: "g", graphHash: "h" });
    await cp.saveStep(step("wf", 0, { nodeName: "embed" }));
    const raw = new Database(file);
    raw.prepare(`UPDATE graph_steps SET "values" = '{not json' WHERE workflow_id = 'wf'`).run();
    raw.prepare(`UPDATE graph_workflows SET status = 'exploded' WHERE id = 'wf'`).run();
    raw.close();
    const stepsError = await rejection(cp.getSteps("wf"));
    expect(isCheckpointError(stepsError)).toBe(true);
    expect(stepsError).toMatchObject({ workflowId: "wf", nodeName: "embed" });
    const workflowError = await rejection(cp.getWorkflow("wf"));
    expect(isCheckpointError(workflowError)).toBe(true);
    expect(workflowError).toMatchObject({ workflowId: "wf", operation: "getWorkflow", path: "workflow column status" });
    await cp.close();
  });

  it("listWorkflows skips a corrupt workflow row and reports it, on every page", async () => {
    const file = tmpFile();
    const cp = new SqliteCheckpointer({ path: file });
    for (const id of ["a", "b", "c", "d"]) await cp.createWorkflow({ id, graphName: "g", graphHash: "h" });
    const raw = new Database(file);
    raw.prepare(`UPDATE graph_workflows SET status = 'exploded' WHERE id = 'b'`).run();
    raw.prepare(`UPDATE graph_workflows SET pause = '{not json' WHERE id = 'c'`).run();
    raw.close();
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
    expect(second.nextCursor).toBeUndefined();
    const whole = await cp.listWorkflows();
    expect(whole.workflows.map((w) => w.id)).toEqual(["a", "d"]);
    expect(whole.skipped?.map((s) => s.id)).toEqual(["b", "c"]);
    await cp.close();
  });

  it("a file that is not a database gives an actionable CheckpointError", async () => {
    const file = tmpFile("garbage");
    fs.writeFileSync(file, "this is not a database, just text ".repeat(200));
    const cp = new SqliteCheckpointer({ path: file });
    const error = await rejection(cp.setup());
    expect(isCheckpointError(error)).toBe(true);
    expect((error as Error).message).toMatch(/not a SQLite database or is corrupt/);
    expect((error as Error).message).toContain(file);
    await cp.close();
  });

  it("unknown workflows: getters are empty, writers throw CheckpointError", async () => {
    const cp = new SqliteCheckpointer({ path: ":memory:" });
    expect(await cp.getWorkflow("nope")).toBeUndefined();
    expect(await cp.getSteps("nope")).toEqual([]);
    expect(await cp.getState("nope")).toEqual({});
    expect(await cp.getCheckpoint("nope")).toBeUndefined();
    expect(await cp.getWorkflow("nul\u0000id")).toBeUndefined();
    for (const write of [
      cp.saveStep(step("nope", 0)),
      cp.updateWorkflow("nope", { status: "completed" }),
      cp.claimWorkflow("nope", { owner: "me", ttlMs: 1000 }),
      cp.createWorkflow({ id: "bad\ud800", graphName: "g", graphHash: "h" }),
    ]) {
      expect(isCheckpointError(await rejection(write))).toBe(true);
    }
    await cp.releaseWorkflow("nope", { owner: "me", epoch: 1 });
    await cp.deleteWorkflow("nope");
    await cp.close();
  });

  it("validates its options", () => {
    const refused = (path: string) => expect.objectContaining({ _tag: "CheckpointError", path });
    expect(() => new SqliteCheckpointer({} as never)).toThrow(refused("path"));
    expect(() => new SqliteCheckpointer({ path: ":memory:", busyTimeoutMs: -1 })).toThrow(refused("busyTimeoutMs"));
    expect(() => new SqliteCheckpointer({ path: ":memory:", tablePrefix: "x; drop" })).toThrow(refused("tablePrefix"));
    expect(() => new SqliteCheckpointer({ path: ":memory:", policy: { retention: "windowed" } })).toThrow(
      refused("window"),
    );
  });

  it("close waits for writes in flight, is idempotent, and later calls fail clearly", async () => {
    const cp = new SqliteCheckpointer({ path: tmpFile() });
    await cp.createWorkflow({ id: "wf", graphName: "g", graphHash: "h" });
    const pending = Array.from({ length: 20 }, (_, i) => cp.saveStep(step("wf", i)));
    await Promise.all([cp.close(), cp.close()]);
    await Promise.all(pending);
    const error = await rejection(cp.getWorkflow("wf"));
    expect(isCheckpointError(error)).toBe(true);
    expect(error).toMatchObject({ operation: "getWorkflow" });
    expect((error as Error).message).toMatch(/after close\(\)/);
    const again = new SqliteCheckpointer({ path: cp.path });
    expect((await again.getWorkflow("wf"))?.stepCount).toBe(20);
    await again.close();
  });

  it("stores well under 1 KB per trivial step", async () => {
    const cp = new SqliteCheckpointer({ path: tmpFile() });
    await cp.createWorkflow({ id: "size", graphName: "g", graphHash: "h" });
    const before = await cp.storageBytes();
    const count = 1000;
    for (let i = 0; i < count; i++) {
      await cp.saveStep(step("size", i, { nodeName: `node${i % 10}`, inputVersions: { x: i }, values: { x: i + 1 } }));
    }
    const perStep = ((await cp.storageBytes()) - before) / count;
    expect(perStep).toBeLessThan(1024);
    expect(perStep).toBeGreaterThan(0);
    await cp.close();
  });
});
