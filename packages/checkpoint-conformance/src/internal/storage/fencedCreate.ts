/**
 * Storage conformance, area "fencedCreate": the writes that bring a record into existence are fenced too.
 * - `createWorkflow(child, { epoch, workflowId: rootId })` checks the root's epoch in the same transaction / script
 *   as the insert: after a takeover a frozen former holder creates no child record (nested graph or map item).
 * - `startWorkflow(workflow, claim, steps)` writes `steps` (a run's input record) with the creation and the claim,
 *   all or nothing: a workflow is never there without the inputs it was started with.
 */
import type { Checkpointer, Fence } from "@graph/checkpoint";
import { INPUT_STEP } from "@graph/checkpoint";
import { describe, expect, it } from "vitest";
import { assertCheckpointError, assertConflictError, ids, rejection, sleep, step } from "../fixtures.js";
import type { StorageContext } from "./helpers.js";
import { create, mergedWrites } from "./helpers.js";

const graph = { graphName: "conformance", graphHash: "hash-1" };

/** A root claimed by "a", then (its lease expired) taken over by "b": "a"'s fence is stale. */
async function takenOver(checkpointer: Checkpointer, label: string) {
  const root = ids(label)();
  await create(checkpointer, root);
  const first = await checkpointer.claimWorkflow(root, { owner: "a", ttlMs: 50 });
  await sleep(80);
  const second = await checkpointer.claimWorkflow(root, { owner: "b", ttlMs: 10_000 });
  return {
    root,
    stale: { epoch: first.epoch, workflowId: root } satisfies Fence,
    current: { epoch: second.epoch, workflowId: root } satisfies Fence,
  };
}

