// Schema version 7 (step attempts) on SQLite: the upgrade of a version-6 file that holds steps, the JSON column a
// step of a node with `retry` fills in the same upsert as the rest of the step, and a corrupt one read back.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { StepRecord } from "@graph/checkpoint";
import { INPUT_STEP } from "@graph/checkpoint";
import { stepRecord } from "@graph/checkpoint-conformance";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteCheckpointer } from "../src/index.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "graph-sqlite-attempts-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const stepColumns = (db: Database.Database) =>
  db.prepare("SELECT name FROM pragma_table_info('graph_steps') ORDER BY cid").pluck().all() as string[];

const input = (id: string, index: number): StepRecord =>
  stepRecord(id, { kind: "input", superstep: index, nodeName: INPUT_STEP, index, values: { order: index } });
const charge = (id: string, superstep: number, index: number, fields: Partial<StepRecord> = {}): StepRecord =>
  stepRecord(id, { superstep, nodeName: "charge", index, inputVersions: { order: 0 }, ...fields });

describe("SqliteCheckpointer schema version 7 (attempts)", () => {
  it("setup() migrates a version-6 file holding steps: old steps read without an attempt, new ones keep theirs", async () => {
    const file = path.join(dir, "v6.db");
    const current = new SqliteCheckpointer({ path: file });
    await current.setup();
    const { lease } = await current.startWorkflow(
      { id: "old", graphName: "g", graphHash: "h" },
      { owner: "a", ttlMs: 60_000 },
      [input("old", 0)],
    );
    await current.saveStep(charge("old", 1, 1, { values: { receipt: "r" } }), { epoch: lease.epoch });
    await current.close();
    // Back to what version 6 left: the same steps, no attempt column, migrations 1–6.
    const raw = new Database(file);
    const latest = stepColumns(raw);
    raw.exec("ALTER TABLE graph_steps DROP COLUMN attempt; DELETE FROM graph_migrations WHERE version >= 7");
    expect(latest.at(-1)).toBe("attempt");
    expect(stepColumns(raw)).toEqual(latest.slice(0, -1));
    raw.close();

    const upgraded = new SqliteCheckpointer({ path: file });
    await upgraded.setup();
    const before = await upgraded.getSteps("old", { includeInputs: true });
    expect(before).toStrictEqual([input("old", 0), charge("old", 1, 1, { values: { receipt: "r" } })]);
    expect(before.some((s) => "attempt" in s)).toBe(false);
    // A resumed run of a node with retry on the upgraded file: its attempt under way, then its result.
    const running = charge("old", 2, 2, { status: "running", attempt: { number: 1, repeats: 0 } });
    await upgraded.saveStep(running, { epoch: lease.epoch });
    expect((await upgraded.getSteps("old")).at(-1)).toStrictEqual(running);
    const failed = charge("old", 2, 3, { status: "failed", attempt: { number: 3, repeats: 1 } });
    await upgraded.saveSteps([failed], { epoch: lease.epoch });
    expect(await upgraded.getSteps("old", { includeInputs: true })).toStrictEqual([...before, failed]);
    await upgraded.setup();
    await upgraded.close();

    const check = new Database(file, { readonly: true });
    expect(stepColumns(check)).toEqual(latest);
    expect(check.prepare("SELECT version, name FROM graph_migrations WHERE version = 7").get()).toEqual({
      version: 7,
      name: "step attempts",
    });
    expect(check.prepare("SELECT idx, status, attempt FROM graph_steps ORDER BY idx").all()).toEqual([
      { idx: 0, status: "completed", attempt: null },
      { idx: 1, status: "completed", attempt: null },
      { idx: 3, status: "failed", attempt: '{"number":3,"repeats":1}' },
    ]);
    check.close();
  });

  it("a corrupt attempt column, or a running step without one, is a CheckpointError naming the column", async () => {
    const file = path.join(dir, "corrupt.db");
    const cp = new SqliteCheckpointer({ path: file });
    await cp.setup();
    await cp.createWorkflow({ id: "wf", graphName: "g", graphHash: "h" });
    await cp.saveStep(charge("wf", 0, 0, { status: "running", attempt: { number: 2, repeats: 0 } }));
    const raw = new Database(file);
    for (const text of ['{"number":0,"repeats":0}', '{"number":2}', "not json", null]) {
      raw.prepare("UPDATE graph_steps SET attempt = ? WHERE workflow_id = 'wf'").run(text);
      const error = await cp.getSteps("wf").then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, String(text)).toMatchObject({
        _tag: "CheckpointError",
        path: "step column attempt",
        workflowId: "wf",
      });
      expect((error as Error).message).toContain(
        "Stored step column attempt of workflow 'wf' (node 'charge') is corrupt",
      );
    }
    raw.close();
    await cp.close();
  });
});
