import { MemoryCheckpointer } from "@graph/checkpoint";
import { Graph, node } from "@graph/core";
import { describe, expect, it } from "vitest";
import { isNodeExecutionError, Runner, RunResult } from "../src/index.js";

const runner = new Runner();
const embed = node({ name: "embed", output: "embedding" }, ({ query }: { query: string }) => [query.length]);
const retrieve = node({ name: "retrieve", output: "docs" }, ({ embedding }: { embedding: number[] }) => [
  `doc${embedding[0]}`,
]);
const rag = new Graph([embed, retrieve], { name: "rag" });

describe("nested graphs", () => {
  it("the parent holds the projected outputs and the nested RunResult under the GraphNode's name", async () => {
    const clean = node({ name: "clean", output: "query" }, ({ raw }: { raw: string }) => raw.trim());
    const answer = node({ name: "answer", output: "answer" }, ({ docs }: { docs: string[] }) => docs.join("+"));
    const r = await runner.run(new Graph([clean, rag.asNode(), answer]), { values: { raw: "  hello " } });
    expect(r.values.answer).toBe("doc5");
    expect(r.values.docs).toEqual(["doc5"]);
    const nested = r.values.rag as RunResult;
    expect(nested).toBeInstanceOf(RunResult);
    expect(nested.status).toBe("completed");
    expect(nested.values).toEqual({ embedding: [5], docs: ["doc5"] });
    expect(nested.workflowId).toBe(`${r.workflowId}/rag`);
    expect(r.get("rag/embedding")).toEqual([5]);
    expect(r.has("rag/docs")).toBe(true);
    expect(r.has("rag/nothing")).toBe(false);
  });

  it("respects renames on both sides", async () => {
    const renamed = rag.asNode({ name: "search" }).withInputs({ query: "question" }).withOutputs({ docs: "found" });
    const r = await runner.run(new Graph([renamed]), { values: { question: "abc" } });
    expect(r.values.found).toEqual(["doc3"]);
    expect(r.get("search/docs")).toEqual(["doc3"]);
    // @ts-expect-error: 'docs' was renamed to 'found' (a static error too)
    expect(r.values.docs).toBeUndefined();
  });

  it("mapOver zip, product and empty", async () => {
    const pair = node({ name: "pair", output: "label" }, ({ a, b }: { a: string; b: number }) => `${a}${b}`);
    const inner = new Graph([pair], { name: "inner" });
    const zip = await runner.run(new Graph([inner.asNode().mapOver(["a", "b"])]), {
      values: { a: ["x", "y"], b: [1, 2] },
    });
    expect(zip.values.label).toEqual(["x1", "y2"]);
    const product = await runner.run(new Graph([inner.asNode().mapOver(["a", "b"], { mode: "product" })]), {
      values: { a: ["x", "y"], b: [1, 2, 3] },
    });
    expect(product.values.label).toEqual(["x1", "x2", "x3", "y1", "y2", "y3"]);
    const empty = await runner.run(new Graph([inner.asNode().mapOver("a")]), { values: { a: [], b: 7 } });
    expect(empty.values.label).toEqual([]);
    const broadcast = await runner.run(new Graph([inner.asNode().mapOver("a")]), { values: { a: ["p", "q"], b: 7 } });
    expect(broadcast.values.label).toEqual(["p7", "q7"]);
  });

  it("zip with different lengths fails with the lengths listed", async () => {
    const pair = node({ name: "pair", output: "label" }, ({ a, b }: { a: string; b: number }) => `${a}${b}`);
    const inner = new Graph([pair], { name: "inner" });
    const error = await runner
      .run(new Graph([inner.asNode().mapOver(["a", "b"])]), { values: { a: ["x"], b: [1, 2] } })
      .catch((e) => e);
    expect(isNodeExecutionError(error)).toBe(true);
    expect(error.cause.message).toContain("'a' has 1, 'b' has 2");
  });

  it("child workflow ids are parent/name and parent/name/<i>", async () => {
    const cp = new MemoryCheckpointer();
    const durable = new Runner({ checkpointer: cp });
    const sq = node({ name: "sq", output: "sq" }, ({ x }: { x: number }) => x * x);
    const inner = new Graph([sq], { name: "inner" });
    await durable.run(new Graph([inner.asNode().mapOver("x"), rag.asNode()], { name: "outer" }), {
      values: { x: [1, 2], query: "q" },
      workflowId: "p",
    });
    const ids = (await cp.listWorkflows({ limit: 50 })).workflows.map((w) => w.id).sort();
    expect(ids).toEqual(["p", "p/inner/0", "p/inner/1", "p/rag"]);
    expect((await cp.getWorkflow("p/rag"))?.parentId).toBe("p");
    await durable.close();
  });

  it("a failure inside a nested graph propagates with the node's path", async () => {
    const boom = node({ name: "boom", output: "x" }, ({ y }: { y: number }) => {
      if (y > 0) throw new Error("kaput");
      return y;
    });
    const inner = new Graph([boom], { name: "inner" });
    const error = await runner.run(new Graph([inner.asNode()]), { values: { y: 1 } }).catch((e) => e);
    expect(isNodeExecutionError(error)).toBe(true);
    expect(error.nodeName).toBe("inner/boom");
    expect(error.cause.message).toBe("kaput");
    const continued = await runner.run(new Graph([inner.asNode()]), { values: { y: 1 }, errorHandling: "continue" });
    expect(continued.status).toBe("failed");
    expect((continued.values.inner as RunResult).status).toBe("failed");
  });

  it("runner.map runs whole graphs per item", async () => {
    const double = node({ name: "double", output: "doubled" }, ({ x, k }: { x: number; k: number }) => x * k);
    const batch = await runner.map(new Graph([double]), { values: { x: [1, 2, 3], k: 10 }, mapOver: "x" });
    expect(batch.status).toBe("completed");
    expect(batch.values.doubled).toEqual([10, 20, 30]);
    expect(batch.results.map((r) => r.status)).toEqual(["completed", "completed", "completed"]);
    const product = await runner.map(new Graph([double]), {
      values: { x: [1, 2], k: [1, 3] },
      mapOver: ["x", "k"],
      mapMode: "product",
    });
    expect(product.values.doubled).toEqual([1, 3, 2, 6]);
  });
});
