/**
 * Storage conformance, area "attempts": the attempt of a node with `retry` a step records (`attempt`, and the
 * `running` status of an attempt under way) is stored and returned exactly through every write and read, the node's
 * result replaces its running record (same superstep and node: stored once), it survives a new instance on the same
 * storage, and a bad attempt is a `CheckpointError` naming the field that writes nothing.
 */
import type { StepAttempt, StepRecord } from "@graph/checkpoint";
import { INPUT_STEP } from "@graph/checkpoint";
import { describe, expect, it } from "vitest";
import { assertCheckpointError, ids, rejection, step } from "../fixtures.js";
import type { StorageContext } from "./helpers.js";
import { create, mergedWrites, storedRecords } from "./helpers.js";

const newWorkflow = (id: string) => ({ id, graphName: "conformance", graphHash: "hash-1" });

/** A step of node `charge` at `superstep`, index `index`. */
function charge(
  id: string,
  superstep: number,
  index: number,
  status: StepRecord["status"],
  attempt?: StepAttempt,
): StepRecord {
  return step(id, {
    superstep,
    nodeName: "charge",
    index,
    status,
    inputVersions: { order: 0 },
    values: status === "completed" ? { receipt: `r-${index}` } : {},
    ...(attempt === undefined ? {} : { attempt }),
  });
}

/** Every read returns exactly `expected`; steps without an attempt have no `attempt` key at all. */
async function expectStored(
  checkpointer: Parameters<Parameters<StorageContext["run"]>[0]>[0],
  id: string,
  expected: readonly StepRecord[],
) {
  const all = await checkpointer.getSteps(id);
  expect(all).toStrictEqual(expected);
  const checkpoint = (await checkpointer.getCheckpoint(id))?.steps.filter((s) => s.kind !== "input");
  expect(checkpoint).toStrictEqual(expected);
  for (const s of all) expect("attempt" in s).toBe(expected.find((e) => e.index === s.index)?.attempt !== undefined);
}

/** Bad attempts: the step's fields, the path the error names, and what its message says. */
const BAD: readonly (readonly [fields: Partial<StepRecord>, path: string, says: string])[] = [
  [{ status: "running" }, "attempt", "is required on a running step"],
  [{ attempt: { number: 0, repeats: 0 } }, "attempt.number", "must be an integer ≥ 1, got 0"],
  [{ attempt: { number: 1.5, repeats: 0 } }, "attempt.number", "got 1.5"],
  [{ attempt: { number: 2, repeats: -1 } }, "attempt.repeats", "must be an integer ≥ 0, got -1"],
  [{ attempt: { number: 2, repeats: 0, extra: 1 } as StepAttempt }, "attempt.extra", "is not an attempt field"],
  [{ attempt: 2 as unknown as StepAttempt }, "attempt", "must be a plain object { number, repeats }"],
];

