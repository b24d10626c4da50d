import { describe, expect, it } from "vitest";
import { Graph, GraphNode, node } from "../src/index.js";
import { errorOf, fromSource } from "./helpers.js";

const fn = (name: string, inputs: string, output?: string | string[]) =>
  node(output === undefined ? {} : { output }, fromSource(`function ${name}({ ${inputs} }) { return 1; }`));

const embed = fn("embed", "query", "embedding");
const retrieve = fn("retrieve", "embedding, topK = 3", "docs");
const rag = new Graph([embed, retrieve], { name: "rag" });

describe("asNode()", () => {
  it("takes the name from the option, else the graph's name", () => {
    const byGraph = rag.asNode();
    expect(byGraph).toBeInstanceOf(GraphNode);
    expect(byGraph.name).toBe("rag");
    expect(byGraph.nodeType).toBe("graph");
    expect(byGraph.isGate).toBe(false);
    expect(byGraph.graph).toBe(rag);
    expect(rag.asNode({ name: "search" }).name).toBe("search");
    expect(new Graph([embed]).asNode({ name: "only" }).name).toBe("only");
  });

  it("without any name: 'GraphNode requires a name'", () => {
    const error = errorOf(() => new Graph([embed]).asNode());
    expect(error._tag).toBe("GraphConfigError");
    expect(error.message).toBe(
      'GraphNode requires a name: this graph has none.\n  How to fix: new Graph(nodes, { name: "rag" }) or graph.asNode({ name: "rag" }).',
    );
  });

  it("inputs are the inner inputs.all; outputs are ALL inner outputs (not only leaf outputs)", () => {
    const ragNode = rag.asNode();
    expect(ragNode.inputs).toEqual(["query", "topK"]);
    expect(ragNode.outputs).toEqual(["embedding", "docs"]);
    expect(rag.leafOutputs).toEqual(["docs"]);
  });

  it("completeOnStop: the asNode override, else the graph's setting", () => {
    expect(rag.asNode().completeOnStop).toBe(false);
    expect(rag.asNode({ completeOnStop: true }).completeOnStop).toBe(true);
    const stopping = new Graph([embed], { name: "s", completeOnStop: true });
    expect(stopping.asNode().completeOnStop).toBe(true);
    expect(stopping.asNode({ completeOnStop: false }).completeOnStop).toBe(false);
  });

  it("isAsync follows the inner graph", () => {
    expect(rag.asNode().isAsync).toBe(false);
    const asyncGraph = new Graph([node({ output: "x" }, fromSource("async function load({ url }) { return url; }"))], {
      name: "a",
    });
    expect(asyncGraph.asNode().isAsync).toBe(true);
  });

  it("maps between outer and inner names after renames", () => {
    const renamed = rag.asNode().withInputs({ query: "question" }).withOutputs({ docs: "passages" }).withName("search");
    expect([renamed.name, renamed.inputs, renamed.outputs]).toEqual([
      "search",
      ["question", "topK"],
      ["embedding", "passages"],
    ]);
    expect(renamed.innerInput("question")).toBe("query");
    expect(renamed.outerInput("query")).toBe("question");
    expect(renamed.innerOutput("passages")).toBe("docs");
    expect(renamed.outerOutput("docs")).toBe("passages");
    expect(renamed.innerInput("nope")).toBeUndefined();
    expect(renamed.hasDefault("topK")).toBe(true);
    expect(renamed.hasDefault("question")).toBe(false);
  });

  it("renames of a GraphNode raise RenameError with the history", () => {
    const error = errorOf(() => rag.asNode().withInputs({ query: "question" }).withInputs({ query: "q" }));
    expect(error._tag).toBe("RenameError");
    expect(error.message).toContain("'query' was renamed to 'question'");
  });
});

describe("mapOver concurrency", () => {
  it("is kept on the config, survives input renames, and is refused unless an integer ≥ 1", () => {
    const limited = rag.asNode().mapOver("query", { concurrency: 3 });
    expect(limited.mapOverConfig).toEqual({ params: ["query"], mode: "zip", concurrency: 3 });
    expect(limited.withInputs({ query: "question" }).mapOverConfig).toEqual({
      params: ["question"],
      mode: "zip",
      concurrency: 3,
    });
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      const error = errorOf(() => rag.asNode().mapOver("query", { concurrency: bad }));
      expect(error._tag).toBe("GraphConfigError");
      expect(error.message).toContain(`mapOver concurrency must be an integer ≥ 1, got ${String(bad)}`);
      expect(error.message).toContain('.mapOver("query", { concurrency: 3 })');
    }
    const text = errorOf(() => rag.asNode().mapOver("query", { concurrency: "3" as unknown as number }));
    expect(text.message).toContain("got a string ('3')");
  });

  it("refuses an option it does not know (a misspelt limit would silently not apply)", () => {
    const error = errorOf(() => rag.asNode().mapOver("query", { concurency: 3 } as never));
    expect(error._tag).toBe("GraphConfigError");
    expect(error.message).toContain("mapOver has no option 'concurency' (its options are 'mode' and 'concurrency')");
  });
});

