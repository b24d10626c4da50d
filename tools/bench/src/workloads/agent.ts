// Workload 6: a 20-iteration agent loop: increment(count) → count, and a route gate back to increment until
// count reaches 20, then END. LangGraph.js: a StateGraph with a conditional edge. The increment node is `async`
// (ours, the floor and LangGraph.js alike); runSync with a sync increment is an info note.
import { Runner } from "@graph/runtime";
import type { Workload } from "../lib/context.js";
import { AGENT_ITERATIONS, check, floorAgentLoop, ourAgentLoop, ourMeteredAgentLoop } from "../lib/graphs.js";
import { langgraphAgentLoop } from "../lib/langgraph.js";
import { type Row, row, timeCell } from "../lib/results.js";
import { fmt, measureAll, progress } from "../lib/timing.js";

export const agent: Workload = {
  name: "agent",
  title: "20-iteration agent loop",
  async run(context): Promise<Row[]> {
    const runs = context.quick ? 50 : 200;
    const runner = new Runner();
    const graph = ourAgentLoop();
    const syncGraph = ourAgentLoop("sync");
    const metered = ourMeteredAgentLoop();
    const budget = { tokens: 1e9 };
    const app = langgraphAgentLoop();
    const fast = { warmup: context.warmup, warmupMs: context.warmupMs, reps: context.reps };

    const m = await measureAll(
      {
        ours: {
          ...fast,
          run: async () => {
            for (let i = 0; i < runs; i++)
              check(
                "ours agent loop",
                (await runner.run(graph, { values: { count: 0 } })).values["count"],
                AGENT_ITERATIONS,
              );
          },
        },
        oursBudget: {
          ...fast,
          run: async () => {
            for (let i = 0; i < runs; i++)
              check(
                "ours agent loop (ctx.usage, budget)",
                (await runner.run(metered, { values: { count: 0 }, budget })).values["count"],
                AGENT_ITERATIONS,
              );
          },
        },
        oursSync: {
          ...fast,
          run: () => {
            for (let i = 0; i < runs; i++)
              check(
                "ours agent loop (runSync)",
                runner.runSync(syncGraph, { values: { count: 0 } }).values["count"],
                AGENT_ITERATIONS,
              );
          },
        },
        floor: {
          ...fast,
          run: async () => {
            for (let i = 0; i < runs; i++) check("floor agent loop", await floorAgentLoop(0), AGENT_ITERATIONS);
          },
        },
        langgraph: {
          warmup: 1,
          reps: context.reps,
          run: async () => {
            for (let i = 0; i < runs; i++)
              check(
                "LangGraph agent loop",
                (await app.invoke({ count: 0 }, { recursionLimit: 100 }))["count"],
                AGENT_ITERATIONS,
              );
          },
        },
      },
      { onProgress: (message) => progress("agent", message) },
    );
    await runner.close();
    const perRun = 1000 / runs;
    const ours = timeCell(m.ours, perRun);
    const sync = timeCell(m.oursSync, perRun);
    const budgeted = timeCell(m.oursBudget, perRun);
    const floor = timeCell(m.floor, perRun);
    const langgraph = timeCell(m.langgraph, perRun);
    progress(
      "agent",
      `ours ${fmt(ours.value)}, runSync ${fmt(sync.value)}, floor ${fmt(floor.value)}, LangGraph.js ${fmt(langgraph.value)} µs/run`,
    );

    return [
      row({
        id: `agent-loop-${AGENT_ITERATIONS}x${runs}`,
        workload: "agent",
        label: `agent loop, ${AGENT_ITERATIONS} iterations × ${runs} runs`,
        unit: "µs/run",
        ours,
        floor,
        langgraph,
        targets: [{ kind: "speedupMin", threshold: 100 }],
        notes: [
          `per run, ${runs} sequential runs per repetition, median of ${context.reps} repetitions`,
          `ours via runSync: ${fmt(sync.value)} µs/run`,
          `ours with ctx.usage in every step, under a budget: ${fmt(budgeted.value)} µs/run`,
        ],
        details: { runs, iterations: AGENT_ITERATIONS, runSync: sync, budgeted },
      }),
    ];
  },
};
