// The usage / budget rules every backend shares: the step check, the stored form, and the in-memory round trip.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { CheckpointError, StepRecord, UsageRecord } from "../src/index.js";
import { INPUT_STEP, MemoryCheckpointer } from "../src/index.js";
import { snapshotStep } from "../src/internal/snapshot.js";
import { isUsageRecord, normalizeUsage, usageProblem } from "../src/internal/usage.js";
import { validateStepRecord } from "../src/state.js";

const node: StepRecord = {
  workflowId: "wf",
  superstep: 1,
  nodeName: "llm",
  index: 1,
  status: "completed",
  inputVersions: {},
  values: {},
  truncated: false,
  startedAt: new Date(0),
  completedAt: new Date(5),
};
const input: StepRecord = { ...node, kind: "input", nodeName: INPUT_STEP, superstep: 0, index: 0 };

function failure(step: StepRecord): CheckpointError {
  try {
    validateStepRecord(step, "saveSteps");
  } catch (error) {
    return error as CheckpointError;
  }
  throw new Error("expected validateStepRecord to throw");
}

/** A usage record of amounts ≥ 0 that JSON keeps exactly (every finite double does), each field optional. */
const amount = fc.double({ min: 0, max: Number.MAX_VALUE, noNaN: true, noDefaultInfinity: true });
const usageRecord: fc.Arbitrary<UsageRecord> = fc.record(
  { tokens: fc.oneof(fc.nat(), amount), costUsd: amount, calls: fc.nat(), wallMs: amount },
  { requiredKeys: [] },
);

describe("validateStepRecord: usage and budget", () => {
  it("accepts a usage on any step and a budget on an input record", () => {
    expect(() =>
      validateStepRecord({ ...node, usage: { tokens: 1, costUsd: 0.5, calls: 1, wallMs: 3 } }),
    ).not.toThrow();
    expect(() => validateStepRecord({ ...node, usage: {} })).not.toThrow();
    expect(() => validateStepRecord({ ...input, budget: { tokens: 50_000 }, usage: { wallMs: 1 } })).not.toThrow();
    expect(() =>
      validateStepRecord({
        workflowId: "wf",
        superstep: 0,
        nodeName: INPUT_STEP,
        index: 0,
        status: "completed",
        inputVersions: {},
        values: {},
        truncated: false,
        startedAt: new Date(0),
        completedAt: new Date(5),
        budget: {},
      }),
    ).not.toThrow();
  });

  it.each<[string, "usage" | "budget", unknown, string, string]>([
    ["a negative amount", "usage", { tokens: -1 }, "usage.tokens", "must be a finite number ≥ 0, got -1"],
    ["NaN", "usage", { costUsd: Number.NaN }, "usage.costUsd", "got NaN"],
    ["Infinity", "budget", { wallMs: Number.POSITIVE_INFINITY }, "budget.wallMs", "got Infinity"],
    ["-Infinity", "usage", { wallMs: Number.NEGATIVE_INFINITY }, "usage.wallMs", "got -Infinity"],
    ["a numeric string", "usage", { calls: "2" }, "usage.calls", 'got the string "2"'],
    ["null as an amount", "usage", { calls: null }, "usage.calls", "got null"],
    ["an unknown field", "budget", { tokens: 5, usd: 1 }, "budget.usd", "is not a usage field"],
    ["an array", "usage", [1], "usage", "must be a plain object"],
    ["null", "usage", null, "usage", "got null"],
    ["a Map", "usage", new Map([["tokens", 1]]), "usage", "must be a plain object"],
  ])("rejects %s with a CheckpointError naming the field and how to fix it", (_name, field, value, path, says) => {
    const error = failure({ ...input, [field]: value } as StepRecord);
    expect(error._tag).toBe("CheckpointError");
    expect(error.path).toBe(path);
    expect(error.operation).toBe("saveSteps");
    expect(error.workflowId).toBe("wf");
    expect(error.message.startsWith(`Invalid step for workflow 'wf' (node '.input'): ${path} `)).toBe(true);
    expect(error.message).toContain(says);
    expect(error.message).toContain(`${field} holds only tokens, costUsd, calls and wallMs, each a finite number ≥ 0`);
  });

  it("refuses a budget on a node step: only input records carry one", () => {
    const error = failure({ ...node, budget: { tokens: 5 } });
    expect(error.path).toBe("budget");
    expect(error.message).toBe(
      "Invalid step for workflow 'wf' (node 'llm'): budget is only stored on input records (kind \"input\", node " +
        "'.input'), not on a node step. Put the run's budget on the run's input record, and what the node spent in usage.",
    );
  });
});

