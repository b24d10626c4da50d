import { describe, expect, it } from "vitest";
import { END, Graph, node, route } from "../src/index.js";
import { errorOf, fromSource } from "./helpers.js";

const fn = (name: string, inputs: string, output?: string | string[]) =>
  node(output === undefined ? {} : { output }, fromSource(`function ${name}({ ${inputs} }) { return 1; }`));

/** InputSpec as plain arrays, for exact comparisons (sets keep node-list order). */
const spec = (graph: Graph) => ({
  required: [...graph.inputs.required],
  optional: [...graph.inputs.optional],
  seeds: [...graph.inputs.seeds],
  bound: graph.inputs.bound,
  all: [...graph.inputs.all],
});

describe("InputSpec on DAGs", () => {
  it("required = no edge, no bind, no default; optional = default", () => {
    const process = fn("process", "x, config = null", "result");
    expect(spec(new Graph([process]))).toEqual({
      required: ["x"],
      optional: ["config"],
      seeds: [],
      bound: {},
      all: ["x", "config"],
    });
  });

  it("values produced by an edge are not inputs", () => {
    const embed = fn("embed", "text", "embedding");
    const retrieve = fn("retrieve", "embedding, topK = 5", "docs");
    const generate = fn("generate", "docs, text", "answer");
    expect(spec(new Graph([embed, retrieve, generate]))).toEqual({
      required: ["text"],
      optional: ["topK"],
      seeds: [],
      bound: {},
      all: ["text", "topK"],
    });
  });

  it("an input is optional only when every consumer has a default", () => {
    const a = fn("a", "k = 1", "x");
    const b = fn("b", "k", "y");
    expect(spec(new Graph([a, b])).required).toEqual(["k"]);
    expect(spec(new Graph([a, fn("c", "k = 2", "z")])).optional).toEqual(["k"]);
  });

  it("array-form defaults count", () => {
    const n = node({ name: "n", inputs: ["a", "b"], defaults: { b: 2 } }, () => 1);
    expect(spec(new Graph([n]))).toEqual({ required: ["a"], optional: ["b"], seeds: [], bound: {}, all: ["a", "b"] });
  });

  it("the sets and the spec are frozen snapshots", () => {
    const graph = new Graph([fn("a", "p", "x")]);
    expect(Object.isFrozen(graph.inputs)).toBe(true);
    expect(Object.isFrozen(graph.inputs.bound)).toBe(true);
  });
});

describe("InputSpec on cycles", () => {
  it("counter(count) -> count ⇒ seeds { count }", () => {
    const counter = fn("counter", "count", "count");
    expect(spec(new Graph([counter]))).toEqual({
      required: [],
      optional: [],
      seeds: ["count"],
      bound: {},
      all: ["count"],
    });
  });

  it("a chat ⇒ seeds { messages }, required { userInput }", () => {
    const getResponse = fn("getResponse", "messages, userInput", "response");
    const updateMessages = fn("updateMessages", "messages, userInput, response", "messages");
    const chat = new Graph([getResponse, updateMessages]);
    expect(spec(chat)).toEqual({
      required: ["userInput"],
      optional: [],
      seeds: ["messages"],
      bound: {},
      all: ["messages", "userInput"],
    });
    const c = chat.analysis.componentOf.get("getResponse")!;
    expect(chat.analysis.entries.get(c)).toEqual(["getResponse"]);
    expect(chat.analysis.isFeedback("updateMessages", "getResponse")).toBe(true);
    expect(chat.analysis.isFeedback("getResponse", "updateMessages")).toBe(false);
    expect([...chat.analysis.seedValues]).toEqual(["messages"]);
  });

  it("after bind({ messages: [] }) the seed is optional and seeds is empty", () => {
    const getResponse = fn("getResponse", "messages, userInput", "response");
    const updateMessages = fn("updateMessages", "messages, userInput, response", "messages");
    const chat = new Graph([getResponse, updateMessages]).bind({ messages: [] });
    expect(spec(chat)).toEqual({
      required: ["userInput"],
      optional: ["messages"],
      seeds: [],
      bound: { messages: [] },
      all: ["messages", "userInput"],
    });
  });

  it("a seed with a default is optional, not a seed", () => {
    expect(spec(new Graph([fn("counter", "count = 0", "count")]))).toEqual({
      required: [],
      optional: ["count"],
      seeds: [],
      bound: {},
      all: ["count"],
    });
  });

  it("a gated loop: the entry's in-cycle inputs are the seeds", () => {
    const generate = fn("generate", "messages, prompt", "response");
    const accumulate = fn("accumulate", "messages, response", "messages");
    const done = route({ targets: ["generate", END] }, fromSource("function check_done({ messages }) { return END; }"));
    expect(spec(new Graph([generate, accumulate, done]))).toEqual({
      required: ["prompt"],
      optional: [],
      seeds: ["messages"],
      bound: {},
      all: ["messages", "prompt"],
    });
  });
});

