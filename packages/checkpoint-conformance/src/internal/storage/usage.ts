/**
 * Storage conformance, area "usage": what a step spent (`usage`) and an input record's run budget (`budget`) are
 * stored and returned exactly — absent stays absent, present reads back with the same numbers — through every write
 * (`saveStep`, `saveSteps`, `saveStepBatch`, `startWorkflow`, `finishWorkflow`) and every read (`getSteps` with and
 * without `includeInputs` and a superstep bound, `getCheckpoint`), survive closing and reopening the storage, and a bad
 * amount is a `CheckpointError` naming the field that writes nothing.
 */
import type { Checkpointer, StepRecord, UsageRecord } from "@graph/checkpoint";
import { INPUT_STEP } from "@graph/checkpoint";
import { describe, expect, it } from "vitest";
import { assertCheckpointError, ids, rejection, step } from "../fixtures.js";
import { adapterRef, loadFactory } from "../processes.js";
import type { StorageContext } from "./helpers.js";
import { create, mergedWrites, storedRecords } from "./helpers.js";

/** Amounts a text encoding could bend: the smallest subnormal, the largest double, sums that print long, 2^53 + 2. */
const EXACT_AMOUNTS: readonly UsageRecord[] = [
  { tokens: 1_250, costUsd: 0.004, calls: 1, wallMs: 830 },
  { tokens: 0, costUsd: 0.1 + 0.2, calls: 0, wallMs: 0 },
  { tokens: Number.MAX_SAFE_INTEGER + 2, costUsd: 5e-324 },
  { costUsd: Number.MAX_VALUE, wallMs: 1 / 3 },
  { calls: 3 },
  {},
];

const newWorkflow = (id: string, parentId?: string) => ({
  id,
  graphName: "conformance",
  graphHash: "hash-1",
  ...(parentId === undefined ? {} : { parentId }),
});

/** A node step of `id` at `index` (superstep = index), spending `usage` when given. */
function nodeStep(id: string, index: number, usage?: UsageRecord): StepRecord {
  return step(id, {
    superstep: index,
    nodeName: `n${index}`,
    index,
    values: { [`v${index}`]: index },
    inputVersions: { q: 0 },
    ...(usage === undefined ? {} : { usage }),
  });
}

/** An input record of `id` at `index`, carrying `budget` when given. */
function inputRecord(id: string, index: number, budget?: UsageRecord, turnStart = false): StepRecord {
  return step(id, {
    kind: "input",
    superstep: index,
    nodeName: INPUT_STEP,
    index,
    values: { q: `question ${index}` },
    ...(turnStart ? { turnStart: true } : {}),
    ...(budget === undefined ? {} : { budget }),
  });
}

/** Every read of the steps returns exactly `expected` (in index order; input records among them). */
async function expectStored(checkpointer: Checkpointer, id: string, expected: readonly StepRecord[]): Promise<void> {
  const all = await checkpointer.getSteps(id, { includeInputs: true });
  expect(all).toStrictEqual(expected);
  expect(await checkpointer.getSteps(id)).toStrictEqual(expected.filter((s) => s.kind !== "input"));
  expect((await checkpointer.getCheckpoint(id))?.steps).toStrictEqual(expected);
  const first = expected[0];
  if (first !== undefined) {
    const through = expected.filter((s) => s.superstep <= first.superstep);
    expect(await checkpointer.getSteps(id, { includeInputs: true, throughSuperstep: first.superstep })).toStrictEqual(
      through,
    );
    expect((await checkpointer.getCheckpoint(id, { superstep: first.superstep }))?.steps).toStrictEqual(through);
  }
  for (const s of all) {
    if (!expected.some((e) => e.index === s.index && "usage" in e)) expect("usage" in s).toBe(false);
    if (!expected.some((e) => e.index === s.index && "budget" in e)) expect("budget" in s).toBe(false);
  }
}

/** Bad amounts, the path the error names, and what its message says. */
const BAD: readonly (readonly [field: "usage" | "budget", value: unknown, path: string, says: string])[] = [
  ["usage", { tokens: -1 }, "usage.tokens", "finite number ≥ 0, got -1"],
  ["usage", { costUsd: Number.NaN }, "usage.costUsd", "got NaN"],
  ["usage", { wallMs: Number.POSITIVE_INFINITY }, "usage.wallMs", "got Infinity"],
  ["usage", { calls: "3" }, "usage.calls", 'got the string "3"'],
  ["usage", { tokens: 10n }, "usage.tokens", "got the bigint 10n"],
  ["usage", { tokens: 1, dollars: 2 }, "usage.dollars", "is not a usage field"],
  ["usage", [1, 2], "usage", "must be a plain object"],
  ["usage", 5, "usage", "must be a plain object"],
  ["budget", { costUsd: -0.5 }, "budget.costUsd", "got -0.5"],
  ["budget", { tokenz: 5 }, "budget.tokenz", "is not a usage field"],
];

