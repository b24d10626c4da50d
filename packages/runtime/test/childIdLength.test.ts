import { MAX_WORKFLOW_ID_BYTES, MemoryCheckpointer } from "@graph/checkpoint";
import { Graph, node } from "@graph/core";
import { describe, expect, it } from "vitest";
import { isInvalidOptionError, Runner } from "../src/index.js";

async function rejection(run: () => Promise<unknown>): Promise<Error & { option?: string }> {
  try {
    await run();
  } catch (error) {
    return error as Error & { option?: string };
  }
  throw new Error("expected a rejection");
}

/** outer → research (mapped over `docs`) → inner graph with a nested `deep` graph: the deepest child id is long. */
function nestedGraph(calls: string[]) {
  const leaf = node({ name: "leaf", output: "summary" }, ({ doc }: { doc: string }) => {
    calls.push(`leaf:${doc}`);
    return `s:${doc}`;
  });
  const deep = new Graph([leaf], { name: "deep" }).asNode();
  const research = new Graph([deep], { name: "research" }).asNode().mapOver("doc");
  const split = node({ name: "split", output: "doc" }, ({ text }: { text: string }) => {
    calls.push("split");
    return text.split(" ");
  });
  return new Graph([split, research], { name: "outer" });
}

describe("a root workflow id is checked against the longest child id its graph can produce", () => {
  // "/research/<7 digits>/deep": 1 + 8 + 1 + 7 + 1 + 4 bytes.
  const suffix = "/research/".length + 7 + "/deep".length;

  it("a 1,020-byte root id fails up front (InvalidOptionError naming the deepest child), nothing runs or is stored", async () => {
    const calls: string[] = [];
    const checkpointer = new MemoryCheckpointer();
    const runner = new Runner({ checkpointer });
    try {
      const id = "r".repeat(1020);
      const error = await rejection(() => runner.run(nestedGraph(calls), { workflowId: id, values: { text: "a b" } }));
      expect(isInvalidOptionError(error)).toBe(true);
      expect(error.option).toBe("workflowId");
      expect(error.message).toBe(
        "runner.run(): option 'workflowId' leaves no room for this graph's child workflow ids. " +
          `Workflow id "${"r".repeat(32)}…" is 1020 UTF-8 bytes; its deepest child (a nested graph or map item) adds ` +
          `${suffix} bytes ("<workflowId>/research/<item index, up to 7 digits>/deep"), which makes ${1020 + suffix} ` +
          `bytes, over the limit of 1024 bytes on every checkpointer. Use a workflow id of at most ${1024 - suffix} ` +
          "bytes (for example a hash of the long key).",
      );
      expect(calls).toEqual([]);
      expect(await checkpointer.getWorkflow(id)).toBeUndefined();
      // The same through start().
      const started = await rejection(
        () => runner.start(nestedGraph(calls), { workflowId: id, values: { text: "a" } }).result,
      );
      expect(isInvalidOptionError(started)).toBe(true);
      expect(calls).toEqual([]);
    } finally {
      await runner.close();
    }
  });

  it("the longest root id that leaves room runs to the end, every child record stored", async () => {
    const calls: string[] = [];
    const checkpointer = new MemoryCheckpointer();
    const runner = new Runner({ checkpointer });
    try {
      const id = "k".repeat(MAX_WORKFLOW_ID_BYTES - suffix);
      const result = await runner.run(nestedGraph(calls), { workflowId: id, values: { text: "a b" } });
      expect(result.status).toBe("completed");
      expect(result.values.summary).toEqual(["s:a", "s:b"]);
      expect(calls).toEqual(["split", "leaf:a", "leaf:b"]);
      expect((await checkpointer.getWorkflow(`${id}/research/1/deep`))?.status).toBe("completed");
      // One byte more fails up front.
      const error = await rejection(() =>
        runner.run(nestedGraph(calls), { workflowId: `${id}x`, values: { text: "a b" } }),
      );
      expect(isInvalidOptionError(error)).toBe(true);
    } finally {
      await runner.close();
    }
  });

  it("graphs without nested graphs keep the whole limit; runner.map counts its own item index", async () => {
    const echo = node({ name: "echo", output: "said" }, ({ text }: { text: string }) => `said ${text}`);
    const flat = new Graph([echo], { name: "flat" });
    const runner = new Runner({ checkpointer: new MemoryCheckpointer() });
    try {
      const full = "f".repeat(MAX_WORKFLOW_ID_BYTES);
      expect((await runner.run(flat, { workflowId: full, values: { text: "x" } })).status).toBe("completed");
      // 12 items: `<id>/<0…11>` adds up to 3 bytes.
      const texts = Array.from({ length: 12 }, (_, i) => `t${i}`);
      const tooLong = await rejection(() =>
        runner.map(flat, {
          workflowId: "m".repeat(MAX_WORKFLOW_ID_BYTES - 2),
          values: { text: texts },
          mapOver: "text",
        }),
      );
      expect(isInvalidOptionError(tooLong)).toBe(true);
      expect(tooLong.message).toContain('("<workflowId>/<item index, 2 digits>")');
      const mapped = await runner.map(flat, {
        workflowId: "m".repeat(MAX_WORKFLOW_ID_BYTES - 3),
        values: { text: texts },
        mapOver: "text",
      });
      expect(mapped.status).toBe("completed");
    } finally {
      await runner.close();
    }
  });
});
