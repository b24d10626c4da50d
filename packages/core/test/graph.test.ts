import { describe, expect, it } from "vitest";
import { type AnyNode, END, Graph, GraphConfigError, ifElse, interrupt, node, route } from "../src/index.js";
import { errorOf, fromSource } from "./helpers.js";

const fn = (name: string, inputs: string, output?: string | string[], body = "return 1;") =>
  node(output === undefined ? {} : { output }, fromSource(`function ${name}({ ${inputs} }) { ${body} }`));

const edgesOf = (graph: Graph) =>
  graph.structure.mapEdges((_key, attrs, source, target) => ({ source, target, ...attrs }));

describe("edge inference", () => {
  const embed = fn("embed", "text", "embedding");
  const retrieve = fn("retrieve", "embedding, topK = 5", "docs");
  const decide = route({ targets: ["generate", END] }, fromSource("function decide({ docs }) { return 'generate'; }"));
  const generate = fn("generate", "docs, text", "answer");
  const graph = new Graph([embed, retrieve, decide, generate], { name: "rag" });

  it("infers data edges by name and control edges from gates, with exact attributes", () => {
    expect(edgesOf(graph)).toEqual([
      { source: "embed", target: "retrieve", edgeType: "data", valueNames: ["embedding"], condition: undefined },
      { source: "retrieve", target: "decide", edgeType: "data", valueNames: ["docs"], condition: undefined },
      { source: "retrieve", target: "generate", edgeType: "data", valueNames: ["docs"], condition: undefined },
      { source: "decide", target: "generate", edgeType: "control", valueNames: [], condition: "generate" },
    ]);
  });

  it("node attributes: node, nodeType, isGate", () => {
    expect(graph.structure.getNodeAttributes("decide")).toEqual({ node: decide, nodeType: "route", isGate: true });
    expect(graph.structure.getNodeAttributes("embed")).toEqual({ node: embed, nodeType: "function", isGate: false });
    expect(graph.structure.order).toBe(4);
  });

  it("one data edge per producer/consumer pair carries every shared value", () => {
    const both = fn("both", "", ["a", "b"]);
    const use = fn("use", "a, b, c");
    expect(edgesOf(new Graph([both, use]))).toEqual([
      { source: "both", target: "use", edgeType: "data", valueNames: ["a", "b"], condition: undefined },
    ]);
  });

  it("ifElse control edges carry 'true' / 'false'", () => {
    const check = ifElse({ whenTrue: "fast", whenFalse: "slow" }, fromSource("function check({ q }) { return true; }"));
    const g = new Graph([check, fn("fast", "q", "a1"), fn("slow", "q", "a2")]);
    expect(edgesOf(g).filter((e) => e.edgeType === "control")).toEqual([
      { source: "check", target: "fast", edgeType: "control", valueNames: [], condition: "true" },
      { source: "check", target: "slow", edgeType: "control", valueNames: [], condition: "false" },
    ]);
  });

  it("a node that consumes its own output has a self edge", () => {
    const counter = fn("counter", "count", "count", "return count + 1;");
    expect(edgesOf(new Graph([counter]))).toEqual([
      { source: "counter", target: "counter", edgeType: "data", valueNames: ["count"], condition: undefined },
    ]);
  });
});

