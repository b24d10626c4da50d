// Statements per fenced step write: the lease check and the duplicate check ride in one UPDATE of the workflow row
// (its WHERE clause and a NOT EXISTS), then the step upsert — four statements with BEGIN and COMMIT, where the full
// path takes six. Counted on better-sqlite3's statement methods, which every synchronous statement goes through.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { stepRecord } from "@graph/checkpoint-conformance";
import Database from "better-sqlite3";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteCheckpointer } from "../src/index.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "graph-sqlite-steps-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

type Method = (this: { source: string }, ...args: unknown[]) => unknown;
const statementPrototype = (() => {
  const db = new Database(":memory:");
  const prototype = Object.getPrototypeOf(db.prepare("SELECT 1")) as Record<string, Method>;
  db.close();
  return prototype;
})();

const executed: string[] = [];
const originals = new Map<string, Method>();
beforeEach(() => {
  for (const name of ["run", "all", "get"]) {
    const original = statementPrototype[name]!;
    originals.set(name, original);
    statementPrototype[name] = function (this: { source: string }, ...args: unknown[]) {
      executed.push(this.source);
      return original.apply(this, args);
    };
  }
});
afterEach(() => {
  for (const [name, original] of originals) statementPrototype[name] = original;
  executed.length = 0;
});

/** The first word(s) of each statement run by `body`. */
async function statementsOf(body: () => Promise<unknown>): Promise<string[]> {
  executed.length = 0;
  await body();
  return executed.map((text) =>
    (/^(BEGIN IMMEDIATE|COMMIT|ROLLBACK|\w+)/.exec(text.trim())?.[1] ?? text).toUpperCase(),
  );
}

async function started(file: string) {
  const cp = new SqliteCheckpointer({ path: path.join(dir, file) });
  const { lease } = await cp.startWorkflow!(
    { id: "wf", graphName: "g", graphHash: "h" },
    { owner: "me", ttlMs: 60_000 },
  );
  return { cp, fence: { epoch: lease.epoch } };
}

describe("a fenced step write on SQLite", () => {
  it("is BEGIN, one UPDATE (fence + counters), the upsert, COMMIT", async () => {
    const { cp, fence } = await started("four.db");
    const step = stepRecord("wf", { superstep: 0, nodeName: "a", index: 0, values: { v: 1 } });
    expect(await statementsOf(() => cp.saveStep(step, fence))).toEqual([
      "BEGIN IMMEDIATE",
      "UPDATE",
      "INSERT",
      "COMMIT",
    ]);
    expect(await statementsOf(() => cp.saveStep({ ...step, superstep: 1, nodeName: "b", index: 1 }))).toEqual([
      "BEGIN IMMEDIATE",
      "UPDATE",
      "INSERT",
      "COMMIT",
    ]);
    expect(await cp.getWorkflow("wf")).toMatchObject({ stepCount: 2, lastSuperstep: 1 });
    await cp.close();
  });

  it("counts a rewritten step once and never lowers the last superstep", async () => {
    const { cp, fence } = await started("rewrite.db");
    await cp.saveStep(stepRecord("wf", { superstep: 3, nodeName: "a", index: 0, values: { v: 1 } }), fence);
    await cp.saveStep(stepRecord("wf", { superstep: 3, nodeName: "a", index: 0, values: { v: 2 } }), fence);
    await cp.saveStep(stepRecord("wf", { superstep: 1, nodeName: "b", index: 1, values: { v: 3 } }), fence);
    expect(await cp.getWorkflow("wf")).toMatchObject({ stepCount: 2, lastSuperstep: 3 });
    expect((await cp.getSteps("wf")).map((s) => [s.nodeName, s.values["v"]])).toEqual([
      ["a", 2],
      ["b", 3],
    ]);
    await cp.close();
  });

  it("a stale fence writes nothing and fails with the current lease; an unknown workflow fails as before", async () => {
    const { cp, fence } = await started("stale.db");
    const step = stepRecord("wf", { superstep: 0, nodeName: "a", index: 0, values: { v: 1 } });
    const error = await cp.saveStep(step, { epoch: fence.epoch + 1 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ _tag: "WorkflowConflictError", workflowId: "wf" });
    expect(String((error as Error).message)).toContain(`epoch ${fence.epoch + 1}`);
    expect(await cp.getWorkflow("wf")).toMatchObject({ stepCount: 0, lastSuperstep: -1 });
    expect(await cp.getSteps("wf")).toEqual([]);
    const unknown = await cp.saveStep({ ...step, workflowId: "nope" }, fence).catch((e: unknown) => e);
    expect(unknown).toMatchObject({ _tag: "CheckpointError", operation: "saveStep", workflowId: "nope" });
    await cp.close();
  });
});
