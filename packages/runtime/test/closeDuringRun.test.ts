import { MemoryCheckpointer } from "@graph/checkpoint";
import { describe, expect, it } from "vitest";
import { closeRecording } from "./support/closeRecording.js";
import { closeDuringRunStops } from "./workflows/closeDuringRun.js";

describe("runner.close() during a run (MemoryCheckpointer)", () => {
  for (const durability of ["sync", "async"] as const) {
    it(`stops the run (stopped, lease released), then closes the store (${durability})`, async () => {
      const inner = new MemoryCheckpointer({ policy: { durability } });
      const rec = closeRecording(inner);
      await closeDuringRunStops(
        () => rec.view,
        () => ({ ...inner, getWorkflow: (id: string) => inner.getWorkflow(id), close: async () => {} }) as never,
        `close-${durability}`,
      );
      expect(rec.isClosed()).toBe(true);
      expect(rec.afterClose).toEqual([]);
    });
  }
});
