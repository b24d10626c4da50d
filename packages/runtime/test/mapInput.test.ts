import { END, Graph, node, route } from "@graph/core";
import { describe, expect, it } from "vitest";
import { isInfiniteLoopError, isMapInputError, isNodeExecutionError, Runner } from "../src/index.js";

// A mapped GraphNode's lists come from run values, so their shape is only known at run time: the node fails with a
// NodeExecutionError whose cause is a tagged MapInputError naming each list and its length.

const pair = new Graph([node({ name: "join", output: "joined" }, ({ a, b }: { a: string; b: string }) => `${a}${b}`)], {
  name: "pair",
});

describe("mapOver with lists that make no items", () => {
  it("zip over lists of unequal length: MapInputError with the list names and lengths", async () => {
    const graph = new Graph([pair.asNode().mapOver(["a", "b"])]);
    const error = await new Runner().run(graph, { values: { a: ["x", "y"], b: ["z"] } }).catch((e) => e);
    expect(isNodeExecutionError(error)).toBe(true);
    expect(error.nodeName).toBe("pair");
    expect(isMapInputError(error.cause)).toBe(true);
    expect(error.cause._tag).toBe("MapInputError");
    expect(error.cause.reason).toBe("unequalLengths");
    expect(error.cause.lists).toEqual([
      { name: "a", length: 2 },
      { name: "b", length: 1 },
    ]);
    expect(error.cause.message).toContain("'pair' zips inputs of different lengths: 'a' has 2, 'b' has 1.");
    expect(error.cause).not.toBeInstanceOf(TypeError);
  });

  it("a mapped value that is not an array: MapInputError naming it", async () => {
    const graph = new Graph([pair.asNode().mapOver(["a"])]);
    const error = await new Runner().run(graph, { values: { a: "xy", b: "z" } } as never).catch((e) => e);
    expect(isNodeExecutionError(error)).toBe(true);
    expect(isMapInputError(error.cause)).toBe(true);
    expect(error.cause.reason).toBe("notAnArray");
    expect(error.cause.lists).toEqual([{ name: "a", length: undefined }]);
    expect(error.cause.message).toContain("'pair' maps over 'a', which must be an array but is string.");
    expect(error.cause).not.toBeInstanceOf(TypeError);
  });
});

describe("a loop that never settles inside a nested graph", () => {
  it("InfiniteLoopError names the node by its path (sub/inc)", async () => {
    const inc = node({ name: "inc", output: "c" }, ({ c }: { c: number }) => c + 1);
    const again = route({ name: "again", targets: ["inc", END] }, ({ c }: { c: number }) => (c < 0 ? END : "inc"));
    const sub = new Graph([inc, again], { name: "sub", entrypoint: "inc" });
    const graph = new Graph([sub.asNode()]);
    const error = await new Runner().run(graph, { values: { c: 0 }, maxIterations: 5 }).catch((e) => e);
    expect(isInfiniteLoopError(error)).toBe(true);
    expect(error.nodeName).toBe("sub/inc");
    expect(error.nodes).toEqual(["sub/inc", "sub/again"]);
    expect(error.maxIterations).toBe(5);
    expect(error.message).toContain("Node 'sub/inc' would run more than 5 times in one run (maxIterations: 5)");
    expect(error.message).toContain("Still cycling: sub/inc, sub/again.");
    // Two levels down, and a mapped item: the whole path.
    const outer = new Graph([graph.asNode({ name: "outer" })], { name: "top" });
    const deep = await new Runner().run(outer, { values: { c: 0 }, maxIterations: 5 }).catch((e) => e);
    expect(deep.nodeName).toBe("outer/sub/inc");
    const mapped = new Graph([sub.asNode().mapOver("c")]);
    const item = await new Runner().run(mapped, { values: { c: [0] }, maxIterations: 5 }).catch((e) => e);
    expect(isInfiniteLoopError(item)).toBe(true);
    expect(item.nodeName).toBe("sub[0]/inc");
    expect(item.nodes).toEqual(["sub[0]/inc", "sub[0]/again"]);
  });
});
