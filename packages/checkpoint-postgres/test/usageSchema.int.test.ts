// Schema version 6 (step usage and budgets) on PostgreSQL: the upgrade of a version-5 schema that holds steps.
import type { StepRecord } from "@graph/checkpoint";
import { INPUT_STEP } from "@graph/checkpoint";
import { stepRecord } from "@graph/checkpoint-conformance";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresCheckpointer } from "../src/index.js";
import { admin, DATABASE_URL, dropSchemas, randomSchema, requirePostgres } from "./fixtures/server.js";

const schemas: string[] = [];
beforeAll(requirePostgres);
afterAll(() => dropSchemas(schemas));

const input = (id: string, index: number, fields: Partial<StepRecord> = {}): StepRecord =>
  stepRecord(id, { kind: "input", superstep: index, nodeName: INPUT_STEP, index, values: { q: index }, ...fields });
const node = (id: string, index: number, fields: Partial<StepRecord> = {}): StepRecord =>
  stepRecord(id, { superstep: index, nodeName: `n${index}`, index, values: { [`v${index}`]: index }, ...fields });

const stepColumns = async (schema: string) =>
  (
    await admin<{ column_name: string }>(
      "SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'steps' " +
        "ORDER BY ordinal_position",
      [schema],
    )
  ).map((row) => row.column_name);

describe("PostgresCheckpointer schema version 6 (usage, budget)", () => {
  it("setup() migrates a version-5 schema holding steps: old steps read without usage, new ones keep theirs", async () => {
    const schema = randomSchema("v5");
    schemas.push(schema);
    const current = new PostgresCheckpointer({ connectionString: DATABASE_URL, schema });
    await current.setup();
    const { lease } = await current.startWorkflow(
      { id: "old", graphName: "g", graphHash: "h" },
      { owner: "a", ttlMs: 60_000 },
      [input("old", 0, { turnStart: true })],
    );
    await current.saveStep(node("old", 1), { epoch: lease.epoch });
    await current.close();
    // Back to what version 5 left: the same steps, no usage, budget (or later) columns, migrations 1–5.
    const latest = await stepColumns(schema);
    await admin(
      `ALTER TABLE "${schema}".steps DROP COLUMN usage, DROP COLUMN budget, DROP COLUMN attempt; ` +
        `DELETE FROM "${schema}".migrations WHERE version >= 6`,
    );
    expect(latest.slice(-3)).toEqual(["usage", "budget", "attempt"]);
    expect(await stepColumns(schema)).toEqual(latest.slice(0, -3));

    const upgraded = new PostgresCheckpointer({ connectionString: DATABASE_URL, schema });
    await upgraded.setup();
    expect(await stepColumns(schema)).toEqual(latest);
    const versions = await admin<{ version: number }>(`SELECT version FROM "${schema}".migrations ORDER BY version`);
    expect(versions.map((row) => row.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const before = await upgraded.getSteps("old", { includeInputs: true });
    expect(before).toStrictEqual([input("old", 0, { turnStart: true }), node("old", 1)]);
    const raised = input("old", 2, { budget: { tokens: 2_000, costUsd: 1.5 } });
    const spent = node("old", 3, { usage: { tokens: 1_250, costUsd: 0.004, calls: 1, wallMs: 830 } });
    await upgraded.saveSteps([raised, spent], { epoch: lease.epoch });
    expect(await upgraded.getSteps("old", { includeInputs: true })).toStrictEqual([...before, raised, spent]);
    expect((await upgraded.getCheckpoint("old"))?.steps).toStrictEqual([...before, raised, spent]);
    // A second setup (another process starting) changes nothing.
    await upgraded.setup();
    await upgraded.close();
    const rows = await admin<{ idx: string; usage: string | null; budget: string | null }>(
      `SELECT idx, usage, budget FROM "${schema}".steps ORDER BY idx`,
    );
    expect(rows).toEqual([
      { idx: "0", usage: null, budget: null },
      { idx: "1", usage: null, budget: null },
      { idx: "2", usage: null, budget: '{"tokens":2000,"costUsd":1.5}' },
      { idx: "3", usage: '{"tokens":1250,"costUsd":0.004,"calls":1,"wallMs":830}', budget: null },
    ]);
  });
});
