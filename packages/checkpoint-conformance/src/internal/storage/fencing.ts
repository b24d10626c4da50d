/**
 * Storage conformance, area "fencing": child workflows (nested graphs, map items) are guarded by their ROOT
 * workflow's lease. A write carrying `{ epoch, workflowId: rootId }` is checked against the root's current epoch in
 * the same transaction / script as the write, in `saveStep`, `saveSteps`, `saveStepBatch` and `updateWorkflow`.
 */
import type { Checkpointer, Fence, StepRecord } from "@graph/checkpoint";
import { describe, expect, it } from "vitest";
import { assertCheckpointError, assertConflictError, ids, rejection, sleep, step } from "../fixtures.js";
import type { StorageContext } from "./helpers.js";
import { create, storedRecords } from "./helpers.js";

/** A root with a nested child and a map item under it, the root claimed by "a" and then taken over by "b". */
async function takenOver(checkpointer: Checkpointer, label: string) {
  const root = ids(label)();
  const child = `${root}/inner`;
  const item = `${root}/map/3`;
  await create(checkpointer, root);
  await create(checkpointer, child, root);
  await create(checkpointer, item, child);
  const first = await checkpointer.claimWorkflow(root, { owner: "a", ttlMs: 50 });
  const stale: Fence = { epoch: first.epoch, workflowId: root };
  await checkpointer.saveStep(step(child, { superstep: 0, nodeName: "n", index: 0, values: { v: 1 } }), stale);
  await checkpointer.saveStep(step(item, { superstep: 0, nodeName: "n", index: 0, values: { v: 1 } }), stale);
  await sleep(80);
  const second = await checkpointer.claimWorkflow(root, { owner: "b", ttlMs: 10_000 });
  return { root, child, item, stale, current: { epoch: second.epoch, workflowId: root } satisfies Fence };
}

function assertStale(error: unknown, root: string): void {
  assertConflictError(error);
  expect(error.reason).toBe("stale-fence");
  expect(error.workflowId).toBe(root);
  expect(error.heldBy).toBe("b");
}

/** Registers the "fencing" tests. */
export function describeFencing({ run }: StorageContext): void {
  describe("fencing of child workflows by the root's lease", () => {
    it("a child write with a stale root epoch is rejected (saveStep, updateWorkflow) and writes nothing", async () => {
      await run(async (checkpointer) => {
        const { root, child, item, stale } = await takenOver(checkpointer, "child-fence");
        const before = await storedRecords(checkpointer, [root, child, item]);
        const write = (id: string, superstep: number) =>
          step(id, { superstep, nodeName: "n", index: superstep, values: { v: 9 } });
        assertStale(await rejection(checkpointer.saveStep(write(child, 1), stale)), root);
        assertStale(await rejection(checkpointer.saveStep(write(child, 0), stale)), root);
        assertStale(await rejection(checkpointer.saveStep(write(item, 1), stale)), root);
        assertStale(await rejection(checkpointer.updateWorkflow(child, { status: "completed" }, stale)), root);
        assertStale(await rejection(checkpointer.updateWorkflow(item, { status: "failed" }, stale)), root);
        expect(await storedRecords(checkpointer, [root, child, item])).toStrictEqual(before);
        const message = ((await rejection(checkpointer.saveStep(write(item, 1), stale))) as Error).message;
        expect(message).toContain(`child workflow '${item}'`);
        expect(message).toContain("nothing was written");
      });
    });

    it("a child write with a stale root epoch is rejected in saveSteps and saveStepBatch, all or none", async () => {
      await run(async (checkpointer) => {
        const { root, child, item, stale, current } = await takenOver(checkpointer, "child-batch");
        const before = await storedRecords(checkpointer, [root, child, item]);
        const steps = (id: string): StepRecord[] => [
          step(id, { superstep: 1, nodeName: "n", index: 1, values: { v: 2 } }),
          step(id, { superstep: 2, nodeName: "n", index: 2, values: { v: 3 } }),
        ];
        if (checkpointer.saveSteps !== undefined) {
          assertStale(await rejection(checkpointer.saveSteps(steps(child), stale)), root);
        }
        if (checkpointer.saveStepBatch !== undefined) {
          // One stale group fails the whole batch: the valid groups before and after it are not written either.
          const error = await rejection(
            checkpointer.saveStepBatch([
              { steps: steps(root), fence: { epoch: current.epoch } },
              { steps: steps(child), fence: stale },
              { steps: steps(item), fence: current },
            ]),
          );
          assertStale(error, root);
        }
        expect(await storedRecords(checkpointer, [root, child, item])).toStrictEqual(before);
      });
    });

    it("the current root epoch writes children (saveStep, saveSteps, saveStepBatch, updateWorkflow)", async () => {
      await run(async (checkpointer) => {
        const { root, child, item, current } = await takenOver(checkpointer, "child-current");
        await checkpointer.saveStep(step(child, { superstep: 1, nodeName: "n", index: 1, values: { v: 2 } }), current);
        const itemStep = step(item, { superstep: 1, nodeName: "n", index: 1, values: { v: 2 } });
        if (checkpointer.saveSteps !== undefined) await checkpointer.saveSteps([itemStep], current);
        else await checkpointer.saveStep(itemStep, current);
        if (checkpointer.saveStepBatch !== undefined) {
          await checkpointer.saveStepBatch([
            { steps: [step(root, { superstep: 0, nodeName: "r", index: 0, values: { r: 1 } })], fence: current },
            { steps: [step(child, { superstep: 2, nodeName: "n", index: 2, values: { v: 3 } })], fence: current },
          ]);
          expect(await checkpointer.getState(root)).toEqual({ r: 1 });
          expect(await checkpointer.getState(child)).toEqual({ v: 3 });
        } else {
          expect(await checkpointer.getState(child)).toEqual({ v: 2 });
        }
        expect(await checkpointer.getState(item)).toEqual({ v: 2 });
        expect((await checkpointer.updateWorkflow(item, { status: "completed" }, current)).status).toBe("completed");
        // The child's own epoch (never claimed) is not what guards it: a fence without workflowId checks the child.
        assertConflictError(
          await rejection(
            checkpointer.saveStep(step(child, { superstep: 3, nodeName: "n", index: 3 }), { epoch: current.epoch }),
          ),
        );
      });
    });

    it("fence.workflowId must be the written workflow or one of its ancestors", async () => {
      await run(async (checkpointer) => {
        const { root, child, current } = await takenOver(checkpointer, "child-foreign");
        const other = ids("child-foreign-other")();
        await create(checkpointer, other);
        const lease = await checkpointer.claimWorkflow(other, { owner: "x", ttlMs: 10_000 });
        const foreign = { epoch: lease.epoch, workflowId: other };
        const error = await rejection(
          checkpointer.saveStep(step(child, { superstep: 5, nodeName: "n", index: 5 }), foreign),
        );
        assertCheckpointError(error);
        expect(error.path).toBe("fence.workflowId");
        expect(error.message).toContain("ancestors");
        // A sibling-looking prefix is not an ancestor ("root-x" does not contain "root/").
        const prefixOnly = { epoch: current.epoch, workflowId: root.slice(0, -1) };
        assertCheckpointError(
          await rejection(checkpointer.saveStep(step(child, { superstep: 5, nodeName: "n", index: 5 }), prefixOnly)),
        );
        expect((await checkpointer.getSteps(child)).map((s) => s.superstep)).toEqual([0]);
      });
    });
  });
}
