// Workload 1: a 1,000-node linear chain, one run. Per-node time; scheduler overhead = (ours − floor) per node.
// Also: ours at several chain lengths (cost must grow linearly) and through runSync.
import { Runner } from "@graph/runtime";
import type { BenchContext, Workload } from "../lib/context.js";
import { chainSteps, check, floorChain, ourChain } from "../lib/graphs.js";
import { langgraphChain } from "../lib/langgraph.js";
import { type Row, row, timeCell } from "../lib/results.js";
import { fmt, type MeasureOptions, measure, measureAll, progress } from "../lib/timing.js";

function oursOptions(runner: Runner, length: number, context: BenchContext, mode: "run" | "runSync"): MeasureOptions {
  const graph = ourChain(length);
  const options = { values: { v0: 0 }, maxIterations: length + 10 };
  return {
    warmup: context.warmup,
    warmupMs: context.warmupMs,
    reps: context.reps,
    run: async () => {
      const result = mode === "run" ? await runner.run(graph, options) : runner.runSync(graph, options);
      check(`ours chain ${length}`, result.values[`v${length}`], length);
    },
  };
}

export const chain: Workload = {
  name: "chain",
  title: "1,000-node linear chain, one run",
  async run(context): Promise<Row[]> {
    const length = context.quick ? 200 : 1000;
    const perNode = 1000 / length; // ms per run → µs per node
    const runner = new Runner();
    const steps = chainSteps(length);
    const app = langgraphChain(length);

    const m = await measureAll(
      {
        ours: oursOptions(runner, length, context, "run"),
        oursSync: oursOptions(runner, length, context, "runSync"),
        floor: {
          warmup: context.warmup,
          warmupMs: context.warmupMs,
          reps: context.reps,
          run: async () => check("floor chain", (await floorChain(steps, 0))[`v${length}`], length),
        },
        langgraph: {
          warmup: 1,
          reps: context.slowReps,
          run: async () =>
            check("LangGraph chain", (await app.invoke({ v: 0 }, { recursionLimit: length + 10 }))["v"], length),
        },
      },
      { onProgress: (message) => progress("chain", message) },
    );
    const ours = timeCell(m.ours, perNode);
    const sync = timeCell(m.oursSync, perNode);
    const floor = timeCell(m.floor, perNode);
    const langgraph = timeCell(m.langgraph, perNode);
    progress(
      "chain",
      `ours ${fmt(ours.value)}, runSync ${fmt(sync.value)}, floor ${fmt(floor.value)}, LangGraph.js ${fmt(langgraph.value)} µs/node`,
    );

    // Linearity: per-node cost should stay flat as the chain grows (readiness is incremental).
    const lengths = context.quick ? [50, 100, 200] : [250, 500, 1000, 2000];
    const scaling: Record<string, number> = {};
    for (const n of lengths)
      scaling[String(n)] = timeCell(await measure(oursOptions(runner, n, context, "run")), 1000 / n).value;
    const first = scaling[String(lengths[0])]!;
    const last = scaling[String(lengths[lengths.length - 1])]!;
    progress(
      "chain",
      `ours per node by length: ${lengths.map((n) => `${n}: ${fmt(scaling[String(n)]!)}`).join(", ")} µs`,
    );
    await runner.close();

    return [
      row({
        id: `chain-${length}`,
        workload: "chain",
        label: `chain of ${length.toLocaleString("en-US")} nodes, 1 run`,
        unit: "µs/node",
        ours,
        floor,
        langgraph,
        targets: [
          { kind: "overheadMax", threshold: 10, description: "overhead ≤ 10 µs/node" },
          { kind: "speedupMin", threshold: 50 },
        ],
        notes: [
          `per node, median of ${context.reps} runs (LangGraph.js: ${context.slowReps}); graph construction not timed`,
          `ours via runSync: ${fmt(sync.value)} µs/node`,
          `ours per node by chain length ${lengths.join("/")}: ${lengths.map((n) => fmt(scaling[String(n)]!)).join(" / ")} µs ` +
            `(${lengths[lengths.length - 1]} vs ${lengths[0]}: ×${fmt(last / first)} per node; 1.0 = perfectly linear)`,
        ],
        details: { length, runSync: sync, perNodeUsByLength: scaling },
      }),
    ];
  },
};
