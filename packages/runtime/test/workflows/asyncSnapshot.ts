import type { Checkpointer } from "@graph/checkpoint";
import { isCheckpointError } from "@graph/checkpoint";
import { Graph, node } from "@graph/core";
import { expect } from "vitest";
import { Runner } from "../../src/index.js";

const later = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * `fetch → annotate`: `annotate` mutates the document it received (a common shortcut) after `fetch`'s step was
 * queued but, with async durability, possibly before it was written. The stored `fetch` output must be what
 * `fetch` returned.
 */
export async function downstreamMutationKeepsStoredOutput(checkpointer: Checkpointer, workflowId: string) {
  const fetchDoc = node({ name: "fetch", output: "doc" }, async ({ url }: { url: string }) => ({
    url,
    tags: ["fetched"],
    meta: new Map([["size", 1]]),
  }));
  const annotate = node(
    { name: "annotate", output: "tagCount" },
    ({ doc }: { doc: { tags: string[]; meta: Map<string, number> } }) => {
      doc.tags.push("annotated");
      doc.meta.set("size", 99);
      return doc.tags.length;
    },
  );
  const runner = new Runner({ checkpointer });
  try {
    const result = await runner.run(new Graph([fetchDoc, annotate], { name: "snapshot" }), {
      workflowId,
      values: { url: "u" },
    });
    expect(result.status).toBe("completed");
    expect(result.get("tagCount")).toBe(2);
    const steps = await checkpointer.getSteps(workflowId);
    const fetched = steps.find((s) => s.nodeName === "fetch")!;
    expect(fetched.values).toEqual({ doc: { url: "u", tags: ["fetched"], meta: new Map([["size", 1]]) } });
  } finally {
    await runner.close();
  }
}

/**
 * `parse → slow`: `parse` returns a value holding a function. The run must fail when `parse`'s step ends, with
 * the CheckpointError naming the path, before `slow` runs (not after the whole graph). `parse` is sync, or async
 * (its step is then queued while the run awaits the node's promise directly, outside Effect).
 */
export async function unsaveableValueFailsAtItsStep(
  checkpointer: Checkpointer,
  workflowId: string,
  parseKind: "sync" | "async" = "sync",
) {
  const calls: string[] = [];
  const parsed = (text: string) => {
    calls.push("parse");
    return { text, toUpper: () => text.toUpperCase() };
  };
  const parse =
    parseKind === "sync"
      ? node({ name: "parse", output: "parsed" }, ({ text }: { text: string }) => parsed(text))
      : node({ name: "parse", output: "parsed" }, async ({ text }: { text: string }) => {
          await later(1);
          return parsed(text);
        });
  const slow = node({ name: "slow", output: "done" }, async ({ parsed }: { parsed: { text: string } }) => {
    calls.push("slow");
    await later(5);
    return parsed.text;
  });
  const runner = new Runner({ checkpointer });
  try {
    const error = await runner
      .run(new Graph([parse, slow], { name: "unsaveable" }), { workflowId, values: { text: "t" } })
      .then(
        (r) => r,
        (e: unknown) => e,
      );
    expect(isCheckpointError(error)).toBe(true);
    expect(error).toMatchObject({ nodeName: "parse", path: "values.parsed.toUpper", workflowId });
    expect((error as Error).message).toContain(
      `Cannot checkpoint the value at 'values.parsed.toUpper' written by node 'parse' in workflow '${workflowId}': ` +
        "it is a function (toUpper)",
    );
    expect(calls).toEqual(["parse"]);
    // The run gave the workflow up as failed, with no step after the input.
    expect((await checkpointer.getWorkflow(workflowId))?.status).toBe("failed");
    expect((await checkpointer.getSteps(workflowId)).map((s) => s.nodeName)).toEqual([]);
  } finally {
    await runner.close().catch(() => undefined);
  }
}
