/** Storage conformance, area "growth": Bytes stored per step. */
import { describe, expect, it } from "vitest";
import { ids, step } from "../fixtures.js";
import type { StorageContext } from "./helpers.js";
import { create, SLOW } from "./helpers.js";

/** Registers the "growth" tests. */
export function describeGrowth({ run, options }: StorageContext): void {
  describe("storage growth", () => {
    it("stores at most 1 KB per trivial step", { timeout: SLOW }, async () => {
      await run(async (checkpointer) => {
        const id = ids("growth")();
        await create(checkpointer, id);
        const bytesBefore = options.storageBytes === undefined ? 0 : await options.storageBytes(checkpointer);
        const count = 1000;
        for (let i = 0; i < count; i++) {
          await checkpointer.saveStep(
            step(id, { superstep: i, nodeName: `node${i % 10}`, index: i, values: { n: i } }),
          );
        }
        const steps = await checkpointer.getSteps(id);
        expect(steps).toHaveLength(count);
        const bytes =
          options.storageBytes === undefined
            ? Buffer.byteLength(JSON.stringify(steps))
            : (await options.storageBytes(checkpointer)) - bytesBefore;
        expect(bytes / count).toBeLessThanOrEqual(1024);
      });
    });
  });
}
