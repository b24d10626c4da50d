// Profiles the GraphWorker of the `pool` workload: one distributed phase (1 worker) on the given store, with the
// worker started under `--cpu-prof`; prints the phase's throughput and CPU times. Summarise with report.ts:
//   node --conditions=@graph/source --import tsx src/profile/pool.ts redis 1000 /tmp/pool-prof
//   node --import tsx src/profile/report.ts /tmp/pool-prof/*.cpuprofile 30
import { measurePhase, type StoreKind } from "../workloads/poolPhase.js";

const [kind = "redis", runs = "1000", dir = "/tmp/pool-prof"] = process.argv.slice(2);
if (kind !== "redis" && kind !== "postgres") throw new Error(`usage: pool.ts redis|postgres [runs] [dir], got ${kind}`);
process.env["BENCH_POOL_PROF"] = dir;
const phase = await measurePhase(kind as StoreKind, 1, { runs: Number(runs), warmup: 100, lightRuns: 1 });
console.log(
  `${kind}: ${phase.runsPerSecond.toFixed(0)} runs/s; worker ${((phase.workerCpuMs * 1000) / phase.runs).toFixed(0)} µs ` +
    `CPU/run, submitter ${((phase.submitterCpuMs * 1000) / phase.runs).toFixed(0)} µs CPU/run; ${phase.roundTrips ?? ""}`,
);
