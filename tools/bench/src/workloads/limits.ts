// Node limits (`node({ concurrency, rateLimit })`): what a permit costs per node, in the runner and through a store,
// and what a per-key limit costs in throughput against one unkeyed limit of the same total parallelism.
// - permit overhead: the 10-node async chain with every node limited (a limit it never reaches) vs the same chain
//   unlimited, per node; in one runner, and on a SQLite file where each permit is a lease on a slot record.
// - keyed vs unkeyed: 96 concurrent runs of a 2 ms async call, 4 tenants × limit 2 vs one limit of 8.
// - the same through a store: two runners on one SQLite file (permits shared), with the permit release notification
//   (`permitSignal`, an in-process bus here: what `RedisPermitSignal` does across processes) and without it.
import { EventEmitter } from "node:events";
import path from "node:path";
import { SqliteCheckpointer } from "@graph/checkpoint-sqlite";
import { Graph, node } from "@graph/core";
import { type PermitSignal, Runner } from "@graph/runtime";
import type { BenchContext, Workload } from "../lib/context.js";
import { chainSteps, floorChain } from "../lib/graphs.js";
import { type Row, row, timeCell } from "../lib/results.js";
import { fmt, measureAll, progress } from "../lib/timing.js";

const LENGTH = 10;

function chain(limited: boolean): Graph {
  const nodes = chainSteps(LENGTH).map((s) =>
    node({ name: s.name, inputs: [s.input], output: s.output, ...(limited ? { concurrency: 1_000 } : {}) }, s.fn),
  );
  return new Graph(nodes, { name: limited ? "limited-chain" : "chain" });
}

function tenantGraph(keyed: boolean): Graph {
  const call = node(
    {
      output: "reply",
      concurrency: keyed ? { key: ({ tenant }: { tenant: string }) => tenant, limit: 2 } : 8,
    },
    async function call({ tenant }: { tenant: string }) {
      await new Promise((resolve) => setTimeout(resolve, 2));
      return tenant;
    },
  );
  return new Graph([call], { name: keyed ? "keyed" : "unkeyed" });
}

export const limits: Workload = {
  name: "limits",
  title: "node limits: permit overhead per node, keyed vs unkeyed throughput",
  async run(context: BenchContext): Promise<Row[]> {
    const runs = context.quick ? 50 : 500;
    const plain = chain(false);
    const limited = chain(true);
    const steps = chainSteps(LENGTH);
    const memory = new Runner();
    const inProcess = await measureAll(
      {
        ours: {
          warmup: 3,
          warmupMs: context.warmupMs,
          reps: context.reps,
          run: async () => {
            for (let i = 0; i < runs; i++) await memory.run(limited, { values: { v0: i } });
          },
        },
        unlimited: {
          warmup: 3,
          warmupMs: context.warmupMs,
          reps: context.reps,
          run: async () => {
            for (let i = 0; i < runs; i++) await memory.run(plain, { values: { v0: i } });
          },
        },
        floor: {
          warmup: 3,
          warmupMs: context.warmupMs,
          reps: context.reps,
          run: async () => {
            for (let i = 0; i < runs; i++) await floorChain(steps, i);
          },
        },
      },
      { onProgress: (message) => progress("limits", message) },
    );
    const perNode = 1_000 / (runs * LENGTH);
    const ours = timeCell(inProcess.ours, perNode);
    const unlimited = timeCell(inProcess.unlimited, perNode);
    const floor = timeCell(inProcess.floor, perNode);
    progress("limits", `in one runner: limited ${fmt(ours.value)}, unlimited ${fmt(unlimited.value)} µs/node`);

    const storeRuns = context.quick ? 10 : 50;
    let runner: Runner | undefined;
    const onSqlite = (graph: Graph, who: string) => ({
      warmup: 1,
      reps: context.slowReps,
      before: async (rep: number) => {
        const checkpointer = new SqliteCheckpointer({ path: path.join(context.tmpDir, `limits-${who}-${rep}.db`) });
        await checkpointer.setup();
        runner = new Runner({ checkpointer });
      },
      run: async (rep: number) => {
        for (let i = 0; i < storeRuns; i++) await runner!.run(graph, { values: { v0: i }, workflowId: `w${rep}-${i}` });
        await runner!.close();
      },
    });
    const sqlite = await measureAll(
      { limited: onSqlite(limited, "limited"), unlimited: onSqlite(plain, "plain") },
      { onProgress: (message) => progress("limits", message) },
    );
    const sqlitePerNode = 1_000 / (storeRuns * LENGTH);
    const sqliteLimited = timeCell(sqlite.limited, sqlitePerNode);
    const sqlitePlain = timeCell(sqlite.unlimited, sqlitePerNode);
    progress(
      "limits",
      `SQLite: limited ${fmt(sqliteLimited.value)}, unlimited ${fmt(sqlitePlain.value)} µs/node (permit: ${fmt(sqliteLimited.value - sqlitePlain.value)})`,
    );

    const concurrent = 96;
    const tenants = ["a", "b", "c", "d"];
    const burst = (graph: Graph) => async () => {
      await Promise.all(
        Array.from({ length: concurrent }, (_, i) => memory.run(graph, { values: { tenant: tenants[i % 4] } })),
      );
    };
    const keyedGraph = tenantGraph(true);
    const unkeyedGraph = tenantGraph(false);
    const throughput = await measureAll(
      {
        keyed: { warmup: 2, reps: context.reps, run: burst(keyedGraph) },
        unkeyed: { warmup: 2, reps: context.reps, run: burst(unkeyedGraph) },
      },
      { onProgress: (message) => progress("limits", message) },
    );
    const keyed = timeCell(throughput.keyed, 1 / concurrent);
    const unkeyed = timeCell(throughput.unkeyed, 1 / concurrent);
    progress("limits", `keyed ${fmt(keyed.value)}, unkeyed ${fmt(unkeyed.value)} ms/run`);

    const store = await storeThroughput(context, tenantGraph(true), tenantGraph(false));

    return [
      ...store,
      row({
        id: "limits-permit-in-runner",
        workload: "limits",
        label: "Node limit, permit overhead in one runner",
        unit: "µs/node",
        ours,
        floor,
        langgraph: { skipped: "no per-node concurrency limit" },
        notes: [
          `10-node async chain × ${runs} runs, every node \`concurrency: 1000\` (never reached); unlimited chain: ${fmt(unlimited.value)} µs/node, so a permit costs ${fmt(ours.value - unlimited.value)} µs/node`,
        ],
        details: { unlimitedUsPerNode: unlimited.value },
      }),
      row({
        id: "limits-permit-sqlite",
        workload: "limits",
        label: "Node limit on SQLite (permits shared by every runner), per node",
        unit: "µs/node",
        ours: sqliteLimited,
        floor: sqlitePlain,
        langgraph: { skipped: "no per-node concurrency limit" },
        notes: [
          `10-node async chain × ${storeRuns} workflows on a SQLite file; "floor" here is the same chain without limits, so the difference is the permit: a claim and a release of a slot record per node`,
        ],
      }),
      row({
        id: "limits-keyed-vs-unkeyed",
        workload: "limits",
        label: "Keyed limit (4 keys × 2) vs one limit of 8, per run",
        unit: "ms/run",
        ours: keyed,
        floor: unkeyed,
        langgraph: { skipped: "no keyed limits" },
        targets: [{ kind: "floorRatioMax", threshold: 1.2, description: "keyed within 20% of unkeyed" }],
        notes: [
          `${concurrent} concurrent runs of one node awaiting a 2 ms timer, in one runner; "floor" is the unkeyed limit of the same total parallelism`,
        ],
      }),
    ];
  },
};

