/** Storage conformance, area "deletion": deleteWorkflow: the workflow, its steps and children, never lookalikes. */
import { describe, expect, it } from "vitest";
import { ids, step } from "../fixtures.js";
import type { StorageContext } from "./helpers.js";
import { create } from "./helpers.js";

/** Registers the "deletion" tests. */
export function describeDeletion({ run }: StorageContext): void {
  describe("deleteWorkflow", () => {
    it("removes the workflow, its steps and its children, and leaves siblings", async () => {
      await run(async (checkpointer) => {
        const id = ids("delete");
        const family = [id("a"), `${id("a")}/child`, `${id("a")}/child/0`, id("ab"), `${id("ab")}/child`, id("a-b")];
        for (const workflowId of family) {
          await create(checkpointer, workflowId);
          await checkpointer.saveStep(
            step(workflowId, { superstep: 0, nodeName: "n", index: 0, values: { id: workflowId } }),
          );
        }
        await checkpointer.deleteWorkflow(id("a"));
        for (const gone of family.slice(0, 3)) {
          expect(await checkpointer.getWorkflow(gone)).toBeUndefined();
          expect(await checkpointer.getSteps(gone)).toEqual([]);
        }
        for (const kept of family.slice(3)) {
          expect((await checkpointer.getWorkflow(kept))?.stepCount).toBe(1);
          expect(await checkpointer.getState(kept)).toEqual({ id: kept });
        }
        // The id can be reused afterwards, starting empty.
        const again = await checkpointer.createWorkflow({ id: id("a"), graphName: "g", graphHash: "h" });
        expect(again.created).toBe(true);
        expect(await checkpointer.getSteps(id("a"))).toEqual([]);
      });
    });

    it("does not treat %, _ or backslash as wildcards when deleting children", async () => {
      await run(async (checkpointer) => {
        const id = ids("wildcards");
        const all = [
          id("p%"),
          `${id("p%")}/c`,
          `${id("pX")}/c`,
          id("q_"),
          `${id("q_")}/c`,
          `${id("qa")}/c`,
          id("r\\"),
          `${id("r\\")}/c`,
          `${id("r")}/c`,
          `${id("r\\\\")}/c`,
        ];
        for (const workflowId of all) await create(checkpointer, workflowId);
        for (const root of [id("p%"), id("q_"), id("r\\")]) await checkpointer.deleteWorkflow(root);
        const remaining = [];
        for (const workflowId of all)
          if ((await checkpointer.getWorkflow(workflowId)) !== undefined) remaining.push(workflowId);
        expect(remaining).toEqual([`${id("pX")}/c`, `${id("qa")}/c`, `${id("r")}/c`, `${id("r\\\\")}/c`]);
      });
    });
  });
}
