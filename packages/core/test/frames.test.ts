import { describe, expect, it } from "vitest";
import { Graph, GraphConfigError, type GraphNode, interrupt, node } from "../src/index.js";

const source = (window?: number) =>
  node(
    { name: "pages", output: "page", frames: window === undefined ? true : { window } },
    async function* pages({ count }: { count: number }) {
      for (let i = 0; i < count; i++) yield i;
    },
  );
const embed = node({ name: "embed", output: "vector" }, function embed({ page }: { page: number }) {
  return [page];
});
const write = node(
  { name: "write", output: "written" },
  function write({ vector, table }: { vector: number[]; table: string }) {
    return `${table}:${vector[0]}`;
  },
);
const total = node({ name: "total", output: "rows", gather: true }, function total({ written }: { written: string[] }) {
  return written.length;
});

function configError(build: () => unknown): GraphConfigError {
  try {
    build();
  } catch (e) {
    if (GraphConfigError.is(e)) return e;
    throw e;
  }
  throw new Error("expected a GraphConfigError");
}

describe("frames: the pipeline a frames node and its consumers become", () => {
  it("replaces the frames node and its transitive consumers by one node named like it; gather nodes stay outside", () => {
    const g = new Graph([source(), embed, write, total]);
    expect([...g.nodes.keys()]).toEqual(["pages", "total"]);
    const pipeline = g.nodes.get("pages") as GraphNode;
    expect(pipeline.kind).toBe("graph");
    expect(pipeline.framesConfig?.window).toBe(16);
    expect(pipeline.framesConfig?.output).toBe("page");
    expect(pipeline.framesConfig?.source.name).toBe("pages");
    expect([...pipeline.graph.nodes.keys()]).toEqual(["embed", "write"]);
    expect(pipeline.inputs).toEqual(["count", "table"]);
    expect(pipeline.outputs).toEqual(["page", "vector", "written"]);
    expect([...g.inputs.required].sort()).toEqual(["count", "table"]);
    expect(g.outputs).toEqual(["page", "vector", "written", "rows"]);
  });

  it("the window is how frames are scheduled, not what they compute: it does not change the definition hash", () => {
    const a = new Graph([source(2), embed]);
    const b = new Graph([source(8), embed]);
    expect(a.definitionHash).toBe(b.definitionHash);
    const plain = node({ name: "pages", output: "page" }, async function* pages({ count }: { count: number }) {
      for (let i = 0; i < count; i++) yield i;
    });
    expect(source().definitionHash).not.toBe(plain.definitionHash);
  });

  it("a frames node with no consumer is a pipeline of nothing: its output is the list of frames", () => {
    const g = new Graph([source()]);
    expect((g.nodes.get("pages") as GraphNode).graph.nodes.size).toBe(0);
    expect(g.outputs).toEqual(["page"]);
  });

  it("rejects an interrupt fed by frames, a node fed by two streams and a frame result fed back to its stream", () => {
    const review = interrupt({ name: "review", input: "vector", response: "verdict" });
    const e1 = configError(() => new Graph([source(), embed, review]));
    expect(e1.message).toContain("The interrupt 'review' in this graph consumes the frames of 'pages' (frames: true).");
    expect(e1.message).toContain("an interrupt pauses the whole run for one answer, not once per frame");
    const other = node({ name: "lines", output: "line", frames: true }, async function* lines() {
      yield "a";
    });
    const both = node({ name: "both", output: "pair" }, function both({ page, line }: { page: number; line: string }) {
      return `${page}${line}`;
    });
    const e2 = configError(() => new Graph([source(), other, both], { name: "two" }));
    expect(e2.message).toContain("Node 'both' in graph 'two' consumes the frames of both 'pages' and 'lines'.");
    expect(e2.where).toBe("both");
    const back = node({ name: "back", output: "count" }, function back({ page }: { page: number }) {
      return page;
    });
    const e3 = configError(() => new Graph([source(), back]));
    expect(e3.message).toContain(
      "Node 'back' in this graph runs once per frame of 'pages' and writes 'count', which 'pages' reads.",
    );
  });

  it("a frames node inside another one's pipeline becomes a pipeline one level down", () => {
    const words = node(
      { name: "words", output: "word", frames: { window: 2 } },
      async function* words({ page }: { page: number }) {
        yield `${page}a`;
        yield `${page}b`;
      },
    );
    const shout = node({ name: "shout", output: "loud" }, function shout({ word }: { word: string }) {
      return word.toUpperCase();
    });
    const g = new Graph([source(), words, shout]);
    const outer = g.nodes.get("pages") as GraphNode;
    expect([...outer.graph.nodes.keys()]).toEqual(["words"]);
    const inner = outer.graph.nodes.get("words") as GraphNode;
    expect(inner.framesConfig?.window).toBe(2);
    expect([...inner.graph.nodes.keys()]).toEqual(["shout"]);
  });

  it("rejects options a frames node can't honour, naming the option", () => {
    const gen = async function* g() {
      yield 1;
    };
    expect(() => node({ name: "g", output: "x", frames: true, retry: { attempts: 2 } }, gen)).toThrow(
      "Node 'g' has frames: true and 'retry', which a frames node does not support.",
    );
    expect(() => node({ name: "g", output: "x", frames: true, timeoutMs: 5 }, gen)).toThrow("'timeoutMs'");
    expect(() => node({ name: "g", output: "x", frames: true, cache: true }, gen)).toThrow("'cache'");
    expect(node({ name: "g", output: "x", frames: true, cache: false }, gen).frames).toEqual({ window: 16 });
  });
});
