// `mapOver(..., { concurrency })`: at most that many items run at once, whichever path runs the items (plain
// promises when nothing listens and nothing is stored; fibers with events or a checkpointer), and it never raises the
// runner's own `maxConcurrency`.
import { MemoryCheckpointer } from "@graph/checkpoint";
import { Graph, node } from "@graph/core";
import { describe, expect, it } from "vitest";
import { Runner } from "../src/index.js";

/** A graph mapping an async node over `x`, recording how many items are inside the node at once. */
function probe(limit: number | undefined) {
  let running = 0;
  let peak = 0;
  const order: number[] = [];
  const slow = node({ output: "y" }, async function slow({ x }: { x: number }) {
    running++;
    peak = Math.max(peak, running);
    order.push(x);
    await new Promise((resolve) => setTimeout(resolve, 1 + (x % 3)));
    running--;
    return x * 10;
  });
  const inner = new Graph([slow], { name: "slow-one" });
  const mapped =
    limit === undefined ? inner.asNode().mapOver("x") : inner.asNode().mapOver("x", { concurrency: limit });
  return { graph: new Graph([mapped], { name: "slow-all" }), peak: () => peak, order };
}

const xs = Array.from({ length: 100 }, (_, i) => i);

describe("mapOver concurrency", () => {
  it("runs at most 3 of 100 items at once on the plain-promise path, in item order, with every result in place", async () => {
    const p = probe(3);
    const result = await new Runner().run(p.graph, { values: { x: xs } });
    expect(result.status).toBe("completed");
    expect(result.values.y).toEqual(xs.map((x) => x * 10));
    expect(p.peak()).toBe(3);
    expect(p.order).toEqual(xs);
  });

  it("runs at most 3 at once when the run is stored and streamed (the fiber path)", async () => {
    const p = probe(3);
    const runner = new Runner({ checkpointer: new MemoryCheckpointer() });
    const handle = runner.start(p.graph, { values: { x: xs }, workflowId: "limited" });
    let progress = 0;
    for await (const event of handle.events) if (event.type === "MapProgress") progress++;
    const result = await handle.result;
    expect(result.values.y).toEqual(xs.map((x) => x * 10));
    expect(progress).toBe(100);
    expect(p.peak()).toBe(3);
  });

  it("never raises the runner's maxConcurrency, and without a limit uses it", async () => {
    const capped = probe(50);
    await new Runner({ maxConcurrency: 4 }).run(capped.graph, { values: { x: xs } });
    expect(capped.peak()).toBe(4);
    const unlimited = probe(undefined);
    await new Runner({ maxConcurrency: 7 }).run(unlimited.graph, { values: { x: xs } });
    expect(unlimited.peak()).toBe(7);
  });

  it("keeps the definition hash: the limit is scheduling, not what the node computes", () => {
    const inner = new Graph(
      [
        node({ output: "y" }, async function ident({ x }: { x: number }) {
          return x;
        }),
      ],
      { name: "one" },
    );
    expect(inner.asNode().mapOver("x", { concurrency: 2 }).definitionHash).toBe(
      inner.asNode().mapOver("x").definitionHash,
    );
    expect(inner.asNode().mapOver("x", { concurrency: 2 }).mapOverConfig).toEqual({
      params: ["x"],
      mode: "zip",
      concurrency: 2,
    });
  });
});
