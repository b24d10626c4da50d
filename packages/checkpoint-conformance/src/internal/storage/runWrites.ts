/**
 * Storage conformance, area "runWrites": the merged writes of a run, required of every backend. `startWorkflow` is
 * `createWorkflow` then `claimWorkflow` in one transaction / script; `finishWorkflow` is `saveStepBatch`,
 * `updateWorkflow` and `releaseWorkflow` in one transaction / script, all or none.
 */
import type { Fence, StepRecord } from "@graph/checkpoint";
import { describe, expect, it } from "vitest";
import { assertCheckpointError, assertConflictError, ids, rejection, sleep, step } from "../fixtures.js";
import type { StorageContext } from "./helpers.js";
import { create, mergedWrites, storedRecords } from "./helpers.js";

const newWorkflow = (id: string, parentId?: string) => ({
  id,
  graphName: "conformance",
  graphHash: "hash-1",
  ...(parentId === undefined ? {} : { parentId }),
});

const chain = (workflowId: string, from: number, count: number): StepRecord[] =>
  Array.from({ length: count }, (_, i) =>
    step(workflowId, { superstep: from + i, nodeName: `n${from + i}`, index: from + i, values: { v: from + i } }),
  );

/** Registers the "runWrites" tests. */
export function describeRunWrites({ run }: StorageContext): void {
  describe("merged run writes (startWorkflow / finishWorkflow)", () => {
    it("startWorkflow creates and claims a new workflow (epoch 1), claims an existing one, refuses a held one", async () => {
      await run(async (checkpointer) => {
        const adapter = mergedWrites(checkpointer);
        const id = ids("start")();
        const started = await adapter.startWorkflow(newWorkflow(id), { owner: "a", ttlMs: 10_000 });
        expect(started.created).toBe(true);
        expect(started.workflow).toMatchObject({ id, status: "running", graphHash: "hash-1", stepCount: 0 });
        expect(started.lease).toMatchObject({ workflowId: id, owner: "a", epoch: 1 });
        expect((await adapter.getWorkflow(id))?.lease).toEqual(started.lease);

        const held = await rejection(adapter.startWorkflow(newWorkflow(id), { owner: "b", ttlMs: 10_000 }));
        assertConflictError(held);
        expect(held.reason).toBe("lease-held");
        expect(held.heldBy).toBe("a");

        await adapter.releaseWorkflow(id, started.lease);
        const again = await adapter.startWorkflow(newWorkflow(id), { owner: "b", ttlMs: 10_000 });
        expect(again.created).toBe(false);
        expect(again.lease).toMatchObject({ owner: "b", epoch: 2 });
        expect((await adapter.getWorkflow(id))?.lease?.owner).toBe("b");
      });
    });

    it("startWorkflow returns the record as created (with its lease), or as it was before the claim", async () => {
      await run(async (checkpointer) => {
        const adapter = mergedWrites(checkpointer);
        const id = ids("start-record")();
        const started = await adapter.startWorkflow(newWorkflow(id), { owner: "a", ttlMs: 10_000 });
        expect(started.workflow.lease).toEqual(started.lease);
        expect(started.workflow).toStrictEqual(await adapter.getWorkflow(id));
        await adapter.releaseWorkflow(id, started.lease);
        const before = await adapter.getWorkflow(id);
        const again = await adapter.startWorkflow(newWorkflow(id), { owner: "b", ttlMs: 10_000 });
        expect(again.workflow).toStrictEqual(before);
        expect(again.workflow.lease).toBeUndefined();
      });
    });

    it("finishWorkflow writes the steps, the update and the release: exact rows and counters", async () => {
      await run(async (checkpointer) => {
        const adapter = mergedWrites(checkpointer);
        const id = ids("finish")();
        const child = `${id}/inner`;
        const { lease } = await adapter.startWorkflow(newWorkflow(id), { owner: "a", ttlMs: 10_000 });
        await create(adapter, child, id);
        const fence: Fence = { epoch: lease.epoch };
        for (const s of chain(id, 0, 2)) await adapter.saveStep(s, fence);
        // Step 1 again (an upsert, not a new row) plus three new ones, and a child step under the root's fence.
        const steps = [...chain(id, 1, 4)];
        const record = await adapter.finishWorkflow({
          workflowId: id,
          steps: [
            { steps, fence },
            { steps: chain(child, 0, 1), fence: { epoch: lease.epoch, workflowId: id } },
          ],
          update: { status: "completed", pause: null, error: null },
          fence,
          release: lease,
        });
        expect(record).toMatchObject({ id, status: "completed", lastSuperstep: 4, stepCount: 5 });
        expect(record.lease).toBeUndefined();
        const stored = await adapter.getWorkflow(id);
        expect(stored).toMatchObject({ status: "completed", lastSuperstep: 4, stepCount: 5 });
        expect(stored?.lease).toBeUndefined();
        expect((await adapter.getSteps(id)).map((s) => [s.nodeName, s.values])).toEqual(
          chain(id, 0, 5).map((s) => [s.nodeName, s.values]),
        );
        expect((await adapter.getSteps(child)).map((s) => s.values)).toEqual([{ v: 0 }]);
        expect(await adapter.getWorkflow(child)).toMatchObject({ stepCount: 1, lastSuperstep: 0 });
        // Released: another owner claims at once, with the next epoch.
        expect((await adapter.claimWorkflow(id, { owner: "b", ttlMs: 10_000 })).epoch).toBe(lease.epoch + 1);
      });
    });

    it("finishWorkflow with a stale fence, or a stale group, or an unknown workflow writes nothing", async () => {
      await run(async (checkpointer) => {
        const adapter = mergedWrites(checkpointer);
        const id = ids("finish-stale")();
        const child = `${id}/map/0`;
        const first = await adapter.startWorkflow(newWorkflow(id), { owner: "a", ttlMs: 40 });
        await create(adapter, child, id);
        await sleep(60);
        const second = await adapter.claimWorkflow(id, { owner: "b", ttlMs: 10_000 });
        const stale: Fence = { epoch: first.lease.epoch };
        const current: Fence = { epoch: second.epoch };
        const before = await storedRecords(adapter, [id, child]);

        const staleUpdate = await rejection(
          adapter.finishWorkflow({
            workflowId: id,
            steps: [{ steps: chain(id, 0, 3), fence: current }],
            update: { status: "completed" },
            fence: stale,
            release: first.lease,
          }),
        );
        assertConflictError(staleUpdate);
        expect(staleUpdate.reason).toBe("stale-fence");

        const staleGroup = await rejection(
          adapter.finishWorkflow({
            workflowId: id,
            steps: [
              { steps: chain(id, 0, 3), fence: current },
              { steps: chain(child, 0, 2), fence: { epoch: first.lease.epoch, workflowId: id } },
            ],
            update: { status: "completed" },
            fence: current,
          }),
        );
        assertConflictError(staleGroup);
        expect(staleGroup.reason).toBe("stale-fence");

        const unknown = await rejection(
          adapter.finishWorkflow({
            workflowId: id,
            steps: [{ steps: chain(id, 0, 3), fence: current }, { steps: chain(`${id}-missing`, 0, 1) }],
            update: { status: "completed" },
            fence: current,
          }),
        );
        assertCheckpointError(unknown);

        // A child of the same tree that does not exist: reported by its id, nothing written.
        const missingChild = await rejection(
          adapter.finishWorkflow({
            workflowId: id,
            steps: [
              { steps: chain(id, 0, 3), fence: current },
              { steps: chain(`${id}/missing`, 0, 1), fence: { epoch: second.epoch, workflowId: id } },
            ],
            update: { status: "completed" },
            fence: current,
          }),
        );
        assertCheckpointError(missingChild);
        expect(missingChild.workflowId).toBe(`${id}/missing`);
        expect(await storedRecords(adapter, [id, child])).toStrictEqual(before);
        expect((await adapter.getWorkflow(id))?.lease).toMatchObject({ owner: "b", epoch: second.epoch });
      });
    });

    it("finishWorkflow ignores a release by a stale epoch (the lease stays with its holder)", async () => {
      await run(async (checkpointer) => {
        const adapter = mergedWrites(checkpointer);
        const id = ids("finish-release")();
        const { lease } = await adapter.startWorkflow(newWorkflow(id), { owner: "a", ttlMs: 10_000 });
        const record = await adapter.finishWorkflow({
          workflowId: id,
          update: { status: "paused" },
          fence: { epoch: lease.epoch },
          release: { owner: "a", epoch: lease.epoch + 7 },
        });
        expect(record).toMatchObject({ status: "paused", stepCount: 0, lastSuperstep: -1 });
        expect(record.lease).toEqual(lease);
        expect((await adapter.getWorkflow(id))?.lease).toEqual(lease);
      });
    });
  });
}
