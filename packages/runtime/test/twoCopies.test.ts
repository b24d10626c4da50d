import { MemoryCheckpointer } from "@graph/checkpoint";
import * as core from "@graph/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Runner } from "../src/index.js";
import { CoreCopies } from "./support/coreCopy.js";

// Two copies of @graph/core in one app (two versions, or a dedupe miss): nodes and graphs are told apart by their
// brand and `kind`, never by `instanceof`, so a graph built with the other copy runs like one built with this one.
// The copy is core's own build output in a folder of its own, imported beside the copy the runtime uses.
const copies = new CoreCopies();
let other: typeof core;
let newer: typeof core;

beforeAll(async () => {
  other = await copies.load("same-version");
  newer = await copies.load("next-protocol", core.NODE_PROTOCOL + 1);
});
afterAll(() => copies.remove());

/** A graph of every node kind, built with `lib`: a function, a nested graph, a gate, an interrupt. */
function reviewGraph(lib: typeof core, calls: string[]) {
  const prepare = lib.node({ name: "prepare", output: "x" }, async ({ n }: { n: number }) => {
    calls.push("prepare");
    return n + 1;
  });
  const double = lib.node({ name: "double", output: "y" }, ({ x }: { x: number }) => x * 2);
  const inner = new lib.Graph([double], { name: "inner" });
  const check = lib.ifElse(
    { name: "check", whenTrue: "approval", whenFalse: lib.END },
    ({ y }: { y: number }) => y > 5,
  );
  const approval = lib.interrupt({ name: "approval", input: "y", response: "decision" });
  const finish = lib.node({ name: "finish", output: "result" }, ({ decision, y }: { decision: string; y: number }) => {
    calls.push("finish");
    return `${decision}:${y}`;
  });
  return new lib.Graph([prepare, inner.asNode(), check, approval, finish], { name: "review" });
}