/** Registers the "usage" tests. */
export function describeUsage({ run, options }: StorageContext): void {
  describe("usage and budgets on steps", () => {
    it("saveStep and saveSteps store each step's usage exactly; several usages in one batch; absent stays absent", async () => {
      await run(async (checkpointer) => {
        const id = ids("usage-save")();
        await create(checkpointer, id);
        const single = nodeStep(id, 0, EXACT_AMOUNTS[0]);
        await checkpointer.saveStep(single);
        // One batch: every step its own usage, one without any.
        const batch = [...EXACT_AMOUNTS.slice(1).map((usage, i) => nodeStep(id, i + 1, usage)), nodeStep(id, 6)];
        if (checkpointer.saveSteps === undefined) for (const s of batch) await checkpointer.saveStep(s);
        else await checkpointer.saveSteps(batch);
        await expectStored(checkpointer, id, [single, ...batch]);
      });
    });

    it("saveStepBatch stores the usage of every group's steps (a workflow and its child, each fenced)", async () => {
      await run(async (checkpointer) => {
        const id = ids("usage-batch")();
        const child = `${id}/inner`;
        const { lease } = await mergedWrites(checkpointer).startWorkflow(newWorkflow(id), {
          owner: "a",
          ttlMs: 60_000,
        });
        await create(checkpointer, child, id);
        const parentSteps = [nodeStep(id, 0, { tokens: 7, costUsd: 0.25 }), nodeStep(id, 1)];
        const childSteps = [nodeStep(child, 0, { calls: 2, wallMs: 12.5 }), nodeStep(child, 1, { tokens: 3 })];
        const groups = [
          { steps: parentSteps, fence: { epoch: lease.epoch } },
          { steps: childSteps, fence: { epoch: lease.epoch, workflowId: id } },
        ];
        if (checkpointer.saveStepBatch === undefined) {
          for (const group of groups) for (const s of group.steps) await checkpointer.saveStep(s, group.fence);
        } else {
          await checkpointer.saveStepBatch(groups);
        }
        await expectStored(checkpointer, id, parentSteps);
        await expectStored(checkpointer, child, childSteps);
      });
    });

    it("startWorkflow keeps the budget of its input record and the usage of copied steps", async () => {
      await run(async (checkpointer) => {
        const adapter = mergedWrites(checkpointer);
        const id = ids("usage-start")();
        const steps = [
          inputRecord(id, 0, { tokens: 50_000, costUsd: 2, wallMs: 600_000, calls: 40 }, true),
          nodeStep(id, 1, { tokens: 900, costUsd: 0.0125, calls: 1, wallMs: 2_000 }),
          inputRecord(id, 2),
        ];
        await adapter.startWorkflow(newWorkflow(id), { owner: "a", ttlMs: 60_000 }, steps);
        await expectStored(checkpointer, id, steps);
      });
    });

    it("finishWorkflow stores usages and a raised budget with the final update; an upsert without them drops them", async () => {
      await run(async (checkpointer) => {
        const adapter = mergedWrites(checkpointer);
        const id = ids("usage-finish")();
        const first = inputRecord(id, 0, { tokens: 1_000 });
        const { lease } = await adapter.startWorkflow(newWorkflow(id), { owner: "a", ttlMs: 60_000 }, [first]);
        const fence = { epoch: lease.epoch };
        const spent = nodeStep(id, 1, { tokens: 1_200, costUsd: 0.03 });
        await adapter.saveStep(spent, fence);
        // The caller granted 1,000 more tokens: a new input record with the raised budget, then the last steps.
        const raised = inputRecord(id, 2, { tokens: 2_000 });
        const last = [raised, nodeStep(id, 3, { tokens: 400, calls: 1 }), nodeStep(id, 4)];
        const record = await adapter.finishWorkflow({
          workflowId: id,
          steps: [{ steps: last, fence }],
          update: { status: "completed", pause: null, error: null },
          fence,
          release: { owner: lease.owner, epoch: lease.epoch },
        });
        expect(record.status).toBe("completed");
        await expectStored(checkpointer, id, [first, spent, ...last]);
        // The same keys again without usage or budget: an upsert replaces the whole step.
        const bare = [nodeStep(id, 1), inputRecord(id, 2)];
        await adapter.saveSteps?.(bare);
        if (adapter.saveSteps === undefined) for (const s of bare) await adapter.saveStep(s);
        await expectStored(checkpointer, id, [first, ...bare, ...last.slice(1)]);
      });
    });

    it("-0 reads back as 0 (no store keeps the sign of a zero amount)", async () => {
      await run(async (checkpointer) => {
        const id = ids("usage-zero")();
        await create(checkpointer, id);
        await checkpointer.saveStep(nodeStep(id, 0, { tokens: -0, costUsd: 0 }));
        const [stored] = await checkpointer.getSteps(id);
        expect(Object.is(stored?.usage?.tokens, 0)).toBe(true);
        expect(stored?.usage).toStrictEqual({ tokens: 0, costUsd: 0 });
      });
    });

    it("a bad usage or budget is a CheckpointError naming the field, from every write, and writes nothing", async () => {
      await run(async (checkpointer) => {
        const adapter = mergedWrites(checkpointer);
        const id = ids("usage-bad")();
        const { lease } = await adapter.startWorkflow(newWorkflow(id), { owner: "a", ttlMs: 60_000 }, [
          inputRecord(id, 0, { tokens: 10 }),
        ]);
        const fence = { epoch: lease.epoch };
        const before = await storedRecords(checkpointer, [id]);
        for (const [field, value, path, says] of BAD) {
          const bad = { ...(field === "usage" ? nodeStep(id, 5) : inputRecord(id, 5)), [field]: value } as StepRecord;
          const good = nodeStep(id, 4, { tokens: 1 });
          const writes: readonly (readonly [string, () => Promise<unknown>])[] = [
            ["saveStep", () => adapter.saveStep(bad, fence)],
            ["saveSteps", () => adapter.saveSteps?.([good, bad], fence) ?? adapter.saveStep(bad, fence)],
            ["saveStepBatch", () => adapter.saveStepBatch?.([{ steps: [good, bad], fence }]) ?? adapter.saveStep(bad)],
            [
              "startWorkflow",
              () =>
                adapter.startWorkflow(newWorkflow(`${id}-s`), { owner: "a", ttlMs: 60_000 }, [
                  { ...bad, workflowId: `${id}-s` },
                ]),
            ],
            [
              "finishWorkflow",
              () =>
                adapter.finishWorkflow({
                  workflowId: id,
                  steps: [{ steps: [good, bad], fence }],
                  update: { status: "completed" },
                  fence,
                }),
            ],
          ];
          for (const [method, write] of writes) {
            const error = await rejection(write());
            assertCheckpointError(error);
            expect({ method, path: error.path }).toEqual({ method, path });
            expect(error.message).toContain(says);
            expect(error.message).toContain(`workflow '${error.workflowId}'`);
            expect(error.message).toContain("each a finite number ≥ 0");
          }
        }
        expect(await storedRecords(checkpointer, [id])).toStrictEqual(before);
        expect(await checkpointer.getWorkflow(`${id}-s`)).toBeUndefined();
      });
    });

    it("a budget on a node step is refused: only input records carry one", async () => {
      await run(async (checkpointer) => {
        const id = ids("usage-budget-node")();
        await create(checkpointer, id);
        const error = await rejection(checkpointer.saveStep({ ...nodeStep(id, 0), budget: { tokens: 5 } }));
        assertCheckpointError(error);
        expect(error.path).toBe("budget");
        expect(error.message).toContain("only stored on input records");
        expect(await checkpointer.getSteps(id, { includeInputs: true })).toEqual([]);
      });
    });

    describeReopen(options);
  });
}

