// Profiling helper (not part of `pnpm bench`): runs only OUR side of one workload in a loop so a CPU profile shows
// where the time goes. From tools/bench:
//   node --conditions=@graph/source --import tsx --cpu-prof --cpu-prof-dir=/tmp/prof src/profile/run.ts <scenario> [seconds]
//   node --import tsx src/profile/report.ts /tmp/prof/*.cpuprofile
// Scenarios: chain<N> (e.g. chain1000, chain10), agent, map10k, sqlite, postgres; sqlite-sync and postgres-sync
// with `durability: "sync"` (a commit per step, the `durable` workload).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PostgresCheckpointer } from "@graph/checkpoint-postgres";
import { SqliteCheckpointer } from "@graph/checkpoint-sqlite";
import { Runner } from "@graph/runtime";
import { pgPool } from "../lib/drivers.js";
import { DURABLE_LENGTH, runOurs } from "../lib/durable.js";
import { items, ourAgentLoop, ourChain, ourMap } from "../lib/graphs.js";

const [scenario = "chain10", secondsText = "10"] = process.argv.slice(2);
const deadline = performance.now() + Number(secondsText) * 1000;
let iterations = 0;
const loop = async (body: (i: number) => Promise<unknown>) => {
  while (performance.now() < deadline) await body(iterations++);
};

const chainLength = /^chain(\d+)$/.exec(scenario)?.[1];
const policy = scenario.endsWith("-sync") ? { durability: "sync" as const } : {};
switch (chainLength === undefined ? scenario.replace(/-sync$/, "") : "chain") {
  case "chain": {
    const length = Number(chainLength);
    const runner = new Runner();
    const graph = ourChain(length);
    await loop(() => runner.run(graph, { values: { v0: 0 }, maxIterations: length + 10 }));
    break;
  }
  case "agent": {
    const runner = new Runner();
    const graph = ourAgentLoop();
    await loop(() => runner.run(graph, { values: { count: 0 } }));
    break;
  }
  case "map10k": {
    const runner = new Runner();
    const graph = ourMap();
    const xs = items(10_000);
    await loop(() => runner.run(graph, { values: { x: xs } }));
    break;
  }
  case "sqlite": {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "graph-prof-"));
    const runner = new Runner({ checkpointer: new SqliteCheckpointer({ path: path.join(dir, "prof.db"), policy }) });
    const graph = ourChain(DURABLE_LENGTH);
    await loop((i) => runOurs(runner, graph, 1, `wf-${i}`));
    await runner.close();
    fs.rmSync(dir, { recursive: true, force: true });
    break;
  }
  case "postgres": {
    const url = process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres";
    const schema = `bench_prof_${process.pid}`;
    const runner = new Runner({ checkpointer: new PostgresCheckpointer({ connectionString: url, schema, policy }) });
    const graph = ourChain(DURABLE_LENGTH);
    await loop((i) => runOurs(runner, graph, 1, `wf-${i}`));
    await runner.close();
    const admin = pgPool(url);
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
    break;
  }
  default:
    throw new Error(`unknown scenario '${scenario}'`);
}
console.log(`${scenario}: ${iterations} iterations`);
process.exit(0);
