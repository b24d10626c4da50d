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

/**
 * Ten trivial nodes in a chain whose first node also outputs `t0`, the wall clock (ms since the epoch, sub-ms) at
 * its start, for submit→first-node latency: the submitter records the same clock when it submits.
 */
export const queueTimed = new Graph(
  [
    node({ name: "n0", inputs: ["x"], output: ["v0", "t0"] }, async ({ x }: { x: number }) => [
      x + 1,
      performance.timeOrigin + performance.now(),
    ]),
    ...Array.from({ length: 9 }, (_, j) =>
      node({ name: `n${j + 1}`, inputs: [`v${j}`], output: `v${j + 1}` }, async (v: Record<string, number>) => {
        return (v[`v${j}`] ?? 0) + 1;
      }),
    ),
  ],
  { name: "bench-queue-timed" },
);

/** Iterations of the CPU-bound item: ≈ 1 ms of CPU on the bench machine (a fixed amount of work, not a timer). */
const CPU_ITERATIONS = 43_000;

/** One CPU-bound node: a fixed ≈ 1 ms computation (a linear congruential walk from x). */
export const queueCpu = new Graph(
  [
    node({ name: "burn", output: "y" }, ({ x }: { x: number }) => {
      let h = x;
      for (let i = 0; i < CPU_ITERATIONS; i++) h = (h * 1103515245 + 12345) % 2147483648;
      return h;
    }),
  ],
  { name: "bench-queue-cpu" },
);

/**
 * Ten nodes of 50 ms each; in a worker process every node start is reported to the bench over IPC with the wall
 * clock (the SIGKILL row times the first step on the rescuing worker).
 */
export const queueSlow = new Graph(
  Array.from({ length: 10 }, (_, i) =>
    node(
      { name: `s${i}`, inputs: [i === 0 ? "x" : `w${i - 1}`, "id"], output: `w${i}` },
      async (v: Record<string, number | string>) => {
        process.send?.({ type: "step", node: `s${i}`, id: v["id"], pid: process.pid, at: Date.now() });
        await new Promise((resolve) => setTimeout(resolve, 50));
        return Number(v[i === 0 ? "x" : `w${i - 1}`] ?? 0) + 1;
      },
    ),
  ),
  { name: "bench-queue-slow" },
);

export const queueGraphs = [queueItem, queueChain, queueCpu, queueSlow, queueTimed];