describe("explicit edges", () => {
  const a = fn("a", "i", "x");
  const b = fn("b", "x", "y");
  const c = fn("c", "q", "w");

  it("replace inference: only the listed edges exist; [a, b] with no shared name is an ordering edge", () => {
    const g = new Graph([a, b, c], { edges: [["a", "c"]] });
    expect(edgesOf(g)).toEqual([
      { source: "a", target: "c", edgeType: "ordering", valueNames: [], condition: undefined },
    ]);
    // b's x is no longer wired: it becomes a graph input.
    expect(g.inputs.required).toEqual(new Set(["i", "x", "q"]));
  });

  it("outputs list each value once, in node-list order, also when exclusive producers share it", () => {
    const gate = ifElse({ whenTrue: "left", whenFalse: "right" }, fromSource("function gate({ q }) { return true; }"));
    const left = fn("left", "q", ["r", "l"]);
    const right = fn("right", "q", ["m", "r"]);
    const g = new Graph([gate, left, right]);
    expect(g.outputs).toEqual(["r", "l", "m"]);
    expect(g.leafOutputs).toEqual(["r", "l", "m"]);
  });

  it("leafOutputs are the outputs no edge carries", () => {
    expect(new Graph([a, b, c]).leafOutputs).toEqual(["y", "w"]);
    // b's input x is not wired, so a's x reaches nobody: a leaf.
    expect(new Graph([a, b, c], { edges: [["a", "c"]] }).leafOutputs).toEqual(["x", "y", "w"]);
  });

  it("[from, to] carries every shared name; [from, to, names] the named ones", () => {
    expect(edgesOf(new Graph([a, b], { edges: [["a", "b"]] }))).toEqual([
      { source: "a", target: "b", edgeType: "data", valueNames: ["x"], condition: undefined },
    ]);
    expect(edgesOf(new Graph([a, b], { edges: [["a", "b", ["x"]]] }))[0]!.valueNames).toEqual(["x"]);
    expect(edgesOf(new Graph([a, b], { edges: [["a", "b", []]] }))[0]!.edgeType).toBe("ordering");
  });

  it("repeated pairs merge into one structure edge", () => {
    const two = fn("two", "", ["x", "z"]);
    const take = fn("take", "x, z");
    const g = new Graph([two, take], {
      edges: [
        ["two", "take", ["x"]],
        ["two", "take", ["z"]],
        ["two", "take", []],
      ],
    });
    expect(edgesOf(g)).toEqual([
      { source: "two", target: "take", edgeType: "data", valueNames: ["x", "z"], condition: undefined },
    ]);
  });

  it("an explicit edge from a gate to its target keeps the control attributes", () => {
    const gate = route({ targets: ["b", END] }, fromSource("function gate({ x }) { return 'b'; }"));
    const g = new Graph([a, gate, b], {
      edges: [
        ["a", "gate"],
        ["gate", "b"],
        ["a", "b"],
      ],
    });
    expect(g.structure.getEdgeAttributes("gate", "b")).toEqual({ edgeType: "control", valueNames: [], condition: "b" });
  });

  it("gates still get control edges", () => {
    const gate = route({ targets: ["b", END] }, fromSource("function gate({ x }) { return 'b'; }"));
    const g = new Graph([a, gate, b], { edges: [["a", "b"]] });
    expect(edgesOf(g).map((e) => `${e.source}->${e.target}:${e.edgeType}`)).toEqual(["a->b:data", "gate->b:control"]);
  });

  it("unknown node names are errors with Did you mean and the node list", () => {
    const error = errorOf(() => new Graph([a, b, c], { edges: [["a", "bb"]] }));
    expect(error._tag).toBe("GraphConfigError");
    expect(error.message).toBe(
      "Explicit edge 0 [a → bb] names unknown node 'bb' in this graph. Did you mean 'b'?\n  → Nodes: 'a', 'b', 'c'",
    );
  });

  it("a value the ends do not have is an error", () => {
    expect(errorOf(() => new Graph([a, b], { edges: [["a", "b", ["z"]]] })).message).toBe(
      "Explicit edge [a → b] carries 'z', but 'a' does not output it (outputs: 'x').",
    );
    expect(errorOf(() => new Graph([a, c], { edges: [["a", "c", ["x"]]] })).message).toBe(
      "Explicit edge [a → c] carries 'x', but 'c' does not take it (inputs: 'q').",
    );
  });
});

