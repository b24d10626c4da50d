// A fresh process's view of one engine, run by the `cold` workload under plain `node` (no tsx: what a user's
// serverless handler or CLI pays). Prints one JSON line:
// - importMs: importing the engine; firstRunMs: building and running a 1-node graph with an async node;
//   rssMb / maxRssMb: after that first run; cpuMs: the whole process's CPU time so far (bootstrap included);
// - warm-up: `warmRuns` runs of a 10-node async chain in this fresh process (µs/run, average), then after
//   `steadyMs` of further runs the same number again (the steady state of the same process).
//
//   node src/child/cold.mjs <ours|langgraph|mastra|node> <warmRuns> <steadyMs>
import { performance } from "node:perf_hooks";

const [engine = "ours", warmRunsArg = "1000", steadyMsArg = "2000"] = process.argv.slice(2);
const warmRuns = Number(warmRunsArg);
const steadyMs = Number(steadyMsArg);
const CHAIN = 10;

/** Each engine: import, a 1-node graph's first run, and a 10-node chain runner (built untimed). */
const engines = {
  async node() {
    return {
      firstRun: async () => (async ({ x }) => x * 2)({ x: 21 }),
      chain: () => {
        const fns = Array.from({ length: CHAIN }, () => async (v) => v + 1);
        return async () => {
          let v = 0;
          for (const fn of fns) v = await fn(v);
          return v;
        };
      },
    };
  },
  async ours() {
    const { Graph, node } = await import("@graph/core");
    const { Runner } = await import("@graph/runtime");
    return {
      firstRun: async () => {
        const graph = new Graph([node({ name: "double", output: "y" }, async ({ x }) => x * 2)], { name: "cold" });
        return (await new Runner().run(graph, { values: { x: 21 } })).values.y;
      },
      chain: () => {
        const nodes = Array.from({ length: CHAIN }, (_, i) =>
          node({ name: `n${i}`, inputs: [`v${i}`], output: `v${i + 1}` }, async (inputs) => inputs[`v${i}`] + 1),
        );
        const graph = new Graph(nodes, { name: "chain" });
        const runner = new Runner();
        return async () => (await runner.run(graph, { values: { v0: 0 } })).values[`v${CHAIN}`];
      },
    };
  },
  async langgraph() {
    const { Annotation, END, START, StateGraph } = await import("@langchain/langgraph");
    const State = Annotation.Root({ v: Annotation });
    return {
      firstRun: async () => {
        const app = new StateGraph(State)
          .addNode("double", async (s) => ({ v: s.v * 2 }))
          .addEdge(START, "double")
          .addEdge("double", END)
          .compile();
        return (await app.invoke({ v: 21 })).v;
      },
      chain: () => {
        const builder = new StateGraph(State);
        for (let i = 0; i < CHAIN; i++) builder.addNode(`n${i}`, async (s) => ({ v: s.v + 1 }));
        builder.addEdge(START, "n0");
        for (let i = 0; i + 1 < CHAIN; i++) builder.addEdge(`n${i}`, `n${i + 1}`);
        builder.addEdge(`n${CHAIN - 1}`, END);
        const app = builder.compile();
        return async () => (await app.invoke({ v: 0 })).v;
      },
    };
  },
  async mastra() {
    const { createStep, createWorkflow } = await import("@mastra/core/workflows");
    const { z } = await import("zod");
    const Value = z.object({ v: z.number() });
    const run = async (workflow, inputData) => (await (await workflow.createRun()).start({ inputData })).result.v;
    const step = (id, f) =>
      createStep({
        id,
        inputSchema: Value,
        outputSchema: Value,
        execute: async ({ inputData }) => ({ v: f(inputData.v) }),
      });
    return {
      firstRun: async () => {
        const workflow = createWorkflow({ id: "cold", inputSchema: Value, outputSchema: Value })
          .then(step("double", (v) => v * 2))
          .commit();
        return run(workflow, { v: 21 });
      },
      chain: () => {
        let workflow = createWorkflow({ id: "chain", inputSchema: Value, outputSchema: Value });
        for (let i = 0; i < CHAIN; i++) workflow = workflow.then(step(`n${i}`, (v) => v + 1));
        const committed = workflow.commit();
        return () => run(committed, { v: 0 });
      },
    };
  },
};

const load = engines[engine];
if (load === undefined) throw new Error(`unknown engine '${engine}' (${Object.keys(engines).join(", ")})`);
const started = performance.now();
const api = await load();
const imported = performance.now();
const y = await api.firstRun();
const ran = performance.now();
if (y !== 42) throw new Error(`${engine}: the first run returned ${y}, expected 42`);
const rssMb = process.memoryUsage().rss / 2 ** 20;
const maxRssMb = process.resourceUsage().maxRSS / 1024;
const cpu = process.cpuUsage();

const once = api.chain();
const timeRuns = async (count) => {
  const t0 = performance.now();
  for (let i = 0; i < count; i++) {
    const v = await once();
    if (v !== CHAIN) throw new Error(`${engine}: the chain returned ${v}, expected ${CHAIN}`);
  }
  return ((performance.now() - t0) * 1000) / count;
};
const firstRunsUs = warmRuns > 0 ? await timeRuns(warmRuns) : 0;
const until = performance.now() + steadyMs;
while (warmRuns > 0 && performance.now() < until) await timeRuns(Math.max(1, warmRuns / 10));
const steadyUs = warmRuns > 0 ? await timeRuns(warmRuns) : 0;

console.log(
  JSON.stringify({
    engine,
    importMs: imported - started,
    firstRunMs: ran - imported,
    rssMb,
    maxRssMb,
    cpuMs: (cpu.user + cpu.system) / 1000,
    warmRuns,
    firstRunsUs,
    steadyUs,
  }),
);
