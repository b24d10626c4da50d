/** Storage conformance, area "ids": Odd ids, node names and value keys stored verbatim. */
import { MAX_WORKFLOW_ID_BYTES } from "@graph/checkpoint";
import { describe, expect, it } from "vitest";
import { assertCheckpointError, ids, rejection, step } from "../fixtures.js";
import type { StorageContext } from "./helpers.js";
import { create, listAll, SLOW } from "./helpers.js";

/** Registers the "ids" tests. */
export function describeIds({ run }: StorageContext): void {
  describe("ids", () => {
    const odd = [
      `it's "quoted"`,
      "'; DROP TABLE x; --",
      "100% done",
      "under_score",
      "back\\slash\\",
      "ünïcødé 日本語 🚀",
      "new\nline\ttab",
      "  spaces  ",
      "$1 ? :name @p",
      "x".repeat(300),
    ];

    it("stores and finds odd ids, node names and value keys verbatim", { timeout: SLOW }, async () => {
      await run(async (checkpointer) => {
        const id = ids("odd");
        for (const [i, raw] of odd.entries()) {
          const workflowId = id(raw);
          const created = await create(checkpointer, workflowId);
          expect(created.id).toBe(workflowId);
          await checkpointer.saveStep(
            step(workflowId, { superstep: 0, nodeName: raw, index: i, values: { [raw]: raw } }),
          );
          const workflow = await checkpointer.getWorkflow(workflowId);
          expect(workflow?.id).toBe(workflowId);
          expect(workflow?.stepCount).toBe(1);
          const [loaded] = await checkpointer.getSteps(workflowId);
          expect(loaded?.nodeName).toBe(raw);
          expect(await checkpointer.getState(workflowId)).toEqual({ [raw]: raw });
          const lease = await checkpointer.claimWorkflow(workflowId, { owner: raw, ttlMs: 10_000 });
          expect(lease.owner).toBe(raw);
        }
        const listed = (await listAll(checkpointer, { limit: 4 }))
          .map((workflow) => workflow.id)
          .filter((x) => x.startsWith(id()));
        expect(listed.sort()).toEqual(odd.map((raw) => id(raw)).sort());
        // None of them matched anything else, and deleting them one by one leaves the rest.
        await checkpointer.deleteWorkflow(id(odd[2]!));
        expect(await checkpointer.getWorkflow(id(odd[3]!))).toBeDefined();
        expect(await checkpointer.getWorkflow(id(odd[2]!))).toBeUndefined();
      });
    });

    it(`accepts workflow ids up to ${MAX_WORKFLOW_ID_BYTES} UTF-8 bytes and rejects longer ones with a CheckpointError naming the limit`, async () => {
      await run(async (checkpointer) => {
        const base = ids("long")("");
        // "é" is 2 UTF-8 bytes: the longest id is exactly the limit, the other one byte over.
        const fill = MAX_WORKFLOW_ID_BYTES - new TextEncoder().encode(base).length;
        const longest = `${base}${"é".repeat(Math.floor(fill / 2))}${"x".repeat(fill % 2)}`;
        expect(new TextEncoder().encode(longest).length).toBe(MAX_WORKFLOW_ID_BYTES);
        expect((await create(checkpointer, longest)).id).toBe(longest);
        await checkpointer.saveStep(step(longest, { superstep: 0, nodeName: "n", index: 0, values: { v: 1 } }));
        expect((await checkpointer.claimWorkflow(longest, { owner: "o", ttlMs: 10_000 })).workflowId).toBe(longest);
        expect(await checkpointer.getState(longest)).toEqual({ v: 1 });
        const tooLong = `${longest}x`;
        for (const attempt of [
          () => create(checkpointer, tooLong),
          () => checkpointer.claimWorkflow(tooLong, { owner: "o", ttlMs: 10_000 }),
          () => checkpointer.saveStep(step(tooLong, { superstep: 0, nodeName: "n", index: 0 })),
          () => checkpointer.updateWorkflow(tooLong, { status: "completed" }),
        ]) {
          const error = await rejection(attempt());
          assertCheckpointError(error);
          expect((error as Error).message).toContain(`${MAX_WORKFLOW_ID_BYTES + 1} UTF-8 bytes long`);
          expect((error as Error).message).toContain(`the limit is ${MAX_WORKFLOW_ID_BYTES} bytes`);
        }
        expect(await checkpointer.getWorkflow(tooLong)).toBeUndefined();
      });
    });
  });
}
