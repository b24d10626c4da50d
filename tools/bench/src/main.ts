// `pnpm bench` — side-by-side benchmarks of the performance targets: ours (@graph/runtime) vs a hand-written async loop (the
// floor) vs LangGraph.js, all in this one process. Prints a Markdown table and writes results.json.
//
//   pnpm bench                     full run (~10 minutes)
//   pnpm bench --quick             smaller sizes, fewer repetitions (CI smoke)
//   pnpm bench --only chain,map    some workloads (see --help); their rows replace theirs in the existing results.json
//   pnpm bench --out file.json     write the results somewhere else (default tools/bench/results.json)
//   pnpm bench --readme-only       only regenerate the README table from the existing results.json
//
// Writing the default results.json also regenerates the Performance table of the repository's README.md (the
// region between the markers in src/lib/readme.ts); `--no-readme` leaves the README alone.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchContext, Workload } from "./lib/context.js";
import { mergeRows, type ResultsFile, renderReadmeTable, replaceRegion } from "./lib/readme.js";
import type { Row } from "./lib/results.js";
import { renderNotes, renderTable } from "./lib/table.js";
import { agent } from "./workloads/agent.js";
import { build } from "./workloads/build.js";
import { chain } from "./workloads/chain.js";
import { cold } from "./workloads/cold.js";
import { limits } from "./workloads/limits.js";
import { map } from "./workloads/map.js";
import { peers } from "./workloads/peers.js";
import { durable } from "./workloads/peersDurable.js";
import { pipeline } from "./workloads/pipeline.js";
import { pool } from "./workloads/pool.js";
import { postgres } from "./workloads/postgres.js";
import { queue } from "./workloads/queue.js";
import { redis } from "./workloads/redis.js";
import { repeat } from "./workloads/repeat.js";
import { sqlite } from "./workloads/sqlite.js";

const WORKLOADS: readonly Workload[] = [
  cold,
  peers,
  durable,
  chain,
  repeat,
  map,
  sqlite,
  postgres,
  redis,
  agent,
  queue,
  pool,
  build,
  limits,
  pipeline,
];
const benchDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const defaultOut = path.join(benchDir, "results.json");
const readmePath = path.resolve(benchDir, "../../README.md");

interface Args {
  readonly quick: boolean;
  readonly only: readonly string[] | undefined;
  readonly out: string;
  readonly readme: boolean;
  readonly readmeOnly: boolean;
}

function usage(): string {
  return [
    "usage: pnpm bench [--quick] [--only <name>[,<name>…]] [--out <file>] [--no-readme | --readme-only]",
    `workloads: ${WORKLOADS.map((w) => `${w.name} (${w.title})`).join(", ")}`,
  ].join("\n");
}