/** Registers the "attempts" tests. */
export function describeAttempts({ run }: StorageContext): void {
  describe("attempts of nodes with retry on steps", () => {
    it("a running step stores its attempt; the node's result replaces it (one step per superstep and node)", async () => {
      await run(async (checkpointer) => {
        const id = ids("attempts-replace")();
        await create(checkpointer, id);
        await checkpointer.saveStep(charge(id, 1, 0, "running", { number: 1, repeats: 0 }));
        await expectStored(checkpointer, id, [charge(id, 1, 0, "running", { number: 1, repeats: 0 })]);
        await checkpointer.saveStep(charge(id, 1, 1, "running", { number: 2, repeats: 0 }));
        await expectStored(checkpointer, id, [charge(id, 1, 1, "running", { number: 2, repeats: 0 })]);
        // The result of attempt 2 of the same superstep and node: an upsert, stored once with the new index.
        const result = charge(id, 1, 2, "completed", { number: 2, repeats: 0 });
        await checkpointer.saveStep(result);
        await expectStored(checkpointer, id, [result]);
        expect((await checkpointer.getWorkflow(id))?.stepCount).toBe(1);
      });
    });

    it("saveSteps: a running record and its result in one batch store the result; a crash's record stays beside a later superstep's", async () => {
      await run(async (checkpointer) => {
        const id = ids("attempts-batch")();
        await create(checkpointer, id);
        // What a killed run left (attempt 2 under way at superstep 1), then a resumed run at superstep 3.
        const left = charge(id, 1, 1, "running", { number: 2, repeats: 0 });
        await checkpointer.saveStep(left);
        const batch = [
          charge(id, 3, 2, "running", { number: 2, repeats: 1 }),
          charge(id, 3, 3, "failed", { number: 4, repeats: 1 }),
        ];
        if (checkpointer.saveSteps === undefined) for (const s of batch) await checkpointer.saveStep(s);
        else await checkpointer.saveSteps(batch);
        await expectStored(checkpointer, id, [left, batch[1]!]);
      });
    });

    it("startWorkflow, saveStepBatch and finishWorkflow keep attempts; a new instance reads them back", async () => {
      await run(async (checkpointer) => {
        const adapter = mergedWrites(checkpointer);
        const id = ids("attempts-run")();
        const input = step(id, { kind: "input", superstep: 0, nodeName: INPUT_STEP, index: 0, values: { order: 1 } });
        const { lease } = await adapter.startWorkflow(newWorkflow(id), { owner: "a", ttlMs: 60_000 }, [input]);
        const fence = { epoch: lease.epoch };
        const running = charge(id, 1, 1, "running", { number: 3, repeats: 1 });
        if (adapter.saveStepBatch === undefined) await adapter.saveStep(running, fence);
        else await adapter.saveStepBatch([{ steps: [running], fence }]);
        await expectStored(checkpointer, id, [running]);
        const stopped = charge(id, 1, 2, "stopped", { number: 3, repeats: 1 });
        const plain = step(id, { superstep: 1, nodeName: "audit", index: 3, values: { seen: true } });
        await adapter.finishWorkflow({
          workflowId: id,
          steps: [{ steps: [stopped, plain], fence }],
          update: { status: "stopped", pause: null, error: null },
          fence,
          release: { owner: lease.owner, epoch: lease.epoch },
        });
        await expectStored(checkpointer, id, [stopped, plain]);
      });
    });

    it("a bad attempt is a CheckpointError naming the field, from saveStep and saveSteps, and writes nothing", async () => {
      await run(async (checkpointer) => {
        const id = ids("attempts-bad")();
        await create(checkpointer, id);
        const good = charge(id, 1, 0, "running", { number: 1, repeats: 0 });
        await checkpointer.saveStep(good);
        const before = await storedRecords(checkpointer, [id]);
        const cases: (readonly [Partial<StepRecord>, string, string])[] = [
          ...BAD,
          [
            { kind: "input", nodeName: INPUT_STEP, attempt: { number: 1, repeats: 0 } },
            "attempt",
            "only stored on node steps",
          ],
        ];
        for (const [fields, path, says] of cases) {
          const { attempt: _drop, ...base } = charge(id, 2, 1, "failed");
          const bad = { ...base, ...fields } as StepRecord;
          const writes: (readonly [string, () => Promise<unknown>])[] = [
            ["saveStep", () => checkpointer.saveStep(bad)],
          ];
          if (checkpointer.saveSteps !== undefined) {
            const saveSteps = checkpointer.saveSteps.bind(checkpointer);
            writes.push(["saveSteps", () => saveSteps([charge(id, 3, 2, "completed"), bad])]);
          }
          for (const [write, call] of writes) {
            const error = await rejection(call());
            assertCheckpointError(error);
            expect(error.path, `${write} with ${JSON.stringify(fields)}`).toBe(path);
            expect(error.message, `${write} with ${JSON.stringify(fields)}`).toContain(says);
          }
        }
        expect(await storedRecords(checkpointer, [id])).toStrictEqual(before);
      });
    });
  });
}
