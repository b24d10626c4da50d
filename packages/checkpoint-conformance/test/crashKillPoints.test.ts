import { describe, expect, it } from "vitest";
import { CRASH_MATRIX_ENV, crashKillPoints, sampledKillPoints } from "../src/internal/crashMatrix.js";
import { MATRIX_SAVES } from "../src/internal/matrixGraph.js";

describe("the crash matrix's kill points", () => {
  it("by default: k = 1 and one more per mode, the same on every call (fixed seed), all within 1…21", () => {
    const modes = [0, 1, 2].map((mode) => crashKillPoints(mode, undefined));
    for (const points of modes) {
      expect(points).toHaveLength(2);
      expect(points[0]).toBe(1);
      expect(new Set(points).size).toBe(2);
      expect(points.every((k) => k >= 1 && k <= MATRIX_SAVES)).toBe(true);
      expect([...points].sort((a, b) => a - b)).toStrictEqual(points);
    }
    expect([0, 1, 2].map((mode) => crashKillPoints(mode, ""))).toStrictEqual(modes);
  });

  it(`${CRASH_MATRIX_ENV}=full gives every kill point; a number gives that many; anything else is an error`, () => {
    expect(crashKillPoints(0, "full")).toStrictEqual(Array.from({ length: MATRIX_SAVES }, (_, i) => i + 1));
    expect(crashKillPoints(1, "5")).toHaveLength(5);
    expect(crashKillPoints(2, "99")).toHaveLength(MATRIX_SAVES);
    expect(() => crashKillPoints(0, "some")).toThrow(`${CRASH_MATRIX_ENV} must be "full" or a whole number`);
    expect(() => crashKillPoints(0, "0")).toThrow(CRASH_MATRIX_ENV);
  });

  it("the engine suite's per-step SIGKILL set: the required points by default, every step with full, more with a number", () => {
    expect(sampledKillPoints(15, [1, 12, 15], undefined)).toStrictEqual([1, 12, 15]);
    expect(sampledKillPoints(15, [1, 12, 15], "")).toStrictEqual([1, 12, 15]);
    expect(sampledKillPoints(15, [1, 12, 15], "full")).toStrictEqual(Array.from({ length: 15 }, (_, i) => i + 1));
    const five = sampledKillPoints(15, [1, 12, 15], "5");
    expect(five).toHaveLength(5);
    expect(five).toEqual(expect.arrayContaining([1, 12, 15]));
    expect(sampledKillPoints(15, [1, 12, 15], "5")).toStrictEqual(five);
    expect(sampledKillPoints(15, [1, 12, 15], "2")).toStrictEqual([1, 12, 15]);
    expect(() => sampledKillPoints(15, [1], "x")).toThrow(`${CRASH_MATRIX_ENV} must be "full" or a whole number`);
  });
});