describe("bind / unbind", () => {
  const loadConfig = fn("load_config", "", "config");
  const process = fn("process", "data, config, temperature = 0.7, model", "result");
  const graph = new Graph([loadConfig, process]);

  it("binds inputs: they become optional, all is unchanged", () => {
    const bound = graph.bind({ model: "gpt", data: "d" });
    expect(spec(graph)).toEqual({
      required: ["data", "model"],
      optional: ["temperature"],
      seeds: [],
      bound: {},
      all: ["data", "temperature", "model"],
    });
    expect(spec(bound)).toEqual({
      required: [],
      optional: ["data", "temperature", "model"],
      seeds: [],
      bound: { model: "gpt", data: "d" },
      all: ["data", "temperature", "model"],
    });
  });

  it("merges successive binds; later values win", () => {
    const bound = graph.bind({ model: "a" }).bind({ temperature: 0.1 }).bind({ model: "b" });
    expect(bound.inputs.bound).toEqual({ model: "b", temperature: 0.1 });
  });

  it("is immutable", () => {
    const bound = graph.bind({ model: "a" });
    expect(bound).not.toBe(graph);
    expect(graph.inputs.bound).toEqual({});
    bound.bind({ data: 1 });
    expect(bound.inputs.bound).toEqual({ model: "a" });
  });

  it("unbind(key) removes that binding; unbind() removes all", () => {
    const bound = graph.bind({ model: "a", data: "d", temperature: 1 });
    expect(bound.unbind("data").inputs.bound).toEqual({ model: "a", temperature: 1 });
    expect(bound.unbind("model", "temperature").inputs.bound).toEqual({ data: "d" });
    expect(bound.unbind().inputs.bound).toEqual({});
    expect(spec(bound.unbind())).toEqual(spec(graph));
    expect(bound.inputs.bound).toEqual({ model: "a", data: "d", temperature: 1 });
  });

  it("binding a value an edge produces is an error naming the producer", () => {
    const error = errorOf(() => graph.bind({ config: { threshold: 0.5 } }));
    expect(error).toMatchObject({ _tag: "GraphConfigError", where: "config" });
    expect(error.message).toMatch(/^Cannot bind 'config': it is produced by node 'load_config'\./);
  });

  it("binding an unknown name lists the valid inputs, with Did you mean", () => {
    const error = errorOf(() => graph.bind({ modle: "x" }));
    expect(error._tag).toBe("GraphConfigError");
    expect(error.message).toBe(
      "Cannot bind 'modle': it is not an input of this graph. Did you mean 'model'?\n  → Valid inputs: 'data', 'temperature', 'model'",
    );
  });

  it("bind() needs an object", () => {
    expect(errorOf(() => graph.bind(null as never)).message).toBe(
      "bind() expects an object of input values ({ name: value }), got null.\n  → Valid inputs: 'data', 'temperature', 'model'",
    );
  });

  it("a value produced but not wired (explicit edges) is an input and may be bound", () => {
    const explicit = new Graph([loadConfig, process], { edges: [] });
    expect(explicit.inputs.required.has("config")).toBe(true);
    expect(explicit.bind({ config: {} }).inputs.optional.has("config")).toBe(true);
  });

  it("keeps entrypoint and options through bind", () => {
    const counter = fn("counter", "count", "count");
    const g = new Graph([counter], { name: "c", entrypoint: "counter", completeOnStop: true }).bind({ count: 0 });
    expect([g.name, g.entrypoint, g.completeOnStop]).toEqual(["c", ["counter"], true]);
  });
});

describe("InputSpec of nested graphs", () => {
  const retrieve = fn("retrieve", "query, topK = 3", "docs");
  const inner = new Graph([retrieve], { name: "rag" });

  it("a GraphNode's inputs are the inner inputs.all; inner optional ⇒ outer optional", () => {
    const ragNode = inner.asNode();
    expect(ragNode.inputs).toEqual(["query", "topK"]);
    expect([ragNode.hasDefault("query"), ragNode.hasDefault("topK")]).toEqual([false, true]);
    expect(spec(new Graph([ragNode]))).toEqual({
      required: ["query"],
      optional: ["topK"],
      seeds: [],
      bound: {},
      all: ["query", "topK"],
    });
  });

  it("an inner bind makes the outer input optional", () => {
    const outer = new Graph([inner.bind({ query: "default" }).asNode()]);
    expect(spec(outer)).toEqual({
      required: [],
      optional: ["query", "topK"],
      seeds: [],
      bound: {},
      all: ["query", "topK"],
    });
  });

  it("renames are respected", () => {
    const clean = fn("clean", "raw", "question");
    const outer = new Graph([clean, inner.asNode().withInputs({ query: "question", topK: "k" })]);
    expect(spec(outer)).toEqual({ required: ["raw"], optional: ["k"], seeds: [], bound: {}, all: ["raw", "k"] });
    expect(outer.structure.getEdgeAttributes("clean", "rag").valueNames).toEqual(["question"]);
  });

  it("an inner seed is an outer input; a GraphNode that feeds its own seed forms an outer cycle", () => {
    const loop = new Graph([fn("counter", "count", "count")], { name: "loop" });
    const outer = new Graph([loop.asNode()]);
    expect(spec(outer)).toEqual({ required: [], optional: [], seeds: ["count"], bound: {}, all: ["count"] });
    expect(outer.hasCycles).toBe(true);
  });
});
