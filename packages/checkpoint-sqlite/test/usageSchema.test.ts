// Schema version 6 (step usage and budgets) on SQLite: the upgrade of a version-5 file that holds steps, and the two
// columns every step write fills in the same statement as the rest of the step.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { StepRecord } from "@graph/checkpoint";
import { INPUT_STEP } from "@graph/checkpoint";
import { stepRecord } from "@graph/checkpoint-conformance";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteCheckpointer } from "../src/index.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "graph-sqlite-usage-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The steps table of schema version 5, column by column. */
const VERSION_5_STEP_COLUMNS = [
  "workflow_id",
  "superstep",
  "node_name",
  "idx",
  "status",
  "input_versions",
  "value_keys",
  "values",
  "decision",
  "child_workflow_id",
  "pause",
  "truncated",
  "error",
  "started_at",
  "completed_at",
];

const stepColumns = (db: Database.Database) =>
  (db.prepare("SELECT name FROM pragma_table_info('graph_steps') ORDER BY cid").pluck().all() as string[]).slice();

const input = (id: string, index: number, fields: Partial<StepRecord> = {}): StepRecord =>
  stepRecord(id, { kind: "input", superstep: index, nodeName: INPUT_STEP, index, values: { q: index }, ...fields });
const node = (id: string, index: number, fields: Partial<StepRecord> = {}): StepRecord =>
  stepRecord(id, { superstep: index, nodeName: `n${index}`, index, values: { [`v${index}`]: index }, ...fields });

describe("SqliteCheckpointer schema version 6 (usage, budget)", () => {
  it("setup() migrates a version-5 file holding steps: old steps read without usage, new ones keep theirs", async () => {
    const file = path.join(dir, "v5.db");
    const current = new SqliteCheckpointer({ path: file });
    await current.setup();
    const { lease } = await current.startWorkflow(
      { id: "old", graphName: "g", graphHash: "h" },
      { owner: "a", ttlMs: 60_000 },
      [input("old", 0, { turnStart: true })],
    );
    await current.saveStep(node("old", 1), { epoch: lease.epoch });
    await current.close();
    // Back to what version 5 left: the same steps, no usage or budget columns, migrations 1–5.
    const raw = new Database(file);
    raw.exec(
      "ALTER TABLE graph_steps DROP COLUMN attempt; ALTER TABLE graph_steps DROP COLUMN usage; " +
        "ALTER TABLE graph_steps DROP COLUMN budget; DELETE FROM graph_migrations WHERE version >= 6",
    );
    expect(stepColumns(raw)).toEqual(VERSION_5_STEP_COLUMNS);
    expect(raw.prepare("SELECT version FROM graph_migrations ORDER BY version").pluck().all()).toEqual([1, 2, 3, 4, 5]);
    raw.close();

    const upgraded = new SqliteCheckpointer({ path: file });
    await upgraded.setup();
    const before = await upgraded.getSteps("old", { includeInputs: true });
    expect(before).toStrictEqual([input("old", 0, { turnStart: true }), node("old", 1)]);
    expect(before.some((s) => "usage" in s || "budget" in s)).toBe(false);
    // The run continues on the upgraded file: a raised budget, then a step that spent something.
    const raised = input("old", 2, { budget: { tokens: 2_000, costUsd: 1.5 } });
    const spent = node("old", 3, { usage: { tokens: 1_250, costUsd: 0.004, calls: 1, wallMs: 830 } });
    await upgraded.saveSteps([raised, spent], { epoch: lease.epoch });
    expect(await upgraded.getSteps("old", { includeInputs: true })).toStrictEqual([...before, raised, spent]);
    // A second setup (another process starting) changes nothing.
    await upgraded.setup();
    await upgraded.close();

    const check = new Database(file, { readonly: true });
    expect(stepColumns(check)).toEqual([...VERSION_5_STEP_COLUMNS, "usage", "budget", "attempt"]);
    expect(check.prepare("SELECT version, name FROM graph_migrations WHERE version = 6").get()).toEqual({
      version: 6,
      name: "step usage and budgets",
    });
    // Stored as JSON text of the canonical record; steps without them hold NULL.
    const rows = check.prepare("SELECT idx, usage, budget FROM graph_steps ORDER BY idx").all();
    expect(rows).toEqual([
      { idx: 0, usage: null, budget: null },
      { idx: 1, usage: null, budget: null },
      { idx: 2, usage: null, budget: '{"tokens":2000,"costUsd":1.5}' },
      { idx: 3, usage: '{"tokens":1250,"costUsd":0.004,"calls":1,"wallMs":830}', budget: null },
    ]);
    check.close();
  });

  it("a corrupt usage column is a CheckpointError naming the column, not a TypeError later", async () => {
    const file = path.join(dir, "corrupt.db");
    const cp = new SqliteCheckpointer({ path: file });
    await cp.setup();
    await cp.createWorkflow({ id: "wf", graphName: "g", graphHash: "h" });
    await cp.saveStep(node("wf", 0, { usage: { tokens: 1 } }));
    const raw = new Database(file);
    for (const [text, column] of [
      ['{"tokens":-1}', "usage"],
      ["not json", "usage"],
    ] as const) {
      raw.prepare(`UPDATE graph_steps SET ${column} = ? WHERE workflow_id = 'wf'`).run(text);
      const error = await cp.getSteps("wf").then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ _tag: "CheckpointError", path: "step column usage", workflowId: "wf" });
      expect((error as Error).message).toContain("Stored step column usage of workflow 'wf' (node 'n0') is corrupt");
    }
    raw.close();
    await cp.close();
  });
});
