import { MemoryCheckpointer } from "@graph/checkpoint";
import { Graph, GraphConfigError, node } from "@graph/core";
import { describe, expect, it } from "vitest";
import { checkpointerCache, type GraphEvent, isInvalidOptionError, Runner, testClock } from "../src/index.js";

/** A graph of one cached node `double(x) -> y` that counts its calls. */
function counted() {
  const calls: number[] = [];
  const double = node({ name: "double", output: "y", cache: true }, ({ x }: { x: number }) => {
    calls.push(x);
    return x * 2;
  });
  return { graph: new Graph([double], { name: "counted" }), calls };
}

describe("cache: { store, ttl, maxEntries }", () => {
  it("serves an entry until ttl after its write, exactly, then runs the node again", async () => {
    const clock = testClock(1_000_000);
    const { graph, calls } = counted();
    const runner = new Runner({
      checkpointer: new MemoryCheckpointer(),
      clock,
      cache: { store: "checkpointer", ttl: "1h" },
    });
    expect((await runner.run(graph, { values: { x: 1 } })).values["y"]).toBe(2);
    await clock.set(1_000_000 + 3_600_000 - 1);
    await runner.run(graph, { values: { x: 1 } });
    expect(calls).toEqual([1]);
    await clock.set(1_000_000 + 3_600_000);
    expect((await runner.run(graph, { values: { x: 1 } })).values["y"]).toBe(2);
    expect(calls).toEqual([1, 1]);
    await runner.close();
  });

  it("evicts the least recently used entry beyond maxEntries (a hit counts as a use)", async () => {
    const clock = testClock(5_000);
    const { graph, calls } = counted();
    const runner = new Runner({ cache: { store: "memory", maxEntries: 2 }, clock });
    const run = async (x: number) => {
      await clock.set(clock.now() + 1);
      return (await runner.run(graph, { values: { x } })).values["y"];
    };
    expect([await run(1), await run(2), await run(1), await run(3)]).toEqual([2, 4, 2, 6]);
    expect(calls).toEqual([1, 2, 3]); // 1 was a hit; 3 evicted 2 (least recently used), not 1
    expect([await run(1), await run(3), await run(2)]).toEqual([2, 6, 4]);
    expect(calls).toEqual([1, 2, 3, 2]);
    await runner.close();
  });

  it("emits CacheHit and reports NodeEnd cached on a hit from the store", async () => {
    const checkpointer = new MemoryCheckpointer();
    const { graph, calls } = counted();
    const events: GraphEvent[] = [];
    const runner = new Runner({
      checkpointer,
      cache: { store: "checkpointer" },
      eventProcessors: [{ onEvent: (e) => void events.push(e) }],
    });
    await runner.run(graph, { values: { x: 4 } });
    await runner.run(graph, { values: { x: 4 } });
    expect(calls).toEqual([4]);
    expect(events.filter((e) => e.type === "CacheHit").map((e) => e.type === "CacheHit" && e.nodeName)).toEqual([
      "double",
    ]);
    const ends = events.flatMap((e) => (e.type === "NodeEnd" ? [e.cached] : []));
    expect(ends).toEqual([false, true]);
    await runner.close();
  });

  it("a checkpointerCache on one store is shared by two runners; Dates and Maps come back as such", async () => {
    const checkpointer = new MemoryCheckpointer();
    let calls = 0;
    const load = node({ name: "load", output: "data", cache: true }, ({ id }: { id: string }) => {
      calls++;
      return { id, at: new Date(0), tags: new Map([["a", new Set([1])]]) };
    });
    const graph = new Graph([load]);
    const cache = checkpointerCache(checkpointer, { ttl: "7d", maxEntries: 10 });
    const one = new Runner({ checkpointer, cache, closeCheckpointer: false });
    const two = new Runner({ checkpointer, cache: checkpointerCache(checkpointer) });
    await one.run(graph, { values: { id: "k" } });
    const result = await two.run(graph, { values: { id: "k" } });
    expect(calls).toBe(1);
    expect(result.values["data"]).toEqual({ id: "k", at: new Date(0), tags: new Map([["a", new Set([1])]]) });
    expect((result.values["data"] as { at: unknown }).at).toBeInstanceOf(Date);
    await one.close();
    await two.close();
  });

  it('refuses store: "checkpointer" without a checkpointer, a bad ttl and a bad maxEntries', () => {
    const cases: Array<[object, string]> = [
      [{ cache: { store: "checkpointer" } }, 'has store "checkpointer" but the runner has no checkpointer'],
      [{ cache: { store: "memory", ttl: "soon" } }, "option 'cache.ttl' is not a duration"],
      [{ cache: { store: "memory", maxEntries: 0 } }, "option 'cache.maxEntries' must be an integer ≥ 1, got 0"],
      [{ cache: { store: "disk" } }, 'option \'cache.store\' must be "checkpointer" or "memory", got "disk"'],
      [{ cache: "sqlite" }, "option 'cache' must be a NodeCache ({ get, set }) or { store: "],
      [
        { cache: { maxEntrys: 10 } },
        "new Runner(): option 'cache.maxEntrys' is not a cache option (did you mean 'maxEntries'?).\n  How to fix: use only 'store', 'ttl', 'maxEntries'.",
      ],
      [{ cache: { store: "memory", maxEntrys: 10 } }, "option 'cache.maxEntrys' is not a cache option"],
    ];
    for (const [options, message] of cases) {
      let error: unknown;
      try {
        new Runner(options as never);
      } catch (e) {
        error = e;
      }
      expect(isInvalidOptionError(error)).toBe(true);
      expect((error as Error).message).toContain(message);
      expect((error as { option: string }).option).toBe("cache");
    }
    expect(() => checkpointerCache({} as never)).toThrow("has no readCacheEntry() / writeCacheEntry()");
    expect(() => checkpointerCache(new MemoryCheckpointer(), { tll: "1d" } as never)).toThrow(
      "checkpointerCache(): option 'options.tll' is not a cache option (did you mean 'ttl'?)",
    );
  });
});

