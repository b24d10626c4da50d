// Workload 1: a 1,000-node linear chain of async nodes, one run. Per-node time; scheduler overhead = (ours − floor)
// per node. Also: ours at 100 / 1,000 / 10,000 nodes (per-node cost must stay flat; 10,000 runs under the default
// maxIterations, which bounds a loop's iterations, not a DAG's depth), and sync node functions as info rows.
import { Runner } from "@graph/runtime";
import type { BenchContext, Workload } from "../lib/context.js";
import { chainSteps, check, type FnKind, floorChain, ourChain } from "../lib/graphs.js";
import { langgraphChain } from "../lib/langgraph.js";
import { type Row, row, timeCell } from "../lib/results.js";
import { fmt, type MeasureOptions, measure, measureAll, progress } from "../lib/timing.js";

function oursOptions(
  runner: Runner,
  length: number,
  context: BenchContext,
  mode: "run" | "runSync",
  kind: FnKind,
): MeasureOptions {
  const graph = ourChain(length, kind);
  const options = { values: { v0: 0 } };
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
  title: "1,000-node linear chain (async nodes), one run",
  async run(context): Promise<Row[]> {
    const length = context.quick ? 200 : 1000;
    const perNode = 1000 / length; // ms per run → µs per node
    const runner = new Runner();
    const steps = chainSteps(length);
    const syncSteps = chainSteps(length, "sync");
    const app = langgraphChain(length);
    const fast = { warmup: context.warmup, warmupMs: context.warmupMs, reps: context.reps };

    const m = await measureAll(
      {
        ours: oursOptions(runner, length, context, "run", "async"),
        oursSyncFns: oursOptions(runner, length, context, "run", "sync"),
        oursRunSync: oursOptions(runner, length, context, "runSync", "sync"),
        floor: { ...fast, run: async () => check("floor chain", (await floorChain(steps, 0))[`v${length}`], length) },
        floorSyncFns: {
          ...fast,
          run: async () => check("floor chain", (await floorChain(syncSteps, 0))[`v${length}`], length),
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
    const syncFns = timeCell(m.oursSyncFns, perNode);
    const runSync = timeCell(m.oursRunSync, perNode);
    const floor = timeCell(m.floor, perNode);
    const floorSync = timeCell(m.floorSyncFns, perNode);
    const langgraph = timeCell(m.langgraph, perNode);
    progress(
      "chain",
      `ours ${fmt(ours.value)} (cpu ${fmt(ours.cpu!)}), floor ${fmt(floor.value)}, LangGraph.js ${fmt(langgraph.value)} µs/node; ` +
        `sync fns: ours ${fmt(syncFns.value)}, runSync ${fmt(runSync.value)}, floor ${fmt(floorSync.value)} µs/node`,
    );

    // Linearity: per-node cost should stay flat as the chain grows (readiness is incremental).
    const lengths = context.quick ? [50, 100, 200] : [100, 1000, 10_000];
    const scaling: Record<string, { value: number; cpu: number }> = {};
    for (const n of lengths) {
      const cell = timeCell(await measure(oursOptions(runner, n, context, "run", "async")), 1000 / n);
      scaling[String(n)] = { value: cell.value, cpu: cell.cpu! };
    }
    const first = scaling[String(lengths[0])]!;
    const last = scaling[String(lengths[lengths.length - 1])]!;
    const spread =
      Math.max(...lengths.map((n) => scaling[String(n)]!.cpu)) /
      Math.min(...lengths.map((n) => scaling[String(n)]!.cpu));
    progress(
      "chain",
      `ours per node by length (cpu): ${lengths.map((n) => `${n}: ${fmt(scaling[String(n)]!.cpu)}`).join(", ")} µs`,
    );
    await runner.close();

    return [
      row({
        id: `chain-${length}`,
        workload: "chain",
        label: `chain of ${length.toLocaleString("en-US")} async nodes, 1 run`,
        unit: "µs/node",
        ours,
        floor,
        langgraph,
        targets: [
          { kind: "overheadMax", threshold: 3, description: "overhead ≤ 3 µs/node" },
          { kind: "speedupMin", threshold: 100 },
        ],
        notes: [
          `per node, median of ${context.reps} runs (LangGraph.js: ${context.slowReps}); graph construction not timed; node functions \`async\``,
          `CPU-time medians: ours ${fmt(ours.cpu!)}, floor ${fmt(floor.cpu!)}, LangGraph.js ${fmt(langgraph.cpu!)} µs/node`,
        ],
        details: { length, perNodeUsByLength: scaling },
      }),
      row({
        id: `chain-${length}-sync`,
        workload: "chain",
        label: `chain of ${length.toLocaleString("en-US")} sync nodes, 1 run (info)`,
        unit: "µs/node",
        ours: syncFns,
        floor: floorSync,
        langgraph: { skipped: "see the async row" },
        targets: [{ kind: "max", threshold: 3, description: "sync nodes ≤ 3 µs/node" }],
        notes: [`node functions synchronous; ours via runSync: ${fmt(runSync.value)} µs/node`],
        details: { runSync },
      }),
      row({
        id: "chain-scaling",
        workload: "chain",
        label: `per-node cost, chains of ${lengths.map((n) => n.toLocaleString("en-US")).join(" / ")} async nodes`,
        unit: "×",
        ours: { value: spread },
        floor: { skipped: "n/a" },
        langgraph: { skipped: "n/a" },
        targets: [{ kind: "max", threshold: 1.3, description: "slowest/fastest per node ≤ 1.3×" }],
        notes: [
          `CPU µs/node by length: ${lengths.map((n) => `${n}: ${fmt(scaling[String(n)]!.cpu)}`).join(", ")} (last vs first ×${fmt(last.cpu / first.cpu)}); run with the default maxIterations`,
        ],
        details: { perNodeUsByLength: scaling },
      }),
    ];
  },
};
