// Queue workload, failover row: the time from a worker's SIGKILL to the next step of its run on another worker
// (median and p99 over several kills), with short lease and lock settings (LEASE_MS, LOCK_MS: a dead worker is
// noticed once its BullMQ lock expired, its run adopted once its checkpointer lease expired). Steps report their
// start with the wall clock over IPC (every process is on this machine).
import { RedisCheckpointer } from "@graph/checkpoint-redis";
import { RemoteRunner } from "@graph/queue-bullmq";
import type { BenchContext } from "../lib/context.js";
import { type Row, row } from "../lib/results.js";
import { median, progress } from "../lib/timing.js";
import { queueSlow } from "./queueGraphs.js";
import { type BenchWorker, startRedis, startWorkers, stopWorkers } from "./queueProcs.js";

const LEASE_MS = 1_000;
const LOCK_MS = 1_000;

interface Step {
  readonly node: string;
  readonly id: string;
  readonly pid: number;
  readonly at: number;
}

/** Resolves with the first "step" message of `worker` that matches. */
function nextStep(worker: BenchWorker, match: (s: Step) => boolean): Promise<Step> {
  return new Promise((resolve) => {
    const listener = (m: unknown) => {
      const msg = m as Step & { type?: string };
      if (msg.type !== "step" || !match(msg)) return;
      worker.child.off("message", listener);
      resolve(msg);
    };
    worker.child.on("message", listener);
  });
}

export async function failoverRow(context: BenchContext, cores: number): Promise<Row> {
  const kills = context.quick ? 2 : 10;
  const [queueRedis, store] = [await startRedis(), await startRedis()];
  const checkpointer = new RedisCheckpointer({ url: store.url, prefix: "bench:" });
  const env = {
    REDIS_URL: queueRedis.url,
    BENCH_QUEUE: "bench",
    BENCH_STORE_URL: store.url,
    BENCH_PREFIX: "bench:",
    BENCH_LEASE_MS: String(LEASE_MS),
    BENCH_LOCK_MS: String(LOCK_MS),
  };
  const remote = new RemoteRunner({ connection: queueRedis.url, queue: "bench", checkpointer });
  const alive: BenchWorker[] = [];
  const latencies: number[] = [];
  try {
    // Two workers ready before each run: whichever takes it is killed at its third step, the other adopts it (a
    // worker started after the kill would only add its start-up time).
    const pool = await startWorkers(2, env);
    alive.push(...pool);
    for (let k = 0; k < kills; k++) {
      const id = `kill-${k}`;
      const reached = Promise.race(pool.map((w) => nextStep(w, (s) => s.id === id && s.node === "s2")));
      const handle = remote.start(queueSlow, { values: { x: k, id }, workflowId: id });
      const at = await reached;
      const holder = pool.find((w) => w.pid === at.pid)!;
      const rescuer = pool.find((w) => w !== holder)!;
      const resumed = nextStep(rescuer, (s) => s.id === id);
      const killedAt = Date.now();
      holder.child.kill("SIGKILL");
      const step = await resumed;
      latencies.push(step.at - killedAt);
      const result = await handle.result;
      if (result.status !== "completed") throw new Error(`queue bench: run ${id} ended ${result.status}`);
      const [replacement] = await startWorkers(1, env);
      alive.push(replacement!);
      pool.splice(pool.indexOf(holder), 1, replacement!);
    }
    latencies.sort((a, b) => a - b);
    const p99 = latencies[Math.ceil(0.99 * latencies.length) - 1]!;
    const mid = median(latencies);
    progress("queue", `SIGKILL → next step on another worker: median ${mid} ms, p99 ${p99} ms (${kills} kills)`);
    return row({
      id: "queue-failover-sigkill",
      workload: "queue",
      label: `SIGKILL of a worker → the next step of its run on another worker (lease ${LEASE_MS} ms, lock ${LOCK_MS} ms; ${cores} cores)`,
      unit: "ms",
      ours: { value: mid, samples: latencies },
      floor: { skipped: "no in-process equivalent: the process that dies is the one that runs" },
      langgraph: { skipped: "no distributed executor in LangGraph.js" },
      notes: [`median ${mid} ms, p99 ${p99} ms over ${kills} kills; bounded below by the lock and lease expiry`],
      details: { cores, kills, p99Ms: p99, leaseTtlMs: LEASE_MS, lockDurationMs: LOCK_MS },
    });
  } finally {
    await remote.close();
    await stopWorkers(alive);
    await checkpointer.close().catch(() => {});
    await queueRedis.stop();
    await store.stop();
  }
}
