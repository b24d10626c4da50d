/** Storage conformance, area "unknownIds": Reads and writes of workflow ids that do not exist. */
import { describe, expect, it } from "vitest";
import { assertCheckpointError, ids, rejection, step } from "../fixtures.js";
import type { StorageContext } from "./helpers.js";

/** Registers the "unknownIds" tests. */
export function describeUnknownIds({ run }: StorageContext): void {
  describe("unknown workflow ids", () => {
    it("getters return undefined or empty; writers throw CheckpointError", async () => {
      await run(async (checkpointer) => {
        const id = ids("unknown")();
        expect(await checkpointer.getWorkflow(id)).toBeUndefined();
        expect(await checkpointer.getSteps(id)).toEqual([]);
        expect(await checkpointer.getState(id)).toEqual({});
        expect(await checkpointer.getCheckpoint(id)).toBeUndefined();
        expect(await checkpointer.getCheckpoint(id, { superstep: 3 })).toBeUndefined();

        const save = await rejection(checkpointer.saveStep(step(id, { superstep: 0, nodeName: "n", index: 0 })));
        assertCheckpointError(save);
        expect(save.workflowId).toBe(id);
        assertCheckpointError(await rejection(checkpointer.updateWorkflow(id, { status: "completed" })));
        assertCheckpointError(await rejection(checkpointer.claimWorkflow(id, { owner: "a", ttlMs: 1000 })));
        // Releasing or deleting what does not exist is a no-op.
        await checkpointer.releaseWorkflow(id, { owner: "a", epoch: 1 });
        await checkpointer.deleteWorkflow(id);
        expect(await checkpointer.getWorkflow(id)).toBeUndefined();
      });
    });
  });
}
