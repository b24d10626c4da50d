import type {
  Fence,
  LeaseClaim,
  NewWorkflow,
  StepGroup,
  StepRecord,
  WorkflowFinish,
  WorkflowRecord,
} from "@graph/checkpoint";
import { Graph, node } from "@graph/core";
import { Runner } from "@graph/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresCheckpointer } from "../src/index.js";
import { admin, DATABASE_URL, dropSchemas, randomSchema, requirePostgres } from "./fixtures/server.js";

const schemas: string[] = [];
beforeAll(requirePostgres);
afterAll(() => dropSchemas(schemas));

/** The real adapter, counting the write calls that reach it (each one is one transaction). */
class CountingCheckpointer extends PostgresCheckpointer {
  transactions = 0;
  stepsWritten = 0;
  override saveStep(step: StepRecord, fence?: Fence): Promise<void> {
    this.transactions++;
    this.stepsWritten++;
    return super.saveStep(step, fence);
  }
  override saveSteps(steps: readonly StepRecord[], fence?: Fence): Promise<void> {
    this.transactions++;
    this.stepsWritten += steps.length;
    return super.saveSteps(steps, fence);
  }
  override saveStepBatch(groups: readonly StepGroup[]): Promise<void> {
    this.transactions++;
    this.stepsWritten += groups.reduce((n, group) => n + group.steps.length, 0);
    return super.saveStepBatch(groups);
  }
  // A run's first write carries its input record (one transaction with the creation and the claim).
  override startWorkflow(workflow: NewWorkflow, claim: LeaseClaim, steps?: readonly StepRecord[]) {
    this.transactions++;
    this.stepsWritten += steps?.length ?? 0;
    return super.startWorkflow(workflow, claim, steps);
  }
  // A run's final write carries its last queued steps (one transaction with the final status).
  override finishWorkflow(finish: WorkflowFinish): Promise<WorkflowRecord> {
    this.transactions++;
    this.stepsWritten += (finish.steps ?? []).reduce((n, group) => n + group.steps.length, 0);
    return super.finishWorkflow(finish);
  }
}

describe("PostgreSQL async writer", () => {
  it("commits a 50-item map's finished steps in a few transactions, not one per workflow", async () => {
    const schema = randomSchema("writer");
    schemas.push(schema);
    const checkpointer = new CountingCheckpointer({ connectionString: DATABASE_URL, schema });
    const square = node({ output: "sq" }, function square({ x }: { x: number }) {
      return x * x;
    });
    const sum = node({ output: "total" }, function sum({ sq }: { sq: number[] }) {
      return sq.reduce((a, b) => a + b, 0);
    });
    const graph = new Graph([new Graph([square], { name: "items" }).asNode().mapOver("x"), sum]);
    const runner = new Runner({ checkpointer });
    const x = Array.from({ length: 50 }, (_, i) => i);
    const result = await runner.run(graph, { values: { x }, workflowId: "map-50" });
    expect(result.values.total).toBe(x.reduce((n, i) => n + i * i, 0));
    await runner.close();
    const [row] = await admin<{ steps: string; workflows: string }>(
      `SELECT (SELECT count(*) FROM "${schema}".steps) AS steps, (SELECT count(*) FROM "${schema}".workflows) AS workflows`,
    );
    // Every finished step is stored (one workflow per item plus the parent), all written by the counted calls.
    expect(Number(row?.workflows)).toBe(51);
    expect(Number(row?.steps)).toBe(checkpointer.stepsWritten);
    expect(checkpointer.stepsWritten).toBeGreaterThanOrEqual(102);
    // Before batching across workflows this took one transaction per item workflow (≥ 50).
    expect(checkpointer.transactions).toBeLessThanOrEqual(12);
    await checkpointer.close();
  });
});
