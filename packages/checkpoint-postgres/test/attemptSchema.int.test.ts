// Schema version 7 (step attempts) on PostgreSQL: the upgrade of a version-6 schema that holds steps.
import type { StepRecord } from "@graph/checkpoint";
import { INPUT_STEP } from "@graph/checkpoint";
import { stepRecord } from "@graph/checkpoint-conformance";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresCheckpointer } from "../src/index.js";
import { admin, DATABASE_URL, dropSchemas, randomSchema, requirePostgres } from "./fixtures/server.js";

const schemas: string[] = [];
beforeAll(requirePostgres);
afterAll(() => dropSchemas(schemas));

const input = (id: string, index: number): StepRecord =>
  stepRecord(id, { kind: "input", superstep: index, nodeName: INPUT_STEP, index, values: { order: index } });
const charge = (id: string, superstep: number, index: number, fields: Partial<StepRecord> = {}): StepRecord =>
  stepRecord(id, { superstep, nodeName: "charge", index, inputVersions: { order: 0 }, ...fields });

const stepColumns = async (schema: string) =>
  (
    await admin<{ column_name: string }>(
      "SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'steps' " +
        "ORDER BY ordinal_position",
      [schema],
    )
  ).map((row) => row.column_name);

describe("PostgresCheckpointer schema version 7 (attempts)", () => {
  it("setup() migrates a version-6 schema holding steps: old steps read without an attempt, new ones keep theirs", async () => {
    const schema = randomSchema("v6");
    schemas.push(schema);
    const current = new PostgresCheckpointer({ connectionString: DATABASE_URL, schema });
    await current.setup();
    const { lease } = await current.startWorkflow(
      { id: "old", graphName: "g", graphHash: "h" },
      { owner: "a", ttlMs: 60_000 },
      [input("old", 0)],
    );
    await current.saveStep(charge("old", 1, 1, { values: { receipt: "r" } }), { epoch: lease.epoch });
    await current.close();
    const latest = await stepColumns(schema);
    await admin(
      `ALTER TABLE "${schema}".steps DROP COLUMN attempt; DELETE FROM "${schema}".migrations WHERE version >= 7`,
    );
    expect(latest.at(-1)).toBe("attempt");
    expect(await stepColumns(schema)).toEqual(latest.slice(0, -1));

    const upgraded = new PostgresCheckpointer({ connectionString: DATABASE_URL, schema });
    await upgraded.setup();
    expect(await stepColumns(schema)).toEqual(latest);
    const versions = await admin<{ version: number }>(`SELECT version FROM "${schema}".migrations ORDER BY version`);
    expect(versions.map((row) => row.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const before = await upgraded.getSteps("old", { includeInputs: true });
    expect(before).toStrictEqual([input("old", 0), charge("old", 1, 1, { values: { receipt: "r" } })]);
    expect(before.some((s) => "attempt" in s)).toBe(false);
    const running = charge("old", 2, 2, { status: "running", attempt: { number: 1, repeats: 0 } });
    await upgraded.saveStep(running, { epoch: lease.epoch });
    expect((await upgraded.getSteps("old")).at(-1)).toStrictEqual(running);
    // A running record and its result in one batch: stored once, the result wins.
    const again = charge("old", 3, 3, { status: "running", attempt: { number: 2, repeats: 0 } });
    const failed = charge("old", 3, 4, { status: "failed", attempt: { number: 3, repeats: 1 } });
    await upgraded.saveSteps([again, failed], { epoch: lease.epoch });
    expect(await upgraded.getSteps("old", { includeInputs: true })).toStrictEqual([...before, running, failed]);
    await upgraded.setup();
    await upgraded.close();
    const rows = await admin<{ idx: string; status: string; attempt: string | null }>(
      `SELECT idx, status, attempt FROM "${schema}".steps ORDER BY idx`,
    );
    expect(rows).toEqual([
      { idx: "0", status: "completed", attempt: null },
      { idx: "1", status: "completed", attempt: null },
      { idx: "2", status: "running", attempt: '{"number":1,"repeats":0}' },
      { idx: "4", status: "failed", attempt: '{"number":3,"repeats":1}' },
    ]);
  });
});
