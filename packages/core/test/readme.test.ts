import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { END, Graph, node, route } from "../src/index.js";

// The README's example, line for line, so it cannot drift from the code.
describe("README example", () => {
  it("does what the README says", () => {
    const embed = node({ output: "embedding" }, function embed({ query }: { query: string }) {
      return [query.length];
    });
    const retrieve = node(
      { output: "docs" },
      function retrieve({ embedding, topK = 2 }: { embedding: number[]; topK?: number }) {
        return Array.from({ length: topK }, (_, i) => `doc${embedding[0]}-${i}`);
      },
    );
    const rag = new Graph([embed, retrieve], { name: "rag" }); // nested below as one node

    const write = node({ output: "draft" }, function write({ docs, draft }: { docs: string[]; draft: string }) {
      return draft + docs[0];
    });
    const review = route({ targets: ["write", END] }, function review({ draft }: { draft: string }) {
      return draft.length > 40 ? END : "write"; // loop until long enough
    });
    const app = new Graph([rag.asNode().withInputs({ query: "question" }), write, review], { name: "app" }).bind({
      draft: "",
    });

    expect(app.inputs.required).toEqual(new Set(["question"]));
    expect([...app.inputs.optional]).toEqual(["topK", "draft"]);
    expect(app.outputs).toEqual(["embedding", "docs", "draft"]);
    expect(app.hasCycles).toBe(true);
    const mermaid = app.toMermaid();
    expect(mermaid.startsWith("flowchart TD")).toBe(true);
    for (const part of ['subgraph n0 ["rag"]', 'n2{"review"}', "graph_END((END))"]) expect(mermaid).toContain(part);
  });

  it("the README shows the same code", () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    for (const line of [
      'const rag = new Graph([embed, retrieve], { name: "rag" });',
      'const review = route({ targets: ["write", END] }, function review({ draft }: { draft: string }) {',
      // Biome wraps this call at 120 columns, in the README as in this file.
      'const app = new Graph([rag.asNode().withInputs({ query: "question" }), write, review], { name: "app" }).bind({\n  draft: "",\n});',
    ]) {
      expect(readme).toContain(line);
    }
  });
});
