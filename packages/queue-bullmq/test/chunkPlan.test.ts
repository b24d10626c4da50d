import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { chunkPlan } from "../src/internal/nodeMap.js";

describe("chunkPlan", () => {
  it("without a limit: chunks of chunkSize, the default items at once", () => {
    expect(chunkPlan(1_050, 100, undefined)).toEqual({ size: 100, chunks: 11, itemConcurrency: undefined });
  });

  it("with a limit: at most that many chunks, each running its share", () => {
    expect(chunkPlan(100, 10, 3)).toEqual({ size: 34, chunks: 3, itemConcurrency: 1 });
    expect(chunkPlan(10_000, 500, 100)).toEqual({ size: 500, chunks: 20, itemConcurrency: 5 });
    expect(chunkPlan(2, 500, 8)).toEqual({ size: 2, chunks: 1, itemConcurrency: 8 });
    expect(chunkPlan(5, 1, 64)).toEqual({ size: 1, chunks: 5, itemConcurrency: 12 });
  });

  it("never lets more than the limit run at once, and covers every item exactly once", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5_000 }),
        fc.integer({ min: 1, max: 600 }),
        fc.integer({ min: 1, max: 300 }),
        (count, chunkSize, limit) => {
          const plan = chunkPlan(count, chunkSize, limit);
          const perChunk = plan.itemConcurrency ?? 16;
          expect(plan.chunks * Math.min(perChunk, plan.size)).toBeLessThanOrEqual(limit);
          expect(perChunk).toBeGreaterThanOrEqual(1);
          expect((plan.chunks - 1) * plan.size).toBeLessThan(count);
          expect(plan.chunks * plan.size).toBeGreaterThanOrEqual(count);
        },
      ),
    );
  });
});
