// The queue workload's graphs, imported by the bench and by its worker processes (same source, same hash).
import { Graph, node } from "@graph/core";

/** One trivial node: y = x + 1 (the per-item overhead of a map). */
export const queueItem = new Graph([node({ name: "inc", output: "y" }, ({ x }: { x: number }) => x + 1)], {
  name: "bench-queue-item",
});

/** Ten trivial nodes in a chain. */
export const queueChain = new Graph(
  Array.from({ length: 10 }, (_, i) =>
    node({ name: `n${i}`, inputs: [i === 0 ? "x" : `v${i - 1}`], output: `v${i}` }, (v: Record<string, number>) => {
      return (v[i === 0 ? "x" : `v${i - 1}`] ?? 0) + 1;
    }),
  ),
  { name: "bench-queue-chain" },
);