/** Registers the "fencedCreate" tests. */
export function describeFencedCreate({ run }: StorageContext): void {
  describe("fenced creation of child workflows and inputs written with the start", () => {
    it("createWorkflow with a stale root fence creates nothing (nested child, map item) and names the root", async () => {
      await run(async (checkpointer) => {
        const { root, stale } = await takenOver(checkpointer, "create-stale");
        const rootBefore = await checkpointer.getWorkflow(root);
        for (const [id, parentId] of [
          [`${root}/inner`, root],
          [`${root}/map/0`, `${root}/map`],
          [`${root}/inner/deeper/7`, `${root}/inner/deeper`],
        ] as const) {
          const error = await rejection(checkpointer.createWorkflow({ id, ...graph, parentId }, stale));
          assertConflictError(error);
          expect(error.reason).toBe("stale-fence");
          expect(error.workflowId).toBe(root);
          expect(error.heldBy).toBe("b");
          expect(error.message).toContain("nothing was written");
          expect(await checkpointer.getWorkflow(id)).toBeUndefined();
        }
        expect(await checkpointer.getWorkflow(root)).toStrictEqual(rootBefore);
        const page = await checkpointer.listWorkflows({ limit: 100 });
        expect(page.workflows.filter((w) => w.id.startsWith(`${root}/`))).toEqual([]);
      });
    });

    it("createWorkflow with the current root fence creates the child; again: created false, unchanged", async () => {
      await run(async (checkpointer) => {
        const { root, current } = await takenOver(checkpointer, "create-current");
        const child = `${root}/inner`;
        const made = await checkpointer.createWorkflow({ id: child, ...graph, parentId: root }, current);
        expect(made.created).toBe(true);
        expect(made.workflow).toMatchObject({ id: child, status: "running", parentId: root, stepCount: 0 });
        const again = await checkpointer.createWorkflow({ id: child, ...graph, parentId: root }, current);
        expect(again.created).toBe(false);
        expect(again.workflow).toStrictEqual(await checkpointer.getWorkflow(child));
      });
    });

    it("createWorkflow of an existing child with a stale fence is rejected too (the zombie learns it lost)", async () => {
      await run(async (checkpointer) => {
        const { root, stale, current } = await takenOver(checkpointer, "create-existing");
        const child = `${root}/inner`;
        await checkpointer.createWorkflow({ id: child, ...graph, parentId: root }, current);
        const before = await checkpointer.getWorkflow(child);
        const error = await rejection(checkpointer.createWorkflow({ id: child, ...graph, parentId: root }, stale));
        assertConflictError(error);
        expect(error.reason).toBe("stale-fence");
        expect(await checkpointer.getWorkflow(child)).toStrictEqual(before);
      });
    });

    it("createWorkflow with a fence whose guard is unknown or not an ancestor: CheckpointError, nothing created", async () => {
      await run(async (checkpointer) => {
        const id = ids("create-guard")();
        const unknownGuard = await rejection(
          checkpointer.createWorkflow({ id: `${id}/inner`, ...graph, parentId: id }, { epoch: 1, workflowId: id }),
        );
        assertCheckpointError(unknownGuard);
        expect(unknownGuard.message).toContain(id);
        expect(await checkpointer.getWorkflow(`${id}/inner`)).toBeUndefined();
        await create(checkpointer, id);
        const stranger = await rejection(
          checkpointer.createWorkflow({ id: `${id}-other/x`, ...graph }, { epoch: 0, workflowId: id }),
        );
        assertCheckpointError(stranger);
        expect(stranger.message).toContain("ancestors");
        expect(await checkpointer.getWorkflow(`${id}-other/x`)).toBeUndefined();
      });
    });

    it("startWorkflow with steps: created, claimed and the input record stored in one write", async () => {
      await run(async (checkpointer) => {
        const adapter = mergedWrites(checkpointer);
        const id = ids("start-steps")();
        const input = step(id, { superstep: 1, nodeName: INPUT_STEP, index: 1, values: { text: "hi" } });
        const started = await adapter.startWorkflow({ id, ...graph }, { owner: "a", ttlMs: 10_000 }, [
          { ...input, kind: "input", turnStart: true },
        ]);
        expect(started.created).toBe(true);
        expect(started.lease).toMatchObject({ workflowId: id, owner: "a", epoch: 1 });
        const steps = await checkpointer.getSteps(id, { includeInputs: true });
        expect(steps.map((s) => [s.nodeName, s.values, s.kind])).toEqual([[INPUT_STEP, { text: "hi" }, "input"]]);
        expect(await checkpointer.getState(id)).toEqual({ text: "hi" });
        expect(await checkpointer.getWorkflow(id)).toMatchObject({ stepCount: 1, lastSuperstep: 1 });
      });
    });

    it("startWorkflow with steps while another owner holds the lease: WorkflowConflictError, no step written", async () => {
      await run(async (checkpointer) => {
        const adapter = mergedWrites(checkpointer);
        const id = ids("start-held")();
        await create(checkpointer, id);
        await checkpointer.claimWorkflow(id, { owner: "holder", ttlMs: 10_000 });
        const before = await checkpointer.getWorkflow(id);
        const input = step(id, { superstep: 1, nodeName: INPUT_STEP, index: 1, values: { text: "late" } });
        const error = await rejection(
          adapter.startWorkflow({ id, ...graph }, { owner: "loser", ttlMs: 10_000 }, [input]),
        );
        assertConflictError(error);
        expect(error.heldBy).toBe("holder");
        expect(await checkpointer.getSteps(id, { includeInputs: true })).toEqual([]);
        expect(await checkpointer.getWorkflow(id)).toStrictEqual(before);
      });
    });

    it("startWorkflow with a step that cannot be stored: CheckpointError, no workflow created", async () => {
      await run(async (checkpointer) => {
        const adapter = mergedWrites(checkpointer);
        const id = ids("start-bad")();
        const bad = step(id, { superstep: 1, nodeName: INPUT_STEP, index: 1, values: { f: () => 1 } });
        const error = await rejection(adapter.startWorkflow({ id, ...graph }, { owner: "a", ttlMs: 10_000 }, [bad]));
        assertCheckpointError(error);
        expect(await checkpointer.getWorkflow(id)).toBeUndefined();
      });
    });
  });
}
