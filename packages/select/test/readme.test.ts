import { describe, expect, it } from "vitest";
import { compile, runResultAdapter, selectTree } from "../src/index.js";

// The README's example, line for line, so it cannot drift from the code.
describe("README example", () => {
  it("does what the README says", () => {
    const tree = { answer: "42", rag: { docs: ["d1"], embedding: [0.1], inner: { embedding: [0.3] } }, log: "…" };

    expect(selectTree(tree, ["answer", "rag/docs"])).toStrictEqual({ answer: "42", rag: { docs: ["d1"] } });
    expect(selectTree(tree, "**/embedding")).toStrictEqual({ rag: { embedding: [0.1], inner: { embedding: [0.3] } } });

    const matcher = compile(["answer", "*/docs"]);
    expect(matcher.matches("rag/docs")).toBe(true);
    const result = {
      status: "completed",
      runId: "r1",
      values: { ...tree, rag: { status: "completed", values: tree.rag } },
    };
    expect(selectTree(result, matcher, { adapter: runResultAdapter })).toStrictEqual({
      status: "completed",
      runId: "r1",
      values: { answer: "42", rag: { status: "completed", values: { docs: ["d1"] } } },
    });
  });
});