describe("the stored form", () => {
  it("keeps the fields in a fixed order, leaves out undefined ones, stores -0 as 0", () => {
    expect(JSON.stringify(normalizeUsage({ wallMs: 5, calls: undefined, tokens: 10 } as unknown as UsageRecord))).toBe(
      '{"tokens":10,"wallMs":5}',
    );
    expect(Object.is(normalizeUsage({ costUsd: -0 }).costUsd, 0)).toBe(true);
    expect(usageProblem({ tokens: undefined }, "usage")).toBeUndefined();
    expect(isUsageRecord({ tokens: 1 })).toBe(true);
    expect(isUsageRecord({ tokens: -1 })).toBe(false);
  });

  it("property: any usage record survives JSON text exactly (what SQL and Redis store)", () => {
    fc.assert(
      fc.property(usageRecord, (usage) => {
        const read = JSON.parse(JSON.stringify(normalizeUsage(usage))) as unknown;
        expect(isUsageRecord(read)).toBe(true);
        expect(read).toStrictEqual(normalizeUsage(usage));
      }),
      { numRuns: 500 },
    );
  });

  it("property: MemoryCheckpointer returns any usages and budgets exactly through saveSteps, getSteps, getCheckpoint", async () => {
    const checkpointer = new MemoryCheckpointer();
    await checkpointer.setup();
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.option(usageRecord, { nil: undefined }), { maxLength: 6 }),
        usageRecord,
        async (usages, budget) => {
          const id = `wf-${++run}`;
          const steps: StepRecord[] = [
            { ...input, workflowId: id, budget: normalizeUsage(budget) },
            ...usages.map((usage, i) => ({
              ...node,
              workflowId: id,
              superstep: i + 1,
              index: i + 1,
              ...(usage === undefined ? {} : { usage: normalizeUsage(usage) }),
            })),
          ];
          // The merged start writes a run's first steps at once (MemoryCheckpointer has no saveSteps).
          const claim = { owner: "a", ttlMs: 60_000 };
          await checkpointer.startWorkflow({ id, graphName: "g", graphHash: "h" }, claim, steps);
          expect(await checkpointer.getSteps(id, { includeInputs: true })).toStrictEqual(steps);
          expect((await checkpointer.getCheckpoint(id))?.steps).toStrictEqual(steps);
          expect(await checkpointer.getSteps(id)).toStrictEqual(steps.slice(1));
        },
      ),
      { numRuns: 100 },
    );
    await checkpointer.close();
  });

  it("MemoryCheckpointer stores a copy: changing the caller's usage object later changes nothing stored", async () => {
    const checkpointer = new MemoryCheckpointer();
    await checkpointer.createWorkflow({ id: "wf", graphName: "g", graphHash: "h" });
    const usage = { tokens: 10 };
    await checkpointer.saveStep({ ...node, usage });
    usage.tokens = 99;
    const [stored] = await checkpointer.getSteps("wf");
    expect(stored?.usage).toStrictEqual({ tokens: 10 });
    (stored?.usage as { tokens: number }).tokens = 42;
    expect((await checkpointer.getSteps("wf"))[0]?.usage).toStrictEqual({ tokens: 10 });
  });

  it("a step snapshot (async and exit durability) copies usage and budget: later changes do not reach storage", () => {
    const usage = { tokens: 10 };
    const budget = { costUsd: 2 };
    const snapshot = snapshotStep({ ...input, usage, budget }, undefined);
    usage.tokens = 99;
    budget.costUsd = 5;
    expect(snapshot.usage).toStrictEqual({ tokens: 10 });
    expect(snapshot.budget).toStrictEqual({ costUsd: 2 });
    expect("usage" in snapshotStep(node, undefined)).toBe(false);
  });
});