describe("entrypoint", () => {
  const generate = fn("generate", "messages", "response");
  const accumulate = fn("accumulate", "messages, response", "messages");
  const done = route({ targets: ["generate", END] }, fromSource("function check_done({ messages }) { return END; }"));

  it("picks the entry of its cycle", () => {
    const byDefault = new Graph([generate, accumulate, done]);
    expect(byDefault.analysis.entries.get(byDefault.analysis.componentOf.get("generate")!)).toEqual(["generate"]);
    const configured = new Graph([generate, accumulate, done], { entrypoint: "accumulate" });
    expect(configured.entrypoint).toEqual(["accumulate"]);
    expect(configured.analysis.entries.get(configured.analysis.componentOf.get("generate")!)).toEqual(["accumulate"]);
    expect(configured.inputs.seeds).toEqual(new Set(["messages", "response"]));
  });

  it("accepts a list", () => {
    expect(new Graph([generate, accumulate, done], { entrypoint: ["generate"] }).entrypoint).toEqual(["generate"]);
  });

  it("an unknown entrypoint is an error with Did you mean", () => {
    const error = errorOf(() => new Graph([generate, accumulate, done], { entrypoint: "generat" }));
    expect(error._tag).toBe("GraphConfigError");
    expect(error.message).toBe(
      "Unknown entrypoint 'generat' in this graph. Did you mean 'generate'?\n  → Nodes: 'generate', 'accumulate', 'check_done'",
    );
  });

  it("an entrypoint outside every cycle is an error", () => {
    const prepare = fn("prepare", "raw", "topic");
    const error = errorOf(
      () => new Graph([prepare, generate, accumulate, done], { entrypoint: "prepare", name: "chat" }),
    );
    expect(error._tag).toBe("GraphConfigError");
    expect(error.message).toContain("entrypoint 'prepare' is not part of a cycle in graph 'chat'.");
    expect(error.message).toContain("name a node of a cycle ('generate', 'accumulate', 'check_done')");
    const dag = errorOf(() => new Graph([prepare], { entrypoint: "prepare" }));
    expect(dag.message).toContain("(this graph has none)");
  });
});

describe("Graph properties (node-list order)", () => {
  const clean = fn("clean", "raw", "query");
  const embed = node({ output: "embedding" }, fromSource("async function embed({ query }) { return [1]; }"));
  const approval = interrupt({ name: "approval", input: "embedding", response: "decision" });
  const report = fn("report", "decision, query", ["summary", "score"]);

  it("nodes, outputs, leafOutputs, interrupt and async flags", () => {
    const graph = new Graph([clean, embed, approval, report]);
    expect([...graph.nodes.keys()]).toEqual(["clean", "embed", "approval", "report"]);
    expect(graph.nodes.get("embed")).toBe(embed);
    expect(graph.outputs).toEqual(["query", "embedding", "decision", "summary", "score"]);
    expect(graph.leafOutputs).toEqual(["summary", "score"]);
    expect(graph.hasCycles).toBe(false);
    expect(graph.hasGates).toBe(false);
    expect(graph.hasInterrupts).toBe(true);
    expect(graph.interruptNodes).toEqual([approval]);
    expect(graph.interruptPaths).toEqual(["approval"]);
    expect(graph.hasAsyncNodes).toBe(true);
    expect(graph.inputs.required).toEqual(new Set(["raw"]));
    expect([...graph.inputs.all]).toEqual(["raw"]);
  });

  it("flags see nested graphs: interrupts and async nodes (hasCycles and hasGates are this level only)", () => {
    const inner = new Graph([embed, approval], { name: "review" });
    const outer = new Graph([clean, inner.asNode(), report]);
    expect(outer.hasInterrupts).toBe(true);
    expect(outer.interruptNodes).toEqual([]);
    expect(outer.interruptPaths).toEqual(["review/approval"]);
    expect(outer.hasAsyncNodes).toBe(true);
    const loop = new Graph([fn("counter", "count", "count")], { name: "loop" });
    const plain = new Graph([loop.asNode().withInputs({ count: "n" }).withOutputs({ count: "m" })]);
    expect([loop.hasCycles, plain.hasCycles]).toEqual([true, false]);
    const gated = new Graph([route({ targets: [END] }, fromSource("function g({ x }) { return END; }"))], {
      name: "gated",
    });
    expect(new Graph([gated.asNode()]).hasGates).toBe(false);
    const syncOnly = new Graph([clean, fn("other", "query", "o")]);
    expect(syncOnly.hasAsyncNodes).toBe(false);
    expect(syncOnly.hasInterrupts).toBe(false);
  });

  it("a loop has cycles and gates", () => {
    const generate = fn("generate", "messages", "response");
    const accumulate = fn("accumulate", "messages, response", "messages");
    const done = route({ targets: ["generate", END] }, fromSource("function check_done({ messages }) { return END; }"));
    const graph = new Graph([generate, accumulate, done]);
    expect([graph.hasCycles, graph.hasGates]).toEqual([true, true]);
    expect(graph.outputs).toEqual(["response", "messages"]);
    expect(graph.leafOutputs).toEqual([]);
  });

  it("keeps its options", () => {
    const graph = new Graph([clean], { name: "prep", strictTypes: false, completeOnStop: true });
    expect([graph.name, graph.strictTypes, graph.completeOnStop, graph.entrypoint]).toEqual(["prep", false, true, []]);
    expect(new Graph([clean]).completeOnStop).toBe(false);
  });
});

