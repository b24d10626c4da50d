/** Storage conformance, area "serialization": Values that cannot be stored: clear errors, nothing written; malformed input. */
import { describe, expect, it } from "vitest";
import { assertCheckpointError, assertConflictError, ids, rejection, sleep, step } from "../fixtures.js";
import type { StorageContext } from "./helpers.js";
import { create } from "./helpers.js";

/** Registers the "serialization" tests. */
export function describeSerialization({ run }: StorageContext): void {
  describe("non-serializable values", () => {
    it("saveStep rejects with a CheckpointError naming the value path, and writes nothing", async () => {
      await run(async (checkpointer) => {
        const id = ids("nonserializable")();
        await create(checkpointer, id);
        const first = step(id, { superstep: 0, nodeName: "ok", index: 0, values: { fine: 1 } });
        await checkpointer.saveStep(first);
        const before = await checkpointer.getWorkflow(id);
        await sleep(5);

        const bad = step(id, { superstep: 1, nodeName: "embed", index: 1, values: { doc: { meta: [1, 2, () => 3] } } });
        const error = await rejection(checkpointer.saveStep(bad));
        assertCheckpointError(error);
        expect(error._tag).toBe("CheckpointError");
        expect(error.path).toContain("doc.meta[2]");
        expect(error.workflowId).toBe(id);
        expect(error.nodeName).toBe("embed");
        expect(error.message).toContain("doc.meta[2]");

        // Replacing an existing step with a bad value keeps the old step.
        const badUpsert = step(id, { superstep: 0, nodeName: "ok", index: 0, values: { fine: new WeakMap() } });
        assertCheckpointError(await rejection(checkpointer.saveStep(badUpsert)));
        const circular: Record<string, unknown> = {};
        circular["self"] = circular;
        assertCheckpointError(
          await rejection(
            checkpointer.saveStep(step(id, { superstep: 2, nodeName: "loop", index: 2, values: { circular } })),
          ),
        );

        expect(await checkpointer.getSteps(id)).toStrictEqual([first]);
        expect(await checkpointer.getWorkflow(id)).toStrictEqual(before);
      });
    });

    it("saveSteps (when the adapter has it) writes a batch in order, or nothing when one value is bad", async () => {
      await run(async (checkpointer) => {
        if (checkpointer.saveSteps === undefined) return;
        const id = ids("batch")();
        await create(checkpointer, id);
        const lease = await checkpointer.claimWorkflow(id, { owner: "batcher", ttlMs: 10_000 });
        const good = [0, 1, 2].map((i) => step(id, { superstep: i, nodeName: `n${i}`, index: i, values: { v: i } }));
        await checkpointer.saveSteps(good, { epoch: lease.epoch });
        expect(await checkpointer.getSteps(id)).toStrictEqual(good);
        expect((await checkpointer.getWorkflow(id))?.stepCount).toBe(3);
        const mixed = [
          step(id, { superstep: 3, nodeName: "n3", index: 3, values: { v: 3 } }),
          step(id, { superstep: 4, nodeName: "n4", index: 4, values: { f: () => 1 } }),
        ];
        assertCheckpointError(await rejection(checkpointer.saveSteps(mixed, { epoch: lease.epoch })));
        assertConflictError(
          await rejection(
            checkpointer.saveSteps([step(id, { superstep: 5, nodeName: "n5", index: 5, values: {} })], {
              epoch: lease.epoch + 1,
            }),
          ),
        );
        expect(await checkpointer.getSteps(id)).toStrictEqual(good);
      });
    });

    it("updateWorkflow rejects a non-serializable pause value and changes nothing", async () => {
      await run(async (checkpointer) => {
        const id = ids("nonserializable-pause")();
        await create(checkpointer, id);
        const before = await checkpointer.getWorkflow(id);
        const error = await rejection(
          checkpointer.updateWorkflow(id, {
            status: "paused",
            pause: { nodeName: "ask", value: { callback: () => 1 }, responseKey: "answer" },
          }),
        );
        assertCheckpointError(error);
        expect(error.path).toContain("callback");
        expect(await checkpointer.getWorkflow(id)).toStrictEqual(before);
      });
    });

    it("rejects malformed input with CheckpointError", async () => {
      await run(async (checkpointer) => {
        const id = ids("malformed")();
        await create(checkpointer, id);
        assertCheckpointError(
          await rejection(
            checkpointer.saveStep({ ...step(id, { superstep: 0, nodeName: "n", index: 0 }), superstep: "x" as never }),
          ),
        );
        assertCheckpointError(
          await rejection(
            checkpointer.saveStep({ ...step(id, { superstep: 0, nodeName: "n", index: 0 }), values: null as never }),
          ),
        );
        assertCheckpointError(await rejection(checkpointer.createWorkflow({ id: "", graphName: "g", graphHash: "h" })));
        assertCheckpointError(await rejection(checkpointer.claimWorkflow(id, { owner: "", ttlMs: 1000 })));
        assertCheckpointError(await rejection(checkpointer.claimWorkflow(id, { owner: "me", ttlMs: -1 })));
        expect(await checkpointer.getSteps(id)).toEqual([]);
      });
    });
  });
}