describe("mapOver", () => {
  it("defaults to zip", () => {
    const mapped = rag.asNode().mapOver("query");
    expect(mapped.mapOverConfig).toEqual({ params: ["query"], mode: "zip" });
    expect(rag.asNode().mapOverConfig).toBeUndefined();
  });

  it("takes several params and product mode", () => {
    expect(rag.asNode().mapOver(["query", "topK"], { mode: "product" }).mapOverConfig).toEqual({
      params: ["query", "topK"],
      mode: "product",
    });
  });

  it("is immutable", () => {
    const plain = rag.asNode();
    const mapped = plain.mapOver("query");
    expect(mapped).not.toBe(plain);
    expect(plain.mapOverConfig).toBeUndefined();
  });

  it("mapping an unknown input is an error listing the inputs", () => {
    const error = errorOf(() => rag.asNode().mapOver("queries"));
    expect(error._tag).toBe("GraphConfigError");
    expect(error.message).toBe(
      "GraphNode 'rag' cannot map over 'queries': it is not one of its inputs ('query', 'topK').",
    );
  });

  it("rejects an empty list, a repeated name and an unknown mode", () => {
    expect(errorOf(() => rag.asNode().mapOver([])).message).toBe(
      "GraphNode 'rag': mapOver needs at least one input name.",
    );
    expect(errorOf(() => rag.asNode().mapOver(["query", "query"])).message).toContain(
      "GraphNode 'rag': mapOver lists 'query' twice.",
    );
    expect(errorOf(() => rag.asNode().mapOver("query", { mode: "cartesian" as never })).message).toBe(
      'GraphNode \'rag\': mapOver mode must be "zip" or "product", got "cartesian".',
    );
  });

  it("withInputs on a mapped GraphNode keeps mapOver pointing at the renamed port", () => {
    const mapped = rag.asNode().mapOver(["query", "topK"], { mode: "product" });
    const renamed = mapped.withInputs({ query: "question" });
    expect(renamed.mapOverConfig).toEqual({ params: ["question", "topK"], mode: "product" });
    expect(renamed.inputs).toEqual(["question", "topK"]);
    const swapped = mapped.withInputs({ query: "topK", topK: "query" });
    expect(swapped.mapOverConfig).toEqual({ params: ["topK", "query"], mode: "product" });
    expect(swapped.innerInput("topK")).toBe("query");
  });

  it("withName and withOutputs keep the mapOver config", () => {
    const mapped = rag.asNode().mapOver("query").withName("many").withOutputs({ docs: "allDocs" });
    expect(mapped.mapOverConfig).toEqual({ params: ["query"], mode: "zip" });
    expect(mapped.outputs).toEqual(["embedding", "allDocs"]);
  });
});

describe("GraphNode.definitionHash", () => {
  it("covers the inner graph, renames, mapOver and completeOnStop", () => {
    const base = rag.asNode();
    expect(rag.asNode().definitionHash).toBe(base.definitionHash);
    const variants = [
      rag.asNode({ name: "other" }),
      base.withInputs({ query: "q" }),
      base.withOutputs({ docs: "d" }),
      base.mapOver("query"),
      base.mapOver("query", { mode: "product" }),
      rag.asNode({ completeOnStop: true }),
      new Graph([embed, fn("retrieve", "embedding", "docs")], { name: "rag" }).asNode(),
    ];
    const hashes = new Set([base.definitionHash, ...variants.map((v) => v.definitionHash)]);
    expect(hashes.size).toBe(variants.length + 1);
  });

  it("ignores inner bound values (they are data, not definition)", () => {
    expect(rag.bind({ topK: 10 }).asNode().definitionHash).toBe(rag.asNode().definitionHash);
  });
});

describe("nesting", () => {
  it("wires outer nodes to the GraphNode by name", () => {
    const clean = fn("clean", "raw", "query");
    const answer = fn("answer", "docs", "reply");
    const outer = new Graph([clean, rag.asNode(), answer]);
    expect(outer.structure.mapEdges((_k, a, s, t) => `${s}->${t}:${a.valueNames.join(",")}`)).toEqual([
      "clean->rag:query",
      "rag->answer:docs",
    ]);
    expect([...outer.inputs.required]).toEqual(["raw"]);
    expect([...outer.inputs.optional]).toEqual(["topK"]);
    expect(outer.outputs).toEqual(["query", "embedding", "docs", "reply"]);
    expect(outer.structure.getNodeAttributes("rag").nodeType).toBe("graph");
  });
});
