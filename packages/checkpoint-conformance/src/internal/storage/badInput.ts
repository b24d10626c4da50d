/**
 * Storage conformance, area "badInput": inputs a fuzzer found that used to come out as raw built-in errors are
 * tagged `CheckpointError`s saying what is wrong and how to fix it, and write nothing.
 */
import { describe, expect, it } from "vitest";
import { assertCheckpointError, ids, rejection, step } from "../fixtures.js";
import type { StorageContext } from "./helpers.js";
import { create } from "./helpers.js";

/** A value `depth` levels deep: `{ next: { next: … } }`, built without recursion. */
function chain(depth: number): unknown {
  let value: unknown = "end";
  for (let i = 0; i < depth; i++) value = { next: value };
  return value;
}

/** Registers the "badInput" tests. */
export function describeBadInput({ run }: StorageContext): void {
  describe("bad input: tagged errors that say what and how to fix", () => {
    it("an object (or another non-string) as workflow id: CheckpointError naming what was passed", async () => {
      await run(async (checkpointer) => {
        const lease = { workflowId: "x", owner: "o", epoch: 1 };
        for (const [call, got] of [
          [() => checkpointer.claimWorkflow(lease as never, { owner: "o", ttlMs: 1000 }), "an object with keys"],
          [() => checkpointer.claimWorkflow(42 as never, { owner: "o", ttlMs: 1000 }), "a number (42)"],
          [() => checkpointer.updateWorkflow(["a"] as never, { status: "failed" }), "an array of 1 item(s)"],
        ] as const) {
          const error = await rejection(call());
          assertCheckpointError(error);
          expect(error.message).toContain("expected a string, got");
          expect(error.message).toContain(got);
          expect(error.message).toContain("Pass the id string");
        }
      });
    });

    it("a 100,000-level nested value: CheckpointError saying it is nested too deeply and how to flatten it", async () => {
      await run(async (checkpointer) => {
        const id = ids("deep")();
        await create(checkpointer, id);
        const before = await checkpointer.getWorkflow(id);
        const deep = chain(100_000);
        const saved = await rejection(
          checkpointer.saveStep(step(id, { superstep: 0, nodeName: "n", index: 0, values: { tree: deep } })),
        );
        assertCheckpointError(saved);
        expect(saved.workflowId).toBe(id);
        expect(saved.message).toContain("nested too deeply");
        expect(saved.message).toContain("How to fix: store a flatter shape");
        expect(saved.message).not.toContain("Maximum call stack");
        const paused = await rejection(
          checkpointer.updateWorkflow(id, { pause: { nodeName: "n", value: deep, responseKey: "r" } }),
        );
        assertCheckpointError(paused);
        expect(paused.message).toContain("nested too deeply");
        expect(await checkpointer.getSteps(id, { includeInputs: true })).toEqual([]);
        expect(await checkpointer.getWorkflow(id)).toStrictEqual(before);
      });
    });
  });
}
