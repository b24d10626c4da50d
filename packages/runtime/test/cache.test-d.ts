import { MemoryCheckpointer } from "@graph/checkpoint";
import { node } from "@graph/core";
import { describe, expectTypeOf, it } from "vitest";
import {
  type CacheOptions,
  checkpointerCache,
  type ExplainReason,
  explain,
  MemoryCache,
  type NodeCache,
  type NodeExplanation,
  type RunnerOptions,
  type RunResult,
} from "../src/index.js";

describe("cache and explain types", () => {
  it("the Runner's cache takes a NodeCache or { store, ttl?, maxEntries? }", () => {
    expectTypeOf<RunnerOptions["cache"]>().toEqualTypeOf<NodeCache | CacheOptions | undefined>();
    expectTypeOf(new MemoryCache()).toMatchTypeOf<NonNullable<RunnerOptions["cache"]>>();
    expectTypeOf({ store: "checkpointer", ttl: "7d", maxEntries: 10 } as const).toMatchTypeOf<CacheOptions>();
    // @ts-expect-error: a store is "checkpointer" or "memory"
    const bad: CacheOptions = { store: "disk" };
    void bad;
    // @ts-expect-error: a ttl is a Duration (a number or "7d"-like text)
    const badTtl: CacheOptions = { store: "memory", ttl: "a week" };
    void badTtl;
    expectTypeOf(checkpointerCache(new MemoryCheckpointer(), { ttl: 60_000 })).toEqualTypeOf<NodeCache>();
  });

  it("cacheKey receives the inputs by name", () => {
    node(
      {
        name: "n",
        output: "y",
        cache: true,
        cacheKey: (inputs) => expectTypeOf(inputs).toEqualTypeOf<Readonly<Record<string, unknown>>>(),
      },
      ({ x }: { x: number }) => x,
    );
  });

  it("explain returns one line per node", () => {
    expectTypeOf(explain).parameter(0).toEqualTypeOf<RunResult>();
    expectTypeOf(explain).returns.toEqualTypeOf<readonly NodeExplanation[]>();
    expectTypeOf<NodeExplanation["reason"]>().toEqualTypeOf<ExplainReason>();
    expectTypeOf<NodeExplanation["status"]>().toEqualTypeOf<
      "ran" | "cached" | "skipped" | "failed" | "stopped" | "paused"
    >();
  });
});
