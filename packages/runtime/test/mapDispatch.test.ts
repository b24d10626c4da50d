// The mapDispatcher seam: a mapped GraphNode's items handed to a dispatcher, which runs them (here, in this process,
// through runMapItem on the same checkpointer) and answers "done", or parks the run and lets a later resume gather.
import { MemoryCheckpointer } from "@graph/checkpoint";
import { Graph, node } from "@graph/core";
import { describe, expect, it } from "vitest";
import {
  isInvalidOptionError,
  isNodeExecutionError,
  type MapDispatchRequest,
  Runner,
  type RunResult,
} from "../src/index.js";
import { runMapItem } from "../src/worker.js";

const calls = new Map<number, number>();
const square = node({ name: "square", output: "y" }, function square({ x, k }: { x: number; k: number }) {
  calls.set(x, (calls.get(x) ?? 0) + 1);
  if (x < 0) throw new Error(`negative: ${x}`);
  return x * x + k;
});
const items = new Graph([square], { name: "items" });
const prep = node({ name: "prep", output: "xs" }, ({ n }: { n: number }) => Array.from({ length: n }, (_, i) => i));
const total = node({ name: "total", output: "sum" }, ({ ys }: { ys: number[] }) => ys.reduce((a, b) => a + b, 0));
const mapped = items.asNode().withInputs({ x: "xs", k: "offset" }).withOutputs({ y: "ys" }).mapOver("xs");
const flow = new Graph([prep, mapped, total], { name: "flow" });

/** Runs every item of a request through runMapItem (what a queue's chunk does). */
async function runAll(runner: Runner, request: MapDispatchRequest, only?: (i: number) => boolean): Promise<void> {
  for (let i = 0; i < request.count; i++) {
    if (only !== undefined && !only(i)) continue;
    await runMapItem(runner, request.graph, {
      workflowId: request.itemWorkflowId(i),
      parentWorkflowId: request.parentWorkflowId,
      values: request.items[i]!,
      parentVersions: request.parentVersions,
      fence: request.fence,
      completeOnStop: request.completeOnStop,
      maxIterations: request.maxIterations,
    });
  }
}