describe("node({ cacheKey })", () => {
  it("keys calls by what cacheKey returns: other inputs (a client object) don't change the key", async () => {
    const seen: string[] = [];
    const embed = node(
      { name: "embed", output: "vector", cache: true, cacheKey: ({ doc }) => (doc as { id: string }).id },
      ({ doc }: { doc: { id: string; text: string; client: { send(): void } } }) => {
        seen.push(doc.text);
        return [doc.text.length];
      },
    );
    const runner = new Runner({ cache: { store: "memory" } });
    const graph = new Graph([embed]);
    const client = { send() {} };
    const run = async (id: string, text: string) =>
      (await runner.run(graph, { values: { doc: { id, text, client } } })).values["vector"];
    expect([await run("a", "hello"), await run("a", "changed"), await run("b", "hi")]).toEqual([[5], [5], [2]]);
    expect(seen).toEqual(["hello", "hi"]);
    await runner.close();
  });

  it("a cacheKey that throws fails the node with that error", async () => {
    const boom = node(
      {
        name: "boom",
        output: "y",
        cache: true,
        cacheKey: () => {
          throw new Error("no key for this doc");
        },
      },
      ({ x }: { x: number }) => x,
    );
    const runner = new Runner({ cache: { store: "memory" } });
    const result = await runner.run(new Graph([boom]), { values: { x: 1 }, errorHandling: "continue" });
    expect(result.status).toBe("failed");
    expect(String((result.error as Error).message)).toContain("no key for this doc");
    await runner.close();
  });

  it("is validated: a function, and only with cache: true (GraphConfigError)", () => {
    const fn = ({ x }: { x: number }) => x;
    expect(() => node({ output: "y", cache: true, cacheKey: "id" as never }, fn)).toThrow(GraphConfigError);
    expect(() => node({ output: "y", cache: true, cacheKey: "id" as never }, fn)).toThrow(
      "option 'cacheKey' must be a function of the inputs",
    );
    expect(() => node({ output: "y", cacheKey: ({ x }) => x }, fn)).toThrow(GraphConfigError);
    expect(() => node({ output: "y", cacheKey: ({ x }) => x }, fn)).toThrow(
      "option 'cacheKey' only applies to a cached node, and 'cache' is not true",
    );
  });

  it("changes the definition hash only when set", () => {
    const fn = ({ x }: { x: number }) => x;
    const plain = node({ name: "n", output: "y", cache: true }, fn);
    const keyed = node({ name: "n", output: "y", cache: true, cacheKey: ({ x }) => x }, fn);
    expect(keyed.definitionHash).not.toBe(plain.definitionHash);
    expect(node({ name: "n", output: "y", cache: true }, fn).definitionHash).toBe(plain.definitionHash);
  });
});
