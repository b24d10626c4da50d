// Workload 2: a 10-node chain of async nodes run 1,000 times (sequentially). Per-run time. Also: the same with
// sync node functions (info), and the heap after 10,000 and 100,000 sequential runs on one Runner (must stay flat).
import type { Graph } from "@graph/core";
import { Runner } from "@graph/runtime";
import type { Workload } from "../lib/context.js";
import { chainSteps, check, floorChain, ourChain } from "../lib/graphs.js";
import { langgraphChain } from "../lib/langgraph.js";
import { type Row, row, timeCell } from "../lib/results.js";
import { fmt, measureAll, progress } from "../lib/timing.js";

/** heapUsed after a forced GC (needs --expose-gc) after `to / 10` and after `to` runs on one Runner. */
async function heapGrowth(runner: Runner, graph: Graph, to: number) {
  const gc = (globalThis as { gc?: () => void }).gc;
  const heapMB = () => {
    gc?.();
    gc?.();
    return process.memoryUsage().heapUsed / 1024 / 1024;
  };
  const from = to / 10;
  let i = 0;
  for (; i < from; i++) await runner.run(graph, { values: { v0: i } });
  const atFromMB = heapMB();
  for (; i < to; i++) await runner.run(graph, { values: { v0: i } });
  const atToMB = heapMB();
  progress("repeat", `heap after ${from} runs ${fmt(atFromMB)} MB, after ${to} runs ${fmt(atToMB)} MB`);
  return { from, to, atFromMB, atToMB, growthMB: atToMB - atFromMB, gc: gc !== undefined };
}

const LENGTH = 10;

export const repeat: Workload = {
  name: "repeat",
  title: "10-node chain run 1,000 times",
  async run(context): Promise<Row[]> {
    const runs = context.quick ? 100 : 1000;
    const expected = runs - 1 + LENGTH;
    const runner = new Runner();
    const graph = ourChain(LENGTH);
    const syncGraph = ourChain(LENGTH, "sync");
    const steps = chainSteps(LENGTH);
    const app = langgraphChain(LENGTH);
    const fast = { warmup: context.warmup, warmupMs: context.warmupMs, reps: context.reps };

    const m = await measureAll(
      {
        ours: {
          ...fast,
          run: async () => {
            let last: unknown;
            for (let i = 0; i < runs; i++) last = (await runner.run(graph, { values: { v0: i } })).values[`v${LENGTH}`];
            check("ours 10-chain", last, expected);
          },
        },
        oursSync: {
          ...fast,
          run: () => {
            let last: unknown;
            for (let i = 0; i < runs; i++) last = runner.runSync(syncGraph, { values: { v0: i } }).values[`v${LENGTH}`];
            check("ours 10-chain runSync", last, expected);
          },
        },
        floor: {
          ...fast,
          run: async () => {
            let last: unknown;
            for (let i = 0; i < runs; i++) last = (await floorChain(steps, i))[`v${LENGTH}`];
            check("floor 10-chain", last, expected);
          },
        },
        langgraph: {
          warmup: 1,
          reps: context.slowReps,
          warmupRun: async () => {
            for (let i = 0; i < Math.min(runs, 100); i++) await app.invoke({ v: i });
          },
          run: async () => {
            let last: unknown;
            for (let i = 0; i < runs; i++) last = (await app.invoke({ v: i }))["v"];
            check("LangGraph 10-chain", last, expected);
          },
        },
      },
      { onProgress: (message) => progress("repeat", message) },
    );
    const heap = await heapGrowth(runner, graph, context.quick ? 20_000 : 100_000);
    await runner.close();
    const perRun = 1000 / runs; // ms per repetition → µs per run
    const ours = timeCell(m.ours, perRun);
    const sync = timeCell(m.oursSync, perRun);
    const floor = timeCell(m.floor, perRun);
    const langgraph = timeCell(m.langgraph, perRun);
    progress(
      "repeat",
      `ours ${fmt(ours.value)}, runSync ${fmt(sync.value)}, floor ${fmt(floor.value)}, LangGraph.js ${fmt(langgraph.value)} µs/run`,
    );

    return [
      row({
        id: `chain-10x${runs}`,
        workload: "repeat",
        label: `chain of 10 nodes × ${runs.toLocaleString("en-US")} runs`,
        unit: "µs/run",
        ours,
        floor,
        langgraph,
        targets: [
          { kind: "overheadMax", threshold: 3 * LENGTH, description: "overhead ≤ 3 µs/node (30 µs/run)" },
          { kind: "speedupMin", threshold: 100 },
        ],
        notes: [
          `per run, ${runs} sequential runs per repetition, median of ${context.reps} repetitions (LangGraph.js: ${context.slowReps}); node functions \`async\``,
          `CPU-time medians: ours ${fmt(ours.cpu!)}, floor ${fmt(floor.cpu!)}, LangGraph.js ${fmt(langgraph.cpu!)} µs/run`,
          `sync node functions via runSync (info): ${fmt(sync.value)} µs/run`,
        ],
        details: { runs, length: LENGTH, runSync: sync },
      }),
      row({
        id: "heap-flat",
        workload: "repeat",
        label: `heap growth from ${heap.from.toLocaleString("en-US")} to ${heap.to.toLocaleString("en-US")} sequential runs, one Runner`,
        unit: "MB",
        ours: { value: heap.growthMB },
        floor: { skipped: "n/a" },
        langgraph: { skipped: "n/a" },
        targets: [{ kind: "max", threshold: 2, description: "flat heap (≤ 2 MB growth)" }],
        notes: [
          `heapUsed after a forced GC: ${fmt(heap.atFromMB)} MB after ${heap.from.toLocaleString("en-US")} runs, ${fmt(heap.atToMB)} MB after ${heap.to.toLocaleString("en-US")} (10-node async chain, no store, no listeners)`,
        ],
        details: heap,
      }),
    ];
  },
};