describe("mapDispatcher", () => {
  it('"done": the items ran elsewhere, the node gathers their stored results in item order', async () => {
    calls.clear();
    const checkpointer = new MemoryCheckpointer();
    const requests: MapDispatchRequest[] = [];
    const worker = new Runner({ checkpointer });
    const runner = new Runner({
      checkpointer,
      mapDispatcher: {
        minItems: 3,
        async dispatch(request) {
          requests.push(request);
          await runAll(worker, request);
          return "done";
        },
      },
    });
    const r = await runner.run(flow, { values: { n: 5, offset: 10 }, workflowId: "wf" });
    expect([...calls.entries()].sort((a, b) => a[0] - b[0])).toEqual([0, 1, 2, 3, 4].map((x) => [x, 1]));
    const local = await new Runner().run(flow, { values: { n: 5, offset: 10 } });
    expect(r.status).toBe("completed");
    expect(r.values.ys).toEqual([10, 11, 14, 19, 26]);
    expect(r.values.sum).toBe(local.values.sum);
    expect(requests).toHaveLength(1);
    const [req] = requests;
    expect(req!.rootWorkflowId).toBe("wf");
    expect(req!.parentWorkflowId).toBe("wf");
    expect(req!.nodeName).toBe("items");
    expect(req!.count).toBe(5);
    expect(req!.items[3]).toEqual({ x: 3, k: 10 });
    expect(req!.itemWorkflowId(3)).toBe("wf/items/3");
    // The root's first claim: epoch 1.
    expect(req!.fence).toEqual({ epoch: 1, workflowId: "wf" });
    expect((await checkpointer.getWorkflow("wf/items/4"))?.parentId).toBe("wf");
    await runner.close();
  });

  it("below minItems the map runs in this process; no checkpointer or a bad dispatcher is refused", async () => {
    const checkpointer = new MemoryCheckpointer();
    let asked = 0;
    const runner = new Runner({
      checkpointer,
      mapDispatcher: { minItems: 6, dispatch: async () => (asked++, "parked") },
    });
    const r = await runner.run(flow, { values: { n: 5, offset: 0 } });
    expect(r.status).toBe("completed");
    expect(r.values.ys).toEqual([0, 1, 4, 9, 16]);
    expect(asked).toBe(0);
    const noStore = (() => {
      try {
        return new Runner({ mapDispatcher: { minItems: 1, dispatch: async () => "done" } });
      } catch (e) {
        return e;
      }
    })();
    expect(noStore).toMatchObject({ _tag: "InvalidOptionError", option: "mapDispatcher" });
    const badMinItems = (() => {
      try {
        return new Runner({ checkpointer, mapDispatcher: { minItems: 0 } as never });
      } catch (e) {
        return e;
      }
    })();
    expect(badMinItems).toMatchObject({ _tag: "InvalidOptionError", option: "mapDispatcher" });
    expect((badMinItems as Error).message).toContain("minItems (an integer ≥ 1)");
    const item = await runMapItem(new Runner({ checkpointer }), items, {
      workflowId: "",
      fence: { epoch: 1 },
    } as never).catch((e: unknown) => e);
    expect(isInvalidOptionError(item)).toBe(true);
    expect((item as { option: string }).option).toBe("workflowId");
    const noCheckpointer = await runMapItem(new Runner(), items, {} as never).catch((e: unknown) => e);
    expect(noCheckpointer).toMatchObject({ _tag: "GraphConfigError" });
    expect((noCheckpointer as Error).message).toContain("needs a runner with a checkpointer");
  });

  it('"inline" runs the items here as if there were no dispatcher', async () => {
    const runner = new Runner({
      checkpointer: new MemoryCheckpointer(),
      mapDispatcher: { minItems: 1, dispatch: async () => "inline" },
    });
    const r = await runner.run(flow, { values: { n: 4, offset: 1 } });
    expect(r.values.ys).toEqual([1, 2, 5, 10]);
  });

  it('"parked" ends the run paused (map_dispatched); the resume gathers without re-running finished items', async () => {
    calls.clear();
    const checkpointer = new MemoryCheckpointer();
    const worker = new Runner({ checkpointer });
    let pending: MapDispatchRequest | undefined;
    let answers = 0;
    const runner = new Runner({
      checkpointer,
      mapDispatcher: {
        minItems: 2,
        async dispatch(request) {
          answers++;
          if (pending === undefined) {
            pending = request;
            return "parked";
          }
          return "done";
        },
      },
    });
    const handle = runner.start(flow, { values: { n: 6, offset: 0 }, workflowId: "p" });
    const pausedEvents: unknown[] = [];
    for await (const e of handle.events) if (e.type === "Paused") pausedEvents.push(e);
    const parked = await handle.result;
    expect(parked.status).toBe("paused");
    // The event says why the run paused: no human is asked for anything.
    expect(pausedEvents).toEqual([
      expect.objectContaining({ reason: "map_dispatched", nodeName: "items", value: { items: 6 }, responseKey: "" }),
    ]);
    expect(parked.pause).toEqual({
      reason: "map_dispatched",
      nodeName: "items",
      value: { items: 6 },
      responseKey: "",
      visit: 3,
    });
    expect((await checkpointer.getWorkflow("p"))?.status).toBe("paused");
    // The lease is given back while the items run elsewhere; their writes carry the parked run's fence.
    expect((await checkpointer.getWorkflow("p"))?.lease).toBeUndefined();
    await runAll(worker, pending!);
    const resumed = await runner.run(flow, { workflowId: "p" });
    expect(resumed.status).toBe("completed");
    expect(resumed.values.ys).toEqual([0, 1, 4, 9, 16, 25]);
    expect(resumed.values.sum).toBe(55);
    expect(answers).toBe(2);
    // Every item once; prep once (the resume replays it).
    expect([...calls.entries()].sort((a, b) => a[0] - b[0])).toEqual([0, 1, 2, 3, 4, 5].map((x) => [x, 1]));
    await runner.close();
  });

  it("a failed item fails the node with the first failed item (in item order), as in-process", async () => {
    const checkpointer = new MemoryCheckpointer();
    const worker = new Runner({ checkpointer });
    const runner = new Runner({
      checkpointer,
      mapDispatcher: {
        minItems: 1,
        async dispatch(request) {
          // Later items first: the node still reports the lowest failed index.
          for (const i of [4, 3, 2, 1, 0]) await runAll(worker, request, (j) => j === i);
          return "done";
        },
      },
    });
    const neg = node({ name: "prep", output: "xs" }, () => [1, -2, 3, -4, 5]);
    const g = new Graph([neg, mapped, total], { name: "neg" });
    const error = await runner.run(g, { values: { offset: 0 }, workflowId: "f1" }).catch((e: unknown) => e);
    const local = await new Runner().run(g, { values: { offset: 0 } }).catch((e: unknown) => e);
    expect(isNodeExecutionError(error)).toBe(true);
    expect((error as Error).message).toBe((local as Error).message);
    expect((error as { nodeName: string }).nodeName).toBe("items[1]/square");
    const cont = (await runner.run(g, { values: { offset: 0 }, workflowId: "f2", errorHandling: "continue" })) as
      | RunResult
      | undefined;
    expect(cont?.status).toBe("failed");
    const nested = cont?.values.items as RunResult;
    expect(nested.status).toBe("failed");
    expect(nested.values).toEqual({ y: [1, undefined, 9, undefined, 25] });
    expect(cont?.values.ys).toBeUndefined();
  });

  it('"done" with items that never ran: the node is stopped, the run ends stopped', async () => {
    const checkpointer = new MemoryCheckpointer();
    const worker = new Runner({ checkpointer });
    const runner = new Runner({
      checkpointer,
      mapDispatcher: {
        minItems: 1,
        async dispatch(request) {
          await runAll(worker, request, (i) => i < 2);
          return "done";
        },
      },
    });
    const r = await runner.run(flow, { values: { n: 4, offset: 0 }, workflowId: "s" });
    expect(r.status).toBe("stopped");
    expect((r.values.items as RunResult).values).toEqual({ y: [0, 1, undefined, undefined] });
    expect(r.values.sum).toBeUndefined();
  });

  it("a map inside a nested graph parks the whole run tree; the resume goes back down and gathers", async () => {
    const checkpointer = new MemoryCheckpointer();
    const worker = new Runner({ checkpointer });
    const seen: MapDispatchRequest[] = [];
    const runner = new Runner({
      checkpointer,
      mapDispatcher: {
        minItems: 1,
        async dispatch(request) {
          seen.push(request);
          if (seen.length > 1) return "done";
          await runAll(worker, request);
          return "parked";
        },
      },
    });
    const inner = new Graph([prep, mapped, total], { name: "inner" });
    const after = node({ name: "after", output: "out" }, ({ sum }: { sum: number }) => sum * 2);
    const outer = new Graph([inner.asNode(), after], { name: "outer" });
    const parked = await runner.run(outer, { values: { n: 3, offset: 1 }, workflowId: "o" });
    expect(parked.status).toBe("paused");
    expect(parked.pause).toEqual({
      reason: "map_dispatched",
      nodeName: "inner/items",
      value: { items: 3 },
      responseKey: "",
      visit: 2,
    });
    expect(seen[0]!.rootWorkflowId).toBe("o");
    expect(seen[0]!.parentWorkflowId).toBe("o/inner");
    expect(seen[0]!.itemWorkflowId(2)).toBe("o/inner/items/2");
    const done = await runner.run(outer, { workflowId: "o" });
    expect(done.status).toBe("completed");
    expect(done.values.out).toBe(2 * (1 + 2 + 5));
    expect(seen.map((r) => r.parentWorkflowId)).toEqual(["o/inner", "o/inner"]);
  });

  it("runMapItem after the root was claimed again: the item's writes are fenced, it fails LeaseLostError", async () => {
    const checkpointer = new MemoryCheckpointer();
    const worker = new Runner({ checkpointer });
    let request: MapDispatchRequest | undefined;
    const runner = new Runner({
      checkpointer,
      mapDispatcher: { minItems: 1, dispatch: async (r) => ((request ??= r), "parked") },
    });
    await runner.run(flow, { values: { n: 2, offset: 0 }, workflowId: "z" });
    await checkpointer.claimWorkflow("z", { owner: "someone-else", ttlMs: 60_000 });
    const error = await runAll(worker, request!).catch((e: unknown) => e);
    expect((error as { _tag: string })._tag).toBe("LeaseLostError");
    expect(await checkpointer.getSteps("z/items/0")).toEqual([]);
  });
});
