// Workload `pool`: 10-node workflows through RemoteRunner + GraphWorker processes vs the same workflows in-process,
// on a PostgreSQL and on a Redis checkpointer, per worker core (1 and 2 workers; the target: ≥ 60% of in-process
// throughput per worker core), and the submit→first-node latency (p50/p99) on one worker at light load.
// Each phase gets a fresh store (its own schema or redis-server) and, when distributed, its own queue redis-server.
import os from "node:os";
import type { BenchContext, Workload } from "../lib/context.js";
import { type Row, row } from "../lib/results.js";
import { progress } from "../lib/timing.js";
import { measurePhase, type Phase, type StoreKind } from "./poolPhase.js";

const WORKER_COUNTS = [1, 2] as const;
const LANGGRAPH = { skipped: "no distributed executor in LangGraph.js" } as const;
const STORE_NAME: Record<StoreKind, string> = { postgres: "PostgreSQL", redis: "Redis" };

const fmt = (n: number, digits = 0) => n.toFixed(digits);
const quantiles = (p: Phase["loadLatency"]) => `p50 ${fmt(p.p50, 1)} / p99 ${fmt(p.p99, 1)} ms`;

function throughputRow(kind: StoreKind, local: Phase, remote: Phase, workers: number, cores: number): Row {
  const perCore = remote.runsPerSecond / workers;
  const cpuPerCore = remote.runs / (remote.workerCpuMs / 1000);
  const localCpu = local.runs / (local.submitterCpuMs / 1000);
  const store = STORE_NAME[kind];
  return row({
    id: `pool-${kind}-${remote.runs}-w${workers}`,
    workload: "pool",
    label: `${remote.runs} 10-node workflows via RemoteRunner on ${store}, per worker core, ${workers} worker(s) on ${cores} cores`,
    unit: "runs/s",
    ours: { value: perCore, note: `${fmt(remote.runsPerSecond)} runs/s over ${workers} worker(s)` },
    floor: { value: local.runsPerSecond, note: "in-process Runner on the same kind of store (one process)" },
    langgraph: LANGGRAPH,
    targets: [{ kind: "floorRatioMin", threshold: 0.6, description: "≥ 60% of in-process per worker core" }],
    notes: [
      `${remote.runs} workflows (after ${remote.warmup} untimed), ${remote.window} in flight, ${workers} worker process(es) × concurrency ${remote.concurrency}; one timed repetition`,
      `in-process ${fmt(local.runsPerSecond)} runs/s, RemoteRunner ${fmt(remote.runsPerSecond)} runs/s = ${fmt(perCore)} per worker`,
      `per CPU-second: workers ${fmt(cpuPerCore)} runs (${fmt((100 * cpuPerCore) / localCpu)}% of in-process ${fmt(localCpu)}); submitter ${fmt((remote.submitterCpuMs * 1000) / remote.runs)} µs CPU/run, in-process ${fmt((local.submitterCpuMs * 1000) / local.runs)} µs CPU/run`,
      `submit→first-node under this load: ${quantiles(remote.loadLatency)} (in-process ${quantiles(local.loadLatency)})`,
      ...(remote.roundTrips === undefined ? [] : [`round trips per workflow: ${remote.roundTrips}`]),
      ...(local.roundTrips === undefined ? [] : [`in-process round trips per workflow: ${local.roundTrips}`]),
    ],
    details: {
      cores,
      workers,
      runs: remote.runs,
      runsPerSecond: remote.runsPerSecond,
      inProcessRunsPerSecond: local.runsPerSecond,
      workerCpuMs: remote.workerCpuMs,
      submitterCpuMs: remote.submitterCpuMs,
      inProcessCpuMs: local.submitterCpuMs,
      cpuRatio: cpuPerCore / localCpu,
      loadLatencyMs: remote.loadLatency,
      inProcessLoadLatencyMs: local.loadLatency,
    },
  });
}

function latencyRow(kind: StoreKind, local: Phase, remote: Phase, q: "p50" | "p99", cores: number): Row {
  return row({
    id: `pool-${kind}-latency-${q}`,
    workload: "pool",
    label: `submit→first-node latency ${q}, ${remote.lightRuns} sequential workflows, RemoteRunner on ${STORE_NAME[kind]}, 1 worker on ${cores} cores`,
    unit: "ms",
    ours: {
      value: remote.lightLatency[q],
      ...(remote.lightLatency.samples === undefined ? {} : { samples: remote.lightLatency.samples }),
    },
    floor: { value: local.lightLatency[q], note: "in-process Runner on the same kind of store" },
    langgraph: LANGGRAPH,
    notes: [
      `one workflow at a time (submit, wait for its result, next): the queue's pick-up, the job's claim and the run's start; the first node stamps its start with the wall clock`,
      `RemoteRunner ${quantiles(remote.lightLatency)}, in-process ${quantiles(local.lightLatency)}`,
    ],
    details: { cores, remote: remote.lightLatency, inProcess: local.lightLatency },
  });
}

export const pool: Workload = {
  name: "pool",
  title: "10-node workflows on GraphWorker processes vs in-process (PostgreSQL, Redis), submit→first-node latency",
  async run(context: BenchContext): Promise<Row[]> {
    const cores = os.cpus().length;
    const sizes = context.quick
      ? { runs: 100, warmup: 20, lightRuns: 20 }
      : { runs: 2_000, warmup: 200, lightRuns: 200 };
    const rows: Row[] = [];
    for (const kind of ["postgres", "redis"] as const) {
      const local = await measurePhase(kind, 0, sizes);
      progress("pool", `${kind} in-process: ${fmt(local.runsPerSecond)} runs/s`);
      let one: Phase | undefined;
      for (const workers of WORKER_COUNTS) {
        const remote = await measurePhase(kind, workers, sizes);
        progress("pool", `${kind} w${workers}: ${fmt(remote.runsPerSecond)} runs/s`);
        rows.push(throughputRow(kind, local, remote, workers, cores));
        if (workers === 1) one = remote;
      }
      if (one !== undefined)
        rows.push(latencyRow(kind, local, one, "p50", cores), latencyRow(kind, local, one, "p99", cores));
    }
    return rows;
  },
};
