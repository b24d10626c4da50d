import { describe, expect, it } from "vitest";
import type { CheckpointPolicy } from "../src/index.js";
import { DEFAULT_POLICY, isCheckpointError, resolvePolicy } from "../src/index.js";

function rejection(partial: Partial<CheckpointPolicy>) {
  try {
    resolvePolicy(partial);
  } catch (error) {
    return error;
  }
  throw new Error(`expected ${JSON.stringify(partial)} to be rejected`);
}

describe("resolvePolicy", () => {
  it("defaults to async + full", () => {
    expect(resolvePolicy()).toEqual({ durability: "async", retention: "full" });
    expect(resolvePolicy({})).toEqual(DEFAULT_POLICY);
  });

  it("returns a frozen policy", () => {
    expect(Object.isFrozen(resolvePolicy({ retention: "latest" }))).toBe(true);
  });

  it("accepts every valid combination", () => {
    expect(resolvePolicy({ durability: "sync", retention: "latest" })).toEqual({
      durability: "sync",
      retention: "latest",
    });
    expect(resolvePolicy({ durability: "exit", retention: "latest" })).toEqual({
      durability: "exit",
      retention: "latest",
    });
    expect(resolvePolicy({ retention: "windowed", window: 3, ttlMs: 1000 })).toEqual({
      durability: "async",
      retention: "windowed",
      window: 3,
      ttlMs: 1000,
    });
  });

  it("defaults retention to latest for exit durability", () => {
    expect(resolvePolicy({ durability: "exit" })).toEqual({ durability: "exit", retention: "latest" });
  });

  it.each<[string, Partial<CheckpointPolicy>, string]>([
    ["exit with full", { durability: "exit", retention: "full" }, "retention"],
    ["exit with windowed", { durability: "exit", retention: "windowed", window: 2 }, "retention"],
    ["windowed without window", { retention: "windowed" }, "window"],
    ["windowed with zero window", { retention: "windowed", window: 0 }, "window"],
    ["windowed with fractional window", { retention: "windowed", window: 1.5 }, "window"],
    ["window without windowed", { retention: "latest", window: 2 }, "window"],
    ["window with default retention", { window: 2 }, "window"],
    ["zero ttl", { ttlMs: 0 }, "ttlMs"],
    ["negative ttl", { ttlMs: -5 }, "ttlMs"],
    ["NaN ttl", { ttlMs: Number.NaN }, "ttlMs"],
    ["unknown durability", { durability: "eventually" as never }, "durability"],
    ["unknown retention", { retention: "some" as never }, "retention"],
  ])("rejects %s", (_name, partial, path) => {
    const error = rejection(partial);
    expect(isCheckpointError(error)).toBe(true);
    expect((error as { _tag: string })._tag).toBe("CheckpointError");
    expect((error as { path?: string }).path).toBe(path);
    expect((error as Error).message).toMatch(/^Invalid checkpoint policy: /);
  });
});
