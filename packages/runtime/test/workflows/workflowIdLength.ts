import type { Checkpointer } from "@graph/checkpoint";
import { guardCheckpointer, isCheckpointError } from "@graph/checkpoint";
import { Graph, node } from "@graph/core";
import { expect } from "vitest";
import { isInvalidOptionError, Runner } from "../../src/index.js";

async function rejection(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

/**
 * Workflow ids are limited to 1,024 UTF-8 bytes on every checkpointer: a longer one is rejected before the
 * backend sees it (by the Runner's option check, and by the checkpointer guard for direct use), naming the limit
 * and the actual length; an id of exactly 1,024 bytes runs and is stored.
 */
export async function workflowIdLengthIsLimited(checkpointer: Checkpointer): Promise<void> {
  const echo = node({ name: "echo", output: "said" }, ({ text }: { text: string }) => `said ${text}`);
  const graph = new Graph([echo], { name: "id-length" });
  const runner = new Runner({ checkpointer });
  try {
    const ascii = await rejection(() => runner.run(graph, { workflowId: "x".repeat(3000), values: { text: "a" } }));
    expect(isInvalidOptionError(ascii)).toBe(true);
    expect(ascii).toMatchObject({ option: "workflowId" });
    expect((ascii as Error).message).toBe(
      "runner.run(): option 'workflowId' is too long. " +
        `Workflow id "${"x".repeat(32)}…" is 3000 UTF-8 bytes long; the limit is 1024 bytes on every checkpointer. ` +
        "Use a shorter id (for example a hash of the long key).",
    );
    // 600 characters, 1,200 bytes: the limit counts bytes, not characters.
    const accented = await rejection(() => runner.run(graph, { workflowId: "é".repeat(600), values: { text: "a" } }));
    expect((accented as Error).message).toContain("is 1200 UTF-8 bytes long; the limit is 1024 bytes");

    const direct = await rejection(() =>
      guardCheckpointer(checkpointer).createWorkflow({ id: "y".repeat(2800), graphName: "g", graphHash: "h" }),
    );
    expect(isCheckpointError(direct)).toBe(true);
    expect(direct).toMatchObject({ operation: "createWorkflow", path: "workflowId" });
    expect((direct as Error).message).toContain("is 2800 UTF-8 bytes long; the limit is 1024 bytes");
    expect((direct as Error).message).not.toContain("reachable");

    const longest = "w".repeat(1024);
    const result = await runner.run(graph, { workflowId: longest, values: { text: "b" } });
    expect(result.status).toBe("completed");
    expect(result.workflowId).toBe(longest);
    expect(await checkpointer.getState(longest)).toEqual({ text: "b", said: "said b" });
  } finally {
    await runner.close();
  }
}
