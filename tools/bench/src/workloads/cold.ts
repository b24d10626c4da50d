// Workload `cold`: what a fresh process pays, one child process per engine and repetition (src/child/cold.mjs under
// plain `node`, our packages from their built dist), the engines interleaved so a burst of load hits them alike:
// - import + first 1-node run (ms) and RSS after it, vs LangGraph.js and Mastra; the floor is bare `node` calling an
//   async function;
// - warm-up: the average of runs 1–N of a 10-node chain in the fresh process, vs the steady state of the same
//   process after a few more seconds of runs.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Workload } from "../lib/context.js";
import { type Cell, type Row, row } from "../lib/results.js";
import { fmt, median, progress } from "../lib/timing.js";

const benchDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const script = path.join(benchDir, "src/child/cold.mjs");
const root = path.resolve(benchDir, "../..");

interface ChildReport {
  readonly engine: string;
  readonly importMs: number;
  readonly firstRunMs: number;
  readonly rssMb: number;
  readonly maxRssMb: number;
  readonly cpuMs: number;
  readonly warmRuns: number;
  readonly firstRunsUs: number;
  readonly steadyUs: number;
}

const ENGINES = ["node", "ours", "langgraph", "mastra"] as const;
type Engine = (typeof ENGINES)[number];

function runChild(engine: Engine, warmRuns: number, steadyMs: number): Promise<ChildReport> {
  // Without NODE_OPTIONS (tsx, the @graph/source condition) the packages resolve to their built dist.
  const { NODE_OPTIONS: _ignored, ...env } = process.env;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, engine, String(warmRuns), String(steadyMs)], {
      cwd: benchDir,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`cold child '${engine}' exited ${code}: ${err.trim()}`));
      resolve(JSON.parse(out.trim().split("\n").at(-1) ?? "") as ChildReport);
    });
  });
}

/** A cell from one number per child: median value, every sample, and optionally the median CPU time. */
function cellOf(samples: readonly number[], cpu?: readonly number[]): Cell {
  return { value: median(samples), samples, ...(cpu === undefined ? {} : { cpu: median(cpu) }) };
}

function staleDist(): string[] {
  return ["core", "runtime"].filter((p) => {
    const dist = path.join(root, "packages", p, "dist/index.js");
    const src = path.join(root, "packages", p, "src");
    if (!fs.existsSync(dist)) return true;
    const newest = (dir: string): number =>
      Math.max(
        ...fs
          .readdirSync(dir, { withFileTypes: true })
          .map((e) => (e.isDirectory() ? newest(path.join(dir, e.name)) : fs.statSync(path.join(dir, e.name)).mtimeMs)),
      );
    return newest(src) > fs.statSync(dist).mtimeMs;
  });
}

