// Workload `peers`: the headline in-memory workloads against Mastra workflows as well as LangGraph.js, warmed up
// (steady state): the 10-node chain, the 20-iteration agent loop and a fan-out (map) of N items, all with `async`
// step functions. Each contender runs its own number of sequential runs per repetition (the slow ones fewer), and
// every number is per run. The durable rows are in peersDurable.ts, the fresh-process rows in cold.ts.
import { Runner } from "@graph/runtime";
import type { BenchContext, Workload } from "../lib/context.js";
import {
  AGENT_ITERATIONS,
  chainSteps,
  check,
  expectedMapTotal,
  floorAgentLoop,
  floorChain,
  floorMap,
  items,
  ourAgentLoop,
  ourChain,
  ourMap,
} from "../lib/graphs.js";
import { langgraphAgentLoop, langgraphChain, langgraphMap } from "../lib/langgraph.js";
import { loadMastra, type MastraWorkflow, runMastra } from "../lib/mastra.js";
import { type Row, row, timeCell } from "../lib/results.js";
import { fmt, type MeasureOptions, measureAll, progress } from "../lib/timing.js";

const CHAIN = 10;

/** `runs` sequential calls of `once` per repetition; `once` checks its own answer. */
function repeated(
  context: BenchContext,
  runs: number,
  once: () => Promise<void>,
  slow = false,
): MeasureOptions & { runs: number } {
  return {
    runs,
    warmup: slow ? 1 : context.warmup,
    warmupMs: context.warmupMs,
    reps: slow ? context.slowReps : context.reps,
    run: async () => {
      for (let i = 0; i < runs; i++) await once();
    },
  };
}

type Contenders = Record<"ours" | "floor" | "langgraph" | "mastra", MeasureOptions & { runs: number }>;

async function measurePerRun(name: string, contenders: Contenders, perRunScale: number) {
  const m = await measureAll(contenders, { onProgress: (message) => progress("peers", `${name}: ${message}`) });
  const cell = (k: keyof Contenders) => timeCell(m[k], perRunScale / contenders[k].runs);
  return { ours: cell("ours"), floor: cell("floor"), langgraph: cell("langgraph"), mastra: cell("mastra") };
}

