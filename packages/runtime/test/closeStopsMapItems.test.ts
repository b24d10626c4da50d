// `runner.close()` also owns the dispatched map items the runner runs (`runMapItem` of `@graph/runtime/worker`): it
// stops them (they end `stopped`, their status written), waits for them, and only then closes the store; a closed
// runner refuses new items.
import { MemoryCheckpointer } from "@graph/checkpoint";
import { Graph, type NodeContext, node } from "@graph/core";
import { describe, expect, it } from "vitest";
import { type MapDispatchRequest, Runner } from "../src/index.js";
import { type MapItemRunOptions, runMapItem } from "../src/worker.js";
import { closeRecording } from "./support/closeRecording.js";

function itemOptions(request: MapDispatchRequest, i: number): MapItemRunOptions {
  return {
    workflowId: request.itemWorkflowId(i),
    parentWorkflowId: request.parentWorkflowId,
    values: request.items[i]!,
    parentVersions: request.parentVersions,
    fence: request.fence,
    completeOnStop: request.completeOnStop,
    maxIterations: request.maxIterations,
  };
}

describe("runner.close() and runMapItem", () => {
  it("stops the items it runs, waits for them to end, then closes the store; later items are refused", async () => {
    let started!: () => void;
    const inItem = new Promise<void>((resolve) => (started = resolve));
    let aborted = 0;
    const slow = node({ name: "slow", output: "y" }, async ({ x }: { x: number }, ctx: NodeContext) => {
      started();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 30_000);
        ctx.signal.addEventListener("abort", () => {
          aborted++;
          clearTimeout(timer);
          resolve();
        });
      });
      return x;
    });
    const items = new Graph([slow], { name: "slowItems" });
    const prep = node({ name: "prep", output: "xs" }, ({ n }: { n: number }) => Array.from({ length: n }, (_, i) => i));
    const mapped = items.asNode().withInputs({ x: "xs" }).withOutputs({ y: "ys" }).mapOver("xs");
    const flow = new Graph([prep, mapped], { name: "slowFlow" });

    const inner = new MemoryCheckpointer();
    let request: MapDispatchRequest | undefined;
    const root = new Runner({
      checkpointer: inner,
      mapDispatcher: { minItems: 1, dispatch: async (r) => ((request ??= r), "parked") },
    });
    const parked = await root.run(flow, { values: { n: 2 }, workflowId: "cm" });
    expect(parked.status).toBe("paused");

    const rec = closeRecording(inner);
    const worker = new Runner({ checkpointer: rec.view });
    const item = runMapItem(worker, request!.graph, itemOptions(request!, 0));
    await inItem;
    const t0 = Date.now();
    await worker.close();
    expect(Date.now() - t0).toBeLessThan(5_000);
    const result = await item;
    expect(result.status).toBe("stopped");
    expect(result.workflowId).toBe("cm/slowItems/0");
    expect(aborted).toBe(1);
    // The item's end was written before the store closed, and nothing reached it after.
    expect((await inner.getWorkflow("cm/slowItems/0"))?.status).toBe("stopped");
    expect(rec.isClosed()).toBe(true);
    expect(rec.afterClose).toEqual([]);

    const refused = await runMapItem(worker, request!.graph, itemOptions(request!, 1)).catch((e: unknown) => e);
    expect((refused as { _tag: string })._tag).toBe("GraphConfigError");
    expect((refused as Error).message).toBe("runMapItem() was called after runner.close(). Create a new Runner.");
    expect(await inner.getWorkflow("cm/slowItems/1")).toBeUndefined();
    await root.close();
  });

  it("runMapItem refuses what is not a Runner of this package, naming the two-copies case", async () => {
    const error = await runMapItem({} as Runner, new Graph([]), {} as MapItemRunOptions).catch((e: unknown) => e);
    expect((error as { _tag: string })._tag).toBe("GraphConfigError");
    expect((error as Error).message).toContain("expects a Runner of @graph/runtime as its first argument");
    expect((error as Error).message).toContain("two copies of @graph/runtime");
  });
});