describe("a second copy of @graph/core", () => {
  it("is really another copy: its classes are not this copy's", () => {
    expect(other.FunctionNode).not.toBe(core.FunctionNode);
    expect(other.node({ name: "n" }, () => 1) instanceof core.FunctionNode).toBe(false);
    expect(other.NODE_BRAND).toBe(core.NODE_BRAND);
  });

  it("builds nodes and graphs the guards of this copy recognise by brand and kind", () => {
    const fn = other.node({ name: "f", output: "y" }, ({ x }: { x: number }) => x);
    const gate = other.route({ name: "g", targets: ["f", other.END] }, () => "f");
    const pause = other.interrupt({ name: "i", input: "y", response: "z" });
    const graph = new other.Graph([fn], { name: "inner" });
    const nested = graph.asNode();
    expect([fn.kind, gate.kind, pause.kind, nested.kind]).toEqual(["function", "gate", "interrupt", "graph"]);
    expect([core.isNode(fn), core.isNode(gate), core.isNode(pause), core.isNode(nested)]).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(core.isFunctionNode(fn)).toBe(true);
    expect(core.isGateNode(gate)).toBe(true);
    expect(core.isInterruptNode(pause)).toBe(true);
    expect(core.isGraphNode(nested)).toBe(true);
    expect(core.isGateNode(fn)).toBe(false);
    expect(core.isGraph(graph)).toBe(true);
    expect(core.isGraph(fn)).toBe(false);
    expect(core.isNode(graph)).toBe(false);
  });

  it("a graph built entirely with it runs on the Runner: nested graph, gate, interrupt and resume", async () => {
    const calls: string[] = [];
    const graph = reviewGraph(other, calls);
    const runner = new Runner({ checkpointer: new MemoryCheckpointer() });
    const paused = await runner.run(graph, { workflowId: "copy-1", values: { n: 3 } });
    expect(paused.status).toBe("paused");
    expect(paused.pause).toMatchObject({ nodeName: "approval", value: 8, responseKey: "decision" });
    const done = await runner.run(graph, { workflowId: "copy-1", values: { decision: "ok" } });
    expect(done.status).toBe("completed");
    expect(done.values["result"]).toBe("ok:8");
    expect(done.get("inner/y")).toBe(8);
    expect(calls).toEqual(["prepare", "finish"]);
    await runner.close();
  });

  it("a mapped nested graph of the other copy runs once per item", async () => {
    const square = other.node({ name: "square", output: "y" }, ({ x }: { x: number }) => x * x);
    const each = new other.Graph([square], { name: "each" }).asNode().mapOver("x");
    const total = other.node({ name: "total", output: "sum" }, ({ y }: { y: number[] }) => y.reduce((a, b) => a + b));
    const result = await new Runner().run(new other.Graph([each, total]), { values: { x: [1, 2, 3] } });
    expect(result.values["y"]).toEqual([1, 4, 9]);
    expect(result.values["sum"]).toBe(14);
  });

  it("mixes with this copy: nodes of either go into a Graph of either, nested graphs too", async () => {
    const add = other.node({ name: "add", output: "x" }, ({ n }: { n: number }) => n + 1);
    const gate = core.ifElse({ name: "gate", whenTrue: "inner", whenFalse: core.END }, ({ x }: { x: number }) => x > 0);
    const inner = new other.Graph([other.node({ name: "double", output: "y" }, ({ x }: { x: number }) => x * 2)], {
      name: "inner",
    });
    const mixedHere = new core.Graph([add, gate, inner.asNode()]);
    const mixedThere = new other.Graph([
      core.node({ name: "add", output: "x" }, ({ n }: { n: number }) => n + 1),
      core.ifElse({ name: "gate", whenTrue: "inner", whenFalse: core.END }, ({ x }: { x: number }) => x > 0),
      inner.asNode(),
    ]);
    const runner = new Runner();
    expect((await runner.run(mixedHere, { values: { n: 1 } })).values["y"]).toBe(4);
    expect((await runner.run(mixedThere, { values: { n: 2 } })).values["y"]).toBe(6);
  });

  it("its errors are this copy's errors to every guard and to instanceof", () => {
    const error = (() => {
      try {
        new other.Graph([other.node({ name: "a" }, () => 1), other.node({ name: "a" }, () => 2)]);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toMatchObject({ _tag: "GraphConfigError", where: "a" });
    expect(Object.getPrototypeOf(error)).toBe(other.GraphConfigError.prototype);
    expect(core.isGraphConfigError(error)).toBe(true);
    expect(core.GraphConfigError.is(error)).toBe(true);
    expect(error instanceof core.GraphConfigError).toBe(true);
    expect(error instanceof core.RoutingError).toBe(false);
  });
});

describe("a copy of @graph/core that speaks another node protocol", () => {
  it("can't put its nodes into this copy's Graph, nor take this copy's: a GraphConfigError says why", () => {
    const foreign = newer.node({ name: "embed", output: "y" }, ({ x }: { x: number }) => x);
    const here = (() => {
      try {
        new core.Graph([foreign]);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(here).toMatchObject({ _tag: "GraphConfigError", where: "embed" });
    expect((here as Error).message).toBe(
      `Item 0 of the node list (node 'embed') can't be used: it is a node built by another copy of @graph/core, which speaks node protocol ${core.NODE_PROTOCOL + 1}; this copy speaks protocol ${core.NODE_PROTOCOL}, so the two versions can't share nodes and graphs.\n` +
        "  How to fix: make every package resolve the same @graph/core (`npm ls @graph/core`, then pnpm dedupe / npm dedupe).",
    );
    expect(() => new newer.Graph([core.node({ name: "own", output: "y" }, ({ x }: { x: number }) => x)])).toThrow(
      expect.objectContaining({ _tag: "GraphConfigError", where: "own" }),
    );
    expect(core.isNode(foreign)).toBe(false);
  });

  it("its graph is refused by the Runner before anything runs", async () => {
    let ran = 0;
    const graph = new newer.Graph([
      newer.node({ name: "count", output: "y" }, ({ x }: { x: number }) => {
        ran++;
        return x;
      }),
    ]);
    expect(core.isGraph(graph)).toBe(false);
    await expect(new Runner().run(graph, { values: { x: 1 } })).rejects.toMatchObject({
      _tag: "GraphConfigError",
    });
    expect(ran).toBe(0);
  });
});