export const peers: Workload = {
  name: "peers",
  title: "10-node chain, agent loop and fan-out vs LangGraph.js and Mastra (in memory, steady state)",
  async run(context): Promise<Row[]> {
    const mastra = await loadMastra();
    const runner = new Runner();
    const many = context.quick ? 100 : 1000;
    const few = context.quick ? 10 : 50;
    const mapItems = context.quick ? 200 : 1000;
    const rows: Row[] = [];
    const note = (r: { ours: { value: number } }, others: Record<string, { value: number }>) =>
      Object.entries(others)
        .map(([k, c]) => `${k} ${fmt(c.value / r.ours.value)}×`)
        .join(", ");

    // 10-node chain
    {
      const graph = ourChain(CHAIN);
      const steps = chainSteps(CHAIN);
      const app = langgraphChain(CHAIN);
      const workflow = mastra.chain(CHAIN);
      const c = await measurePerRun(
        "chain",
        {
          ours: repeated(context, many, async () =>
            check("ours chain", (await runner.run(graph, { values: { v0: 0 } })).values[`v${CHAIN}`], CHAIN),
          ),
          floor: repeated(context, many, async () =>
            check("floor chain", (await floorChain(steps, 0))[`v${CHAIN}`], CHAIN),
          ),
          langgraph: repeated(context, few, async () =>
            check("LangGraph chain", (await app.invoke({ v: 0 }))["v"], CHAIN),
          ),
          mastra: repeated(context, few, async () =>
            check("Mastra chain", ((await runMastra(workflow, { v: 0 })) as { v: number }).v, CHAIN),
          ),
        },
        1000,
      );
      progress(
        "peers",
        `chain: ours ${fmt(c.ours.value)} µs/run; ${note(c, { LangGraph: c.langgraph, Mastra: c.mastra })}`,
      );
      rows.push(
        row({
          id: "peers-chain-10",
          workload: "peers",
          label: "chain of 10 async nodes, steady state",
          unit: "µs/run",
          ours: c.ours,
          floor: c.floor,
          langgraph: c.langgraph,
          peers: { mastra: c.mastra, dbos: { skipped: "durable rows only" } },
          targets: [{ kind: "peerSpeedupMin", peer: "mastra", threshold: 10 }],
          notes: [
            `per run; ${many} sequential runs per repetition (LangGraph.js and Mastra: ${few}); warm-up ≥ ${context.warmupMs} ms each`,
            "Mastra: createWorkflow().then(step)×10 with zod schemas (its default input validation), createRun().start() per run, no storage",
          ],
        }),
      );
    }

    // 20-iteration agent loop
    {
      const graph = ourAgentLoop();
      const app = langgraphAgentLoop();
      const workflow: MastraWorkflow = mastra.agentLoop();
      const c = await measurePerRun(
        "agent",
        {
          ours: repeated(context, many / 5, async () =>
            check(
              "ours agent loop",
              (await runner.run(graph, { values: { count: 0 } })).values["count"],
              AGENT_ITERATIONS,
            ),
          ),
          floor: repeated(context, many / 5, async () =>
            check("floor agent loop", await floorAgentLoop(0), AGENT_ITERATIONS),
          ),
          langgraph: repeated(context, few, async () =>
            check(
              "LangGraph agent loop",
              (await app.invoke({ count: 0 }, { recursionLimit: 100 }))["count"],
              AGENT_ITERATIONS,
            ),
          ),
          mastra: repeated(context, few, async () =>
            check(
              "Mastra agent loop",
              ((await runMastra(workflow, { count: 0 })) as { count: number }).count,
              AGENT_ITERATIONS,
            ),
          ),
        },
        1000,
      );
      progress(
        "peers",
        `agent: ours ${fmt(c.ours.value)} µs/run; ${note(c, { LangGraph: c.langgraph, Mastra: c.mastra })}`,
      );
      rows.push(
        row({
          id: "peers-agent-20",
          workload: "peers",
          label: "agent loop, 20 iterations, steady state",
          unit: "µs/run",
          ours: c.ours,
          floor: c.floor,
          langgraph: c.langgraph,
          peers: { mastra: c.mastra, dbos: { skipped: "durable rows only" } },
          targets: [
            { kind: "floorRatioMax", threshold: 5, description: "≤ 5× the floor" },
            { kind: "peerSpeedupMin", peer: "mastra", threshold: 10 },
          ],
          notes: [
            `per run; ${many / 5} sequential runs per repetition (LangGraph.js and Mastra: ${few})`,
            "Mastra: .dountil(increment, count ≥ 20); LangGraph.js: a conditional edge back to increment",
          ],
        }),
      );
    }

    // fan-out / map of N items
    {
      const graph = ourMap();
      const app = langgraphMap();
      const workflow = mastra.map();
      const xs = items(mapItems);
      const total = expectedMapTotal(mapItems);
      const c = await measurePerRun(
        "map",
        {
          ours: repeated(context, 5, async () =>
            check("ours map", (await runner.run(graph, { values: { x: xs } })).values["total"], total),
          ),
          floor: repeated(context, 5, async () => check("floor map", await floorMap(xs), total)),
          langgraph: repeated(
            context,
            1,
            async () => check("LangGraph map", (await app.invoke({ items: xs }))["total"], total),
            true,
          ),
          mastra: repeated(context, 1, async () => check("Mastra map", await runMastra(workflow, xs), total), true),
        },
        1000 / mapItems,
      );
      progress(
        "peers",
        `map: ours ${fmt(c.ours.value)} µs/item; ${note(c, { LangGraph: c.langgraph, Mastra: c.mastra })}`,
      );
      rows.push(
        row({
          id: `peers-map-${mapItems}`,
          workload: "peers",
          label: `fan-out (map) of ${mapItems.toLocaleString("en-US")} items, steady state`,
          unit: "µs/item",
          ours: c.ours,
          floor: c.floor,
          langgraph: c.langgraph,
          peers: { mastra: c.mastra, dbos: { skipped: "durable rows only" } },
          targets: [{ kind: "peerSpeedupMin", peer: "mastra", threshold: 10 }],
          notes: [
            "per item of one run (map + sum); ours: mapOver of a one-node inner graph; LangGraph.js: Send per item; Mastra: .foreach(square) (its default concurrency 1) then a sum step",
          ],
        }),
      );
    }
    await runner.close();
    return rows;
  },
};