/** How to open the adapter's shared storage again: `reopen`, else the child-process factory, else nothing. */
function reopener(options: StorageContext["options"]): (() => Promise<Checkpointer>) | undefined {
  const { reopen } = options;
  if (reopen !== undefined) return async () => reopen();
  const child = options.engine?.childProcess;
  if (child === undefined) return undefined;
  return async () => (await loadFactory(adapterRef(child)))(child.args ?? null, {});
}

/** Close and reopen: a second instance on the same storage reads what the first wrote. */
function describeReopen(options: StorageContext["options"]): void {
  const open = reopener(options);
  const name = "usage and budgets survive closing the storage and opening it again (a new instance)";
  // Nothing opens this adapter's storage twice (the in-memory store keeps nothing past close()): no such test.
  if (open === undefined) return;
  it(name, async () => {
    const id = ids("usage-reopen")();
    const steps = [
      inputRecord(id, 0, { tokens: 50_000, costUsd: 2.5 }, true),
      nodeStep(id, 1, { tokens: 1_250, costUsd: 0.004, calls: 1, wallMs: 830 }),
      nodeStep(id, 2),
      ...EXACT_AMOUNTS.map((usage, i) => nodeStep(id, i + 3, usage)),
    ];
    const writer = await open();
    try {
      await writer.setup();
      await mergedWrites(writer).startWorkflow(newWorkflow(id), { owner: "a", ttlMs: 60_000 }, steps.slice(0, 1));
      await writer.saveSteps?.(steps.slice(1));
      if (writer.saveSteps === undefined) for (const s of steps.slice(1)) await writer.saveStep(s);
    } finally {
      await writer.close();
    }
    const reader = await open();
    try {
      await reader.setup();
      await expectStored(reader, id, steps);
      await reader.deleteWorkflow(id);
    } finally {
      await reader.close();
    }
  });
}
