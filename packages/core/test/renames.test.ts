import { describe, expect, it } from "vitest";
import { END, Graph, isRenameError, node, RenameError, route } from "../src/index.js";
import { ctx, errorOf, fromSource } from "./helpers.js";

const embed = node(
  { output: "embedding" },
  fromSource("function embed({ text, model = 'small' }) { return [text, model]; }"),
);

describe("renames are immutable", () => {
  it("withName returns a new node and leaves the original alone", () => {
    const renamed = embed.withName("embed_query");
    expect(renamed).not.toBe(embed);
    expect(renamed.name).toBe("embed_query");
    expect(embed.name).toBe("embed");
    expect(renamed.inputs).toEqual(["text", "model"]);
    expect(renamed.mode).toBe("sync");
  });

  it("withInputs renames the public port; the function still receives its own names", () => {
    const renamed = embed.withInputs({ text: "raw" });
    expect(renamed.inputs).toEqual(["raw", "model"]);
    expect(embed.inputs).toEqual(["text", "model"]);
    expect(renamed.originalInput("raw")).toBe("text");
    expect(renamed.hasDefault("model")).toBe(true);
    expect(renamed.hasDefault("raw")).toBe(false);
    expect(renamed.invoke({ raw: "hello", model: "big" }, ctx)).toEqual(["hello", "big"]);
  });

  it("withOutputs renames outputs", () => {
    const renamed = embed.withOutputs({ embedding: "vector" });
    expect(renamed.outputs).toEqual(["vector"]);
    expect(embed.outputs).toEqual(["embedding"]);
    expect(renamed.collectOutputs([1])).toEqual({ vector: [1] });
  });

  it("renames inside one call apply in parallel: { a: 'b', b: 'a' } swaps", () => {
    const pair = node({ name: "pair" }, fromSource("({ a, b }) => `${a}-${b}`"));
    const swapped = pair.withInputs({ a: "b", b: "a" });
    expect(swapped.inputs).toEqual(["b", "a"]);
    expect(swapped.invoke({ a: 1, b: 2 }, ctx)).toBe("2-1");
    const outputs = node({ name: "two", output: ["x", "y"] }, () => [1, 2]).withOutputs({ x: "y", y: "x" });
    expect(outputs.outputs).toEqual(["y", "x"]);
    expect(outputs.collectOutputs([1, 2])).toEqual({ y: 1, x: 2 });
  });

  it("renaming onto another existing port is a duplicate-port error", () => {
    const error = errorOf(() => embed.withInputs({ text: "model" }));
    expect(error._tag).toBe("GraphConfigError");
    expect(error.message).toContain("Node 'embed' declares input 'model' twice.");
  });

  it("new names are checked like any name", () => {
    expect(errorOf(() => embed.withOutputs({ embedding: "a/b" })).message).toContain(
      "Invalid output name 'a/b' in node 'embed'",
    );
    expect(errorOf(() => embed.withName("a.b")).message).toContain("Invalid node name 'a.b'");
  });

  it("works on gates too", () => {
    const gate = route(
      { targets: ["x", END] },
      fromSource("function decide({ score }) { return score > 1 ? END : 'x'; }"),
    );
    const renamed = gate.withInputs({ score: "confidence" }).withName("decide2");
    expect([renamed.name, renamed.inputs, gate.inputs]).toEqual(["decide2", ["confidence"], ["score"]]);
  });
});

describe("RenameError", () => {
  it("lists the current ports for an unknown port", () => {
    const error = errorOf<RenameError>(() => embed.withInputs({ txt: "raw" }));
    expect(error).toBeInstanceOf(RenameError);
    expect(isRenameError(error)).toBe(true);
    expect(error._tag).toBe("RenameError");
    expect(error.message).toBe(
      "Cannot rename input 'txt' of node 'embed': it has no such input.\n  → Current inputs: 'text', 'model'",
    );
    expect(error.nodeName).toBe("embed");
    expect(error.port).toBe("txt");
  });

  it("says what an earlier rename turned the name into", () => {
    const error = errorOf(() => embed.withInputs({ text: "raw" }).withInputs({ text: "clean" }));
    expect(error._tag).toBe("RenameError");
    expect(error.message).toContain("'text' was renamed to 'raw'; rename 'raw' instead.");
    expect(error.message).toContain("Current inputs: 'raw', 'model'");
  });

  it("follows chains a → b → c", () => {
    const chained = embed.withInputs({ text: "b" }).withInputs({ b: "c" });
    const error = errorOf(() => chained.withInputs({ text: "d" }));
    expect(error.message).toContain("'text' was renamed to 'c'");
  });

  it("does the same for outputs", () => {
    // @ts-expect-error: renaming a port the node no longer has (a static error too)
    const error = errorOf(() => embed.withOutputs({ embedding: "vector" }).withOutputs({ embedding: "v2" }));
    expect(error.message).toBe(
      "Cannot rename output 'embedding' of node 'embed': it has no such output.\n  → 'embedding' was renamed to 'vector'; rename 'vector' instead.\n  → Current outputs: 'vector'",
    );
  });

  it("an input rename does not explain an output name", () => {
    const renamed = embed.withInputs({ text: "raw" });
    // @ts-expect-error: renaming a port the node no longer has (a static error too)
    expect(errorOf(() => renamed.withOutputs({ text: "x" })).message).not.toContain("was renamed");
  });
});

describe("definitionHash and renames", () => {
  it("changes with every kind of rename", () => {
    const hashes = [
      embed,
      embed.withName("e2"),
      embed.withInputs({ text: "raw" }),
      embed.withOutputs({ embedding: "v" }),
    ].map((n) => n.definitionHash);
    expect(new Set(hashes).size).toBe(4);
  });

  it("stays equal for equal definitions", () => {
    expect(embed.withInputs({ text: "raw" }).definitionHash).toBe(embed.withInputs({ text: "raw" }).definitionHash);
    expect(embed.withName("embed").definitionHash).toBe(embed.definitionHash);
  });

  it("a graph of renamed nodes wires by the new names", () => {
    const producer = node({ output: "x" }, fromSource("function produce({ seed }) { return seed; }")).withOutputs({
      x: "raw",
    });
    const graph = new Graph([producer, embed.withInputs({ text: "raw" })]);
    expect(graph.structure.getEdgeAttributes("produce", "embed").valueNames).toEqual(["raw"]);
    expect(graph.inputs.required).toEqual(new Set(["seed"]));
  });
});
