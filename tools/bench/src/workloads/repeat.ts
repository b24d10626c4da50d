// Workload 2: a 10-node chain run 1,000 times (sequentially). Per-run time.
import { Runner } from "@graph/runtime";
import type { Workload } from "../lib/context.js";
import { chainSteps, check, floorChain, ourChain } from "../lib/graphs.js";
import { langgraphChain } from "../lib/langgraph.js";
import { type Row, row, timeCell } from "../lib/results.js";
import { fmt, measureAll, progress } from "../lib/timing.js";

const LENGTH = 10;

export const repeat: Workload = {
  name: "repeat",
  title: "10-node chain run 1,000 times",
  async run(context): Promise<Row[]> {
    const runs = context.quick ? 100 : 1000;
    const expected = runs - 1 + LENGTH;
    const runner = new Runner();
    const graph = ourChain(LENGTH);
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
            for (let i = 0; i < runs; i++) last = runner.runSync(graph, { values: { v0: i } }).values[`v${LENGTH}`];
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
        targets: [{ kind: "speedupMin", threshold: 50 }],
        notes: [
          `per run, ${runs} sequential runs per repetition, median of ${context.reps} repetitions (LangGraph.js: ${context.slowReps})`,
          `ours via runSync: ${fmt(sync.value)} µs/run`,
        ],
        details: { runs, length: LENGTH, runSync: sync },
      }),
    ];
  },
};