/** One process's stand-in for a pub/sub channel: what every runner of the bench's store subscribes to. */
function busSignal(): PermitSignal {
  const bus = new EventEmitter();
  bus.setMaxListeners(0);
  return {
    notify: (key) => void bus.emit(key),
    subscribe: (key, onReleased) => {
      bus.on(key, onReleased);
      return () => void bus.off(key, onReleased);
    },
  };
}

/** 48 runs on each of two runners sharing one SQLite file: keyed (4 × 2) with and without the signal, unkeyed (8). */
async function storeThroughput(context: BenchContext, keyedGraph: Graph, unkeyedGraph: Graph): Promise<Row[]> {
  const tenants = ["a", "b", "c", "d"];
  let runners: Runner[] = [];
  const case_ = (graph: Graph, who: string, signal: boolean) => ({
    warmup: 1,
    reps: context.slowReps,
    before: async (rep: number) => {
      const file = path.join(context.tmpDir, `limits-store-${who}-${rep}.db`);
      const permitSignal = signal ? busSignal() : undefined;
      runners = [];
      for (let r = 0; r < 2; r++) {
        const checkpointer = new SqliteCheckpointer({ path: file });
        await checkpointer.setup();
        runners.push(new Runner({ checkpointer, ...(permitSignal === undefined ? {} : { permitSignal }) }));
      }
    },
    run: async (rep: number) => {
      await Promise.all(
        Array.from({ length: 96 }, (_, i) =>
          runners[i % 2]!.run(graph, { values: { tenant: tenants[i % 4] }, workflowId: `s${rep}-${i}` }),
        ),
      );
      await Promise.all(runners.map((r) => r.close()));
    },
  });
  const measured = await measureAll(
    {
      keyed: case_(keyedGraph, "keyed", true),
      keyedPolling: case_(keyedGraph, "polling", false),
      unkeyed: case_(unkeyedGraph, "unkeyed", true),
    },
    { onProgress: (message) => progress("limits", message) },
  );
  const keyed = timeCell(measured.keyed, 1 / 96);
  const polling = timeCell(measured.keyedPolling, 1 / 96);
  const unkeyed = timeCell(measured.unkeyed, 1 / 96);
  progress(
    "limits",
    `store: keyed ${fmt(keyed.value)} (polling only ${fmt(polling.value)}), unkeyed ${fmt(unkeyed.value)} ms/run`,
  );
  return [
    row({
      id: "limits-keyed-store-signal",
      workload: "limits",
      label: "Keyed limit (4 keys × 2) vs one limit of 8 through a store, with the release notification, per run",
      unit: "ms/run",
      ours: keyed,
      floor: unkeyed,
      langgraph: { skipped: "no keyed limits" },
      targets: [{ kind: "floorRatioMax", threshold: 1.2, description: "keyed within 20% of unkeyed" }],
      notes: [
        `96 concurrent runs of a 2 ms call on two runners sharing a SQLite file (permits are slot records), with a permitSignal; "floor" is the unkeyed limit of 8; keyed without the signal (waiters poll, ≤ 100 ms apart): ${fmt(polling.value)} ms/run`,
      ],
      details: { keyedPollingMsPerRun: polling.value },
    }),
  ];
}
