/** Storage conformance, area "lifecycle": setup() idempotence (also concurrent and across instances) and close(). */
import { describe, expect, it } from "vitest";
import { ids } from "../fixtures.js";
import type { StorageContext } from "./helpers.js";
import { create } from "./helpers.js";

/** Registers the "lifecycle" tests. */
export function describeLifecycle({ run, options }: StorageContext): void {
  describe("setup and lifecycle", () => {
    it("setup is idempotent, sequentially and concurrently", async () => {
      await run(async (checkpointer) => {
        await checkpointer.setup();
        await checkpointer.setup();
        await Promise.all([checkpointer.setup(), checkpointer.setup()]);
      });
    });

    it("two instances can set up at once", async () => {
      const a = await options.create({});
      const b = await options.create({});
      try {
        await Promise.all([a.setup(), b.setup()]);
        const id = ids("two-instances")();
        await create(a, id);
        await a.setup();
        expect((await a.getWorkflow(id))?.id).toBe(id);
      } finally {
        for (const checkpointer of [a, b]) {
          await (options.destroy === undefined ? checkpointer.close() : options.destroy(checkpointer));
        }
      }
    });

    it("close is idempotent", async () => {
      const checkpointer = await options.create({});
      await checkpointer.setup();
      await checkpointer.close();
      await checkpointer.close();
    });
  });
}