export const cold: Workload = {
  name: "cold",
  title: "fresh process: import + first run, RSS, warm-up (plain node, built packages) vs LangGraph.js and Mastra",
  async run(context): Promise<Row[]> {
    const reps = context.quick ? 1 : 3;
    const warmRuns = context.quick ? 100 : 1000;
    const steadyMs = context.quick ? 300 : 2000;
    const stale = staleDist();
    if (stale.length > 0)
      progress("cold", `WARNING: dist of ${stale.join(", ")} is missing or older than src (build first)`);
    const reports = new Map<Engine, ChildReport[]>(ENGINES.map((e) => [e, []]));
    for (let rep = 0; rep < reps; rep++) {
      for (const engine of ENGINES) {
        // Mastra's runs are ~100× slower than ours: its warm-up is not measured (import and first run are).
        const report = await runChild(engine, engine === "mastra" ? 0 : warmRuns, engine === "mastra" ? 0 : steadyMs);
        reports.get(engine)!.push(report);
        progress(
          "cold",
          `${engine} #${rep + 1}: import ${fmt(report.importMs)} ms, first run ${fmt(report.firstRunMs)} ms, RSS ${fmt(report.rssMb)} MB` +
            (report.warmRuns > 0
              ? `, runs 1–${warmRuns} ${fmt(report.firstRunsUs)} µs/run, then ${fmt(report.steadyUs)}`
              : ""),
        );
      }
    }
    const of = (engine: Engine) => reports.get(engine)!;
    const startMs = (engine: Engine) =>
      cellOf(
        of(engine).map((r) => r.importMs + r.firstRunMs),
        of(engine).map((r) => r.cpuMs),
      );
    const rss = (engine: Engine) => cellOf(of(engine).map((r) => r.rssMb));
    const firstRuns = (engine: Engine) => cellOf(of(engine).map((r) => r.firstRunsUs));
    const warmRatio = (engine: Engine) => cellOf(of(engine).map((r) => r.firstRunsUs / r.steadyUs));
    const parts = (engine: Engine) =>
      `${engine}: import ${fmt(median(of(engine).map((r) => r.importMs)))} + first run ${fmt(median(of(engine).map((r) => r.firstRunMs)))} ms`;
    const staleNote = stale.length > 0 ? [`dist of ${stale.join(", ")} older than src: build first`] : [];

    return [
      row({
        id: "cold-start",
        workload: "cold",
        label: "cold start: import + first 1-node run, fresh process (built, plain node)",
        unit: "ms",
        ours: startMs("ours"),
        floor: startMs("node"),
        langgraph: startMs("langgraph"),
        peers: { mastra: startMs("mastra"), dbos: { skipped: "needs a launched PostgreSQL system database" } },
        targets: [{ kind: "max", threshold: 100, description: "≤ 100 ms" }],
        notes: [
          `median of ${reps} fresh processes per engine, interleaved; ${ENGINES.filter((e) => e !== "node")
            .map(parts)
            .join("; ")}`,
          "CPU = the whole child process's CPU time at that point (Node bootstrap included, ~40 ms)",
          ...staleNote,
        ],
        details: { reports: Object.fromEntries(reports) },
      }),
      row({
        id: "cold-rss",
        workload: "cold",
        label: "RSS after import + first 1-node run, fresh process (built, plain node)",
        unit: "MB",
        ours: rss("ours"),
        floor: rss("node"),
        langgraph: rss("langgraph"),
        peers: { mastra: rss("mastra"), dbos: { skipped: "not run" } },
        targets: [{ kind: "max", threshold: 80, description: "≤ 80 MB" }],
        notes: [`process.memoryUsage().rss after the first run; median of ${reps}`],
      }),
      row({
        id: "warmup-chain-10",
        workload: "cold",
        label: `chain of 10 async nodes, runs 1–${warmRuns.toLocaleString("en-US")} of a fresh process`,
        unit: "µs/run",
        ours: firstRuns("ours"),
        floor: firstRuns("node"),
        langgraph: firstRuns("langgraph"),
        peers: { mastra: { skipped: "not run (~5 ms/run)" } },
        notes: [
          `average over the first ${warmRuns} runs after the first-run probe; steady state of the same process after ${steadyMs} ms more runs: ` +
            `ours ${fmt(median(of("ours").map((r) => r.steadyUs)))}, floor ${fmt(median(of("node").map((r) => r.steadyUs)))}, LangGraph.js ${fmt(median(of("langgraph").map((r) => r.steadyUs)))} µs/run`,
        ],
      }),
      row({
        id: "warmup-ratio",
        workload: "cold",
        label: `warm-up: runs 1–${warmRuns.toLocaleString("en-US")} / steady state, same process`,
        unit: "×",
        ours: warmRatio("ours"),
        floor: warmRatio("node"),
        langgraph: warmRatio("langgraph"),
        targets: [{ kind: "max", threshold: 2, description: "≤ 2× the steady state" }],
        notes: ["per fresh process: the first runs' average / the average of the same number of runs later; median"],
      }),
    ];
  },
};
