import { describe, expect, expectTypeOf, it } from "vitest";
import {
  type AnyNode,
  END,
  GRAPH_BRAND,
  Graph,
  ifElse,
  interrupt,
  isFunctionNode,
  isGateNode,
  isGraph,
  isGraphConfigError,
  isGraphNode,
  isInterruptNode,
  isNode,
  NODE_BRAND,
  NODE_PROTOCOL,
  type NodeKind,
  node,
  route,
} from "../src/index.js";
import { errorOf } from "./helpers.js";

const fn = node({ name: "fn", output: "y" }, ({ x }: { x: number }) => x);
const branch = ifElse({ name: "branch", whenTrue: "fn", whenFalse: END }, ({ x }: { x: number }) => x > 0);
const router = route({ name: "router", targets: ["fn", END] }, () => "fn");
const pause = interrupt({ name: "pause", input: "y", response: "answer" });
const nested = new Graph([fn], { name: "nested" }).asNode();

describe("node kinds", () => {
  it("every node has a kind; the two gates share one and keep their nodeType", () => {
    expect([fn, branch, router, pause, nested].map((n) => [n.kind, n.nodeType])).toEqual([
      ["function", "function"],
      ["gate", "branch"],
      ["gate", "route"],
      ["interrupt", "interrupt"],
      ["graph", "graph"],
    ]);
    expect(fn.withName("renamed").kind).toBe("function");
    expect(branch.withInputs({ x: "z" }).kind).toBe("gate");
    expectTypeOf<NodeKind>().toEqualTypeOf<"function" | "gate" | "interrupt" | "graph">();
    expectTypeOf(router.kind).toEqualTypeOf<"gate">();
  });

  it("the guards tell the kinds apart", () => {
    const all: AnyNode[] = [fn, branch, router, pause, nested];
    expect(all.map(isFunctionNode)).toEqual([true, false, false, false, false]);
    expect(all.map(isGateNode)).toEqual([false, true, true, false, false]);
    expect(all.map(isInterruptNode)).toEqual([false, false, false, true, false]);
    expect(all.map(isGraphNode)).toEqual([false, false, false, false, true]);
    expect(all.every(isNode)).toBe(true);
    const unknownValue: unknown = fn;
    if (isFunctionNode(unknownValue))
      expectTypeOf(unknownValue.mode).toEqualTypeOf<"sync" | "async" | "sync-generator" | "async-generator">();
  });
});

describe("brands", () => {
  it("nodes and graphs carry registered symbols holding the node protocol", () => {
    const graph = new Graph([fn]);
    expect(NODE_BRAND).toBe(Symbol.for("@graph/node"));
    expect(GRAPH_BRAND).toBe(Symbol.for("@graph/graph"));
    expect(fn[NODE_BRAND]).toBe(NODE_PROTOCOL);
    expect(graph[GRAPH_BRAND]).toBe(NODE_PROTOCOL);
    expect(isGraph(graph)).toBe(true);
    expect(isGraph(graph.bind({ x: 1 }))).toBe(true);
    expect(isGraph(fn)).toBe(false);
    expect(isNode(graph)).toBe(false);
  });

  it("a look-alike without the brand, or with another protocol, is neither a node nor a graph", () => {
    const shaped = { name: "fake", kind: "function", nodeType: "function", inputs: [], outputs: [] };
    expect(isNode(shaped)).toBe(false);
    expect(isNode({ ...shaped, [NODE_BRAND]: NODE_PROTOCOL + 1 })).toBe(false);
    expect(isGraph({ nodes: new Map(), analysis: {} })).toBe(false);
    expect(isGraph({ [GRAPH_BRAND]: NODE_PROTOCOL + 1 })).toBe(false);
    expect([null, undefined, 1, "node"].some(isNode)).toBe(false);
  });

  it("a node list item of another protocol is refused with a GraphConfigError naming both protocols", () => {
    const foreign = { ...shapedNode("embed"), [NODE_BRAND]: NODE_PROTOCOL + 1 };
    const error = errorOf(() => new Graph([fn, foreign as never]));
    expect(isGraphConfigError(error)).toBe(true);
    expect(error).toMatchObject({ _tag: "GraphConfigError", where: "embed" });
    expect(error.message).toContain(
      `Item 1 of the node list (node 'embed') can't be used: it is a node built by another copy of @graph/core, which speaks node protocol ${NODE_PROTOCOL + 1}; this copy speaks protocol ${NODE_PROTOCOL}`,
    );
  });
});

function shapedNode(name: string) {
  return { name, kind: "function", nodeType: "function", inputs: [], outputs: [] };
}