function parseArgs(argv: readonly string[]): Args {
  let quick = false;
  let only: string[] | undefined;
  let out = defaultOut;
  let readme = true;
  let readmeOnly = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] =
      arg.startsWith("--") && arg.includes("=")
        ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
        : [arg, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value\n${usage()}`);
      return v;
    };
    switch (flag) {
      case "--":
        break;
      case "--quick":
        quick = true;
        break;
      case "--only":
        only = [
          ...(only ?? []),
          ...value()
            .split(",")
            .map((s) => s.trim())
            .filter(Boolean),
        ];
        break;
      case "--out":
        out = path.resolve(process.cwd(), value());
        break;
      case "--no-readme":
        readme = false;
        break;
      case "--readme-only":
        readmeOnly = true;
        break;
      case "--help":
      case "-h":
        console.log(usage());
        return process.exit(0);
      default:
        throw new Error(`unknown argument '${arg}'\n${usage()}`);
    }
  }
  for (const name of only ?? []) {
    if (!WORKLOADS.some((w) => w.name === name)) throw new Error(`unknown workload '${name}'\n${usage()}`);
  }
  return { quick, only, out, readme, readmeOnly };
}

function git(args: readonly string[]): string | undefined {
  try {
    return execFileSync("git", args, { cwd: benchDir, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return undefined;
  }
}

function packageVersion(name: string): string | undefined {
  try {
    const file = path.join(benchDir, "node_modules", name, "package.json");
    return (JSON.parse(fs.readFileSync(file, "utf8")) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

function machine() {
  const cpus = os.cpus();
  return {
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    cpu: cpus[0]?.model ?? "unknown",
    cores: cpus.length,
    memoryGB: Math.round(os.totalmem() / 1024 ** 3),
    node: process.version,
    v8: process.versions.v8,
    exposeGc: typeof (globalThis as { gc?: unknown }).gc === "function",
    /** Other work on the machine skews every number; recorded so a noisy run can be recognised. */
    loadAverageAtStart: os.loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

/** The rows of an earlier results.json; rows from before rows were stamped get the file's generatedAt. */
function readRows(file: string): Row[] {
  try {
    const previous = JSON.parse(fs.readFileSync(file, "utf8")) as { generatedAt?: string; rows?: Row[] };
    return (previous.rows ?? []).map((r) =>
      r.measuredAt !== undefined || previous.generatedAt === undefined ? r : { ...r, measuredAt: previous.generatedAt },
    );
  } catch {
    return [];
  }
}

function writeReadme(results: ResultsFile): void {
  fs.writeFileSync(readmePath, replaceRegion(fs.readFileSync(readmePath, "utf8"), renderReadmeTable(results)));
  console.log(`regenerated the Performance table in ${path.relative(process.cwd(), readmePath)}`);
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  if (args.readmeOnly) {
    writeReadme(JSON.parse(fs.readFileSync(defaultOut, "utf8")) as ResultsFile);
    return 0;
  }
  // Every MaxListenersExceededWarning is counted per workload (none may come from ours; LangGraph.js's fan-out
  // adds an abort listener per task and may trip it).
  const warnings = new Map<string, number>();
  let current = "";
  process.on("warning", (warning) => {
    if (warning.name !== "MaxListenersExceededWarning") return;
    // The warning's stack shows who added the listener: LangGraph.js's frames name @langchain.
    const stack = warning.stack ?? "";
    const who = /@langchain/.test(stack)
      ? "LangGraph.js"
      : /@mastra|@libsql/.test(stack)
        ? "Mastra"
        : /@dbos-inc/.test(stack)
          ? "DBOS"
          : "ours, the floor or a peer (no frame named it)";
    const key = `${current} (${who})`;
    warnings.set(key, (warnings.get(key) ?? 0) + 1);
  });
  const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), "graph-bench-"));
  const context: BenchContext = args.quick
    ? { quick: true, warmup: 1, warmupMs: 300, reps: 3, slowReps: 1, tmpDir }
    : { quick: false, warmup: 2, warmupMs: 3000, reps: 5, slowReps: 3, tmpDir };
  const selected = WORKLOADS.filter((w) => args.only === undefined || args.only.includes(w.name));
  const info = machine();
  console.log(
    `@graph bench — ${args.quick ? "quick" : "full"} run; ${info.cpu} × ${info.cores}, Node ${info.node}, load average ${info.loadAverageAtStart.join(" ")}`,
  );
  console.log(
    `workloads: ${selected.map((w) => w.name).join(", ")}; warm-up ${context.warmup}, median of ${context.reps} (slow contenders ${context.slowReps})`,
  );

  if ((info.loadAverageAtStart[0] ?? 0) > info.cores) {
    console.log(
      `WARNING: the machine is busy (1-minute load ${info.loadAverageAtStart[0]} on ${info.cores} cores); every number will be noisy and slower than on an idle machine.`,
    );
  }
  const started = Date.now();
  const rows: Row[] = [];
  const failures: Array<{ workload: string; error: string }> = [];
  try {
    for (const workload of selected) {
      const t0 = Date.now();
      current = workload.name;
      console.log(`\n› ${workload.name}: ${workload.title}`);
      try {
        rows.push(...(await workload.run(context)));
      } catch (error) {
        const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
        failures.push({ workload: workload.name, error: text });
        console.error(`  [${workload.name}] FAILED: ${text}`);
      }
      console.log(`  [${workload.name}] done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    }
  } finally {
    fs.rmSync(tmpDir, { recursive: true, force: true });
  }
  const durationSec = (Date.now() - started) / 1000;
  const generatedAt = new Date().toISOString();
  const measured = rows.map((r) => ({ ...r, measuredAt: generatedAt }));
  // A partial run keeps the other workloads' rows of the file it replaces (each with its own measuredAt).
  const previous = args.only !== undefined && fs.existsSync(args.out) ? readRows(args.out) : [];
  const allRows = args.only === undefined ? measured : mergeRows(previous, measured, args.only);

  console.log(`\n${renderTable(rows)}\n\n${renderNotes(rows)}\n`);
  const targets = allRows.flatMap((r) => r.targets.map((t) => ({ row: r.id, ...t })));
  const missed = targets.filter((t) => t.met === false);
  const unknown = targets.filter((t) => t.met === null);
  console.log(
    `targets (all rows of ${path.basename(args.out)}): ${targets.length - missed.length - unknown.length}/${targets.length} met` +
      (missed.length > 0 ? `; missed: ${missed.map((t) => `${t.row} (${t.description})`).join(", ")}` : "") +
      (unknown.length > 0 ? `; not measured: ${unknown.map((t) => t.row).join(", ")}` : "") +
      `; ${durationSec.toFixed(0)} s total`,
  );

  const results = {
    generatedAt,
    mode: args.quick ? "quick" : "full",
    only: args.only ?? null,
    durationSec,
    machine: { ...info, loadAverageAtEnd: os.loadavg().map((l) => Math.round(l * 100) / 100) },
    versions: {
      "@langchain/langgraph": packageVersion("@langchain/langgraph"),
      "@langchain/core": packageVersion("@langchain/core"),
      effect: packageVersion("effect"),
      "@mastra/core": packageVersion("@mastra/core"),
      "@mastra/libsql": packageVersion("@mastra/libsql"),
      "@dbos-inc/dbos-sdk": packageVersion("@dbos-inc/dbos-sdk"),
    },
    git: { commit: git(["rev-parse", "HEAD"]), dirty: (git(["status", "--porcelain"]) ?? "") !== "" },
    repetitions: { warmup: context.warmup, reps: context.reps, slowReps: context.slowReps },
    summary: {
      targets: targets.length,
      met: targets.filter((t) => t.met === true).length,
      missed,
      notMeasured: unknown,
    },
    rows: allRows,
    failures,
    maxListenersWarnings: Object.fromEntries(warnings),
  };
  if (warnings.size > 0)
    console.log(`MaxListenersExceededWarning: ${[...warnings].map(([w, n]) => `${w} ×${n}`).join(", ")}`);
  fs.writeFileSync(args.out, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`wrote ${path.relative(process.cwd(), args.out) || args.out}`);
  if (args.readme && args.out === defaultOut) writeReadme(results);
  return failures.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(2);
  },
);
