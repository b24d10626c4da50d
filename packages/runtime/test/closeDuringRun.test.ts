import type { Checkpointer } from "@graph/checkpoint";
import { MemoryCheckpointer } from "@graph/checkpoint";
import { describe, expect, it } from "vitest";
import { closeDuringRunStops } from "./workflows/closeDuringRun.js";

/**
 * A MemoryCheckpointer can't be reopened, so the runner gets a view of it whose close() is recorded (and any call
 * after it fails, as the real one does) while the test reads the store through the inner instance afterwards.
 */
function closeRecording(inner: MemoryCheckpointer) {
  const afterClose: string[] = [];
  let closed = false;
  const view = new Proxy(inner, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (key === "close") {
          closed = true;
          return Promise.resolve();
        }
        if (closed) {
          afterClose.push(String(key));
          return Promise.reject(new Error(`${String(key)} was called after the store was closed`));
        }
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  }) as Checkpointer;
  return { view, afterClose, isClosed: () => closed };
}

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