describe("Graph.definitionHash", () => {
  const build = (body = "return raw.trim();", options = {}) =>
    new Graph(
      [node({ output: "query" }, fromSource(`function clean({ raw }) { ${body} }`)), fn("use", "query", "out")],
      options,
    );

  it("is stable across two constructions", () => {
    expect(build().definitionHash).toMatch(/^[0-9a-f]{64}$/);
    expect(build().definitionHash).toBe(build().definitionHash);
  });

  it("changes when a node's source or the graph options change", () => {
    const base = build().definitionHash;
    expect(build("return raw;").definitionHash).not.toBe(base);
    expect(build(undefined, { name: "g" }).definitionHash).not.toBe(base);
    expect(build(undefined, { completeOnStop: true }).definitionHash).not.toBe(base);
    expect(build(undefined, { edges: [["clean", "use"]] }).definitionHash).not.toBe(base);
  });

  it("changes with node order but not with bound values", () => {
    const a = fn("a", "p", "x");
    const b = fn("b", "q", "y");
    expect(new Graph([a, b]).definitionHash).not.toBe(new Graph([b, a]).definitionHash);
    expect(build().bind({ raw: "x" }).definitionHash).toBe(build().definitionHash);
  });
});

describe("Graph constructor errors", () => {
  it("duplicate node names", () => {
    const a = fn("a", "p", "x");
    const error = errorOf(() => new Graph([a, fn("a", "q", "y")], { name: "g" }));
    expect(error).toBeInstanceOf(GraphConfigError);
    expect(error.message).toBe(
      "Duplicate node name 'a' in graph 'g'.\n  How to fix: give one of them another name with .withName(\"…\").",
    );
  });

  it("bad arguments", () => {
    expect(errorOf(() => new Graph("nodes" as never)).message).toBe(
      `new Graph() expects an array of nodes as its first argument, got a string ('nodes').\n  How to fix: new Graph([embed, retrieve], { name: "rag" }).`,
    );
    expect(errorOf(() => new Graph([fn("a", "p", "x"), (() => 1) as unknown as AnyNode])).message).toContain(
      "Item 1 of the node list is not a node (got a function).",
    );
    expect(errorOf(() => new Graph([], null as never)).message).toContain(
      "expects an options object as its second argument, got null.",
    );
    expect(errorOf(() => new Graph([], { name: "a/b" })).message).toContain("Invalid graph name 'a/b'");
  });

  it("an empty graph is valid and needs nothing", () => {
    const empty = new Graph([]);
    expect([empty.hasCycles, empty.outputs, [...empty.inputs.all]]).toEqual([false, [], []]);
  });
});
