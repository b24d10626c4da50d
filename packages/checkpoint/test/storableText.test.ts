import { describe, expect, it } from "vitest";
import { hasLoneSurrogate, isStorableText, superstepBound } from "../src/adapter.js";
import { isCheckpointError } from "../src/index.js";

describe("adapter helpers: storable text and superstep bounds", () => {
  it.each([
    ["wf-1", true],
    ["ünïcødé 🚀", true],
    ["", false],
    ["a\u0000b", false],
    ["lone \uD800 high", false],
    ["lone \uDC00 low", false],
    [42, false],
    [undefined, false],
  ] as const)("isStorableText(%j) is %s", (value, expected) => {
    expect(isStorableText(value)).toBe(expected);
  });

  it("hasLoneSurrogate finds unpaired halves only", () => {
    expect(hasLoneSurrogate("pair 🚀")).toBe(false);
    expect(hasLoneSurrogate("x\uD83D")).toBe(true);
    expect(hasLoneSurrogate("\uDE80x")).toBe(true);
  });

  it("superstepBound: none for undefined and Infinity, integers otherwise, a tagged error for NaN", () => {
    expect(superstepBound(undefined, "getSteps", "wf")).toBeUndefined();
    expect(superstepBound(Number.POSITIVE_INFINITY, "getSteps", "wf")).toBeUndefined();
    expect(superstepBound(3.7, "getSteps", "wf")).toBe(3);
    expect(superstepBound(Number.NEGATIVE_INFINITY, "getSteps", "wf")).toBe(-1e15);
    let error: unknown;
    try {
      superstepBound(Number.NaN, "getCheckpoint", "wf-9");
    } catch (e) {
      error = e;
    }
    expect(isCheckpointError(error)).toBe(true);
    expect(String((error as Error).message)).toContain("getCheckpoint('wf-9'): the superstep bound must be a number");
  });
});
