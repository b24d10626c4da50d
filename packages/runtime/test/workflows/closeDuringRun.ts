import type { Checkpointer } from "@graph/checkpoint";
import { Graph, type NodeContext, node } from "@graph/core";
import { expect } from "vitest";
import { Runner } from "../../src/index.js";

/**
 * `runner.close()` while a run is in a long node: the run ends `stopped` (not failed with "saveStep was called after
 * the store was closed"), the stored workflow is `stopped` with no lease, and only then is the store closed.
 * `open` builds the runner's checkpointer; `reopen` gives one to inspect the store after the runner closed it.
 */
export async function closeDuringRunStops(
  open: () => Checkpointer,
  reopen: () => Checkpointer,
  workflowId: string,
): Promise<void> {
  let started!: () => void;
  const inLongNode = new Promise<void>((resolve) => (started = resolve));
  let aborted = 0;
  const first = node({ name: "first", output: "draft" }, ({ topic }: { topic: string }) => `draft about ${topic}`);
  const long = node({ name: "long", output: "final" }, async ({ draft }: { draft: string }, ctx: NodeContext) => {
    started();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 30_000);
      ctx.signal.addEventListener("abort", () => {
        aborted++;
        clearTimeout(timer);
        resolve();
      });
    });
    return `${draft}!`;
  });
  const graph = new Graph([first, long], { name: "close-during-run" });
  const runner = new Runner({ checkpointer: open() });
  const run = runner.run(graph, { values: { topic: "cats" }, workflowId });
  await inLongNode;
  const t0 = Date.now();
  await runner.close();
  expect(Date.now() - t0).toBeLessThan(5_000);
  const result = await run;
  expect(result.status).toBe("stopped");
  expect(result.values).toEqual({ draft: "draft about cats" });
  expect(aborted).toBe(1);

  const store = reopen();
  try {
    const wf = await store.getWorkflow(workflowId);
    expect(wf?.status).toBe("stopped");
    expect(wf?.lease).toBeUndefined();
    expect(wf?.error).toBeUndefined();
  } finally {
    await store.close();
  }
  // A closed runner refuses new work with a message that says so.
  await expect(runner.run(graph, { values: { topic: "dogs" } })).rejects.toMatchObject({ _tag: "GraphConfigError" });
}
