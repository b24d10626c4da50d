import type { StepRecord } from "@graph/checkpoint";
import { isCheckpointError } from "@graph/checkpoint";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresCheckpointer } from "../src/index.js";
import { admin, DATABASE_URL, dropSchemas, randomSchema, requirePostgres, urlWith } from "./fixtures/server.js";

const schema = randomSchema("faults");
const appName = `graph_faults_${Math.random().toString(36).slice(2, 10)}`;
beforeAll(requirePostgres);
afterAll(() => dropSchemas([schema]));

const step = (workflowId: string, superstep: number, fields: Partial<StepRecord> = {}): StepRecord => ({
  workflowId,
  superstep,
  nodeName: "node",
  index: superstep,
  status: "completed",
  inputVersions: { x: superstep },
  values: { x: superstep },
  truncated: false,
  startedAt: new Date(1_700_000_000_000),
  completedAt: new Date(1_700_000_000_001),
  ...fields,
});

/** Terminates every backend of the checkpointer under test (they carry a distinctive application_name). */
async function terminateBackends(where = ""): Promise<number> {
  const rows = await admin<{ terminated: boolean }>(
    `SELECT pg_terminate_backend(pid) AS terminated FROM pg_stat_activity WHERE application_name = $1 ${where}`,
    [appName],
  );
  return rows.filter((row) => row.terminated).length;
}

async function consistent(cp: PostgresCheckpointer, id: string): Promise<readonly StepRecord[]> {
  const steps = await cp.getSteps(id);
  const workflow = await cp.getWorkflow(id);
  expect(workflow?.stepCount).toBe(steps.length);
  expect(workflow?.lastSuperstep).toBe(Math.max(-1, ...steps.map((s) => s.superstep)));
  return steps;
}

describe("PostgresCheckpointer when connections die", () => {
  const cp = new PostgresCheckpointer({ connectionString: urlWith({ application_name: appName }), schema, max: 4 });
  afterAll(() => cp.close());

  it("a backend terminated in the middle of a saveStep transaction: CheckpointError, no partial step, pool recovers", async () => {
    await cp.createWorkflow({ id: "blocked", graphName: "g", graphHash: "h" });
    await cp.saveStep(step("blocked", 0));
    const before = await cp.getWorkflow("blocked");
    // Hold an uncommitted row with the same key, so the checkpointer's transaction stops inside its INSERT —
    // after it has locked the workflow row — until we kill its backend.
    const holder = new pg.Client({ connectionString: DATABASE_URL });
    holder.on("error", () => undefined);
    await holder.connect();
    await holder.query("BEGIN");
    await holder.query(
      `INSERT INTO "${schema}".steps (workflow_id, superstep, node_name, idx, status, input_versions, value_keys, "values", started_at, completed_at)
       VALUES ('blocked', 1, 'node', 1, 'completed', '{}', '[]', '{}', 0, 0)`,
    );
    const saving = cp.saveStep(step("blocked", 1, { values: { x: "half" } })).then(
      () => undefined,
      (error: unknown) => error,
    );
    let killed = 0;
    for (let attempt = 0; attempt < 200 && killed === 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      killed = await terminateBackends("AND wait_event_type = 'Lock'");
    }
    expect(killed).toBe(1);
    const error = await saving;
    await holder.query("ROLLBACK");
    await holder.end();
    expect(isCheckpointError(error)).toBe(true);
    expect((error as Error).message).toMatch(/connection to PostgreSQL at .+ was lost/);
    expect((error as Error).message).toMatch(/nothing was half-written/);
    const steps = await consistent(cp, "blocked");
    expect(steps.map((s) => s.superstep)).toEqual([0]);
    expect((await cp.getWorkflow("blocked"))?.updatedAt).toEqual(before?.updatedAt);
    await cp.saveStep(step("blocked", 1, { values: { x: "whole" } }));
    expect(await cp.getState("blocked")).toEqual({ x: "whole" });
  });

  it("backends terminated at random moments during saveStep, ≥ 30 times: each step is whole or absent, later saves work", async () => {
    await cp.createWorkflow({ id: "random", graphName: "g", graphHash: "h" });
    const big = "x".repeat(200_000);
    let rejected = 0;
    // 30 rounds at random moments; then, until one kill has landed inside a save (a fast save can outrun every
    // random delay), rounds that kill at once — bounded, so a save path that never fails still fails the test.
    for (let round = 0; round < 30 || (rejected === 0 && round < 200); round++) {
      const saving = cp.saveStep(step("random", round * 2, { values: { x: round, big } })).then(
        () => undefined,
        (error: unknown) => error,
      );
      await new Promise((resolve) => setTimeout(resolve, round < 30 ? Math.random() * 6 : 0));
      await terminateBackends();
      const error = await saving;
      if (error !== undefined) {
        rejected++;
        expect(isCheckpointError(error), String(error)).toBe(true);
      }
      const steps = await consistent(cp, "random");
      const written = steps.find((s) => s.superstep === round * 2);
      if (written !== undefined) expect(written.values).toEqual({ x: round, big });
      if (error === undefined) expect(written).toBeDefined();
      // The pool replaced the dead connections: the next call works.
      await cp.saveStep(step("random", round * 2 + 1, { values: { x: round } }));
    }
    expect(rejected).toBeGreaterThan(0);
  }, 60_000);

  it("idle connections killed under the pool do not crash the process; the very next calls succeed", async () => {
    // Fill the pool with several idle connections, kill them all, and use the checkpointer at once.
    await Promise.all(Array.from({ length: 8 }, () => cp.getCheckpoint("random")));
    expect(await terminateBackends()).toBeGreaterThan(1);
    expect((await cp.getWorkflow("random"))?.id).toBe("random");
    expect(await terminateBackends()).toBeGreaterThan(0);
    await cp.saveStep(step("random", 1000));
    expect((await cp.getSteps("random", { throughSuperstep: 1000 })).at(-1)?.superstep).toBe(1000);
  });
});
