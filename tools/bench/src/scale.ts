// Stores at scale: p50 of the operations that must not grow with the number of stored workflows, per backend, at
// 1k → 10k → 100k (and more with `--sizes`) stored workflows. The workflows are written through the store API the
// way runs write them (a start with its lease, one step, the final update with the lease given back), in the mix
// 40% completed, 20% paused, 15% sleeping, 15% waiting for an event, 10% failed; 1% of them belong to graph "rare"
// (the 1% bulk stop). Prints a Markdown table and the raw samples as JSON.
// Run: cd tools/bench && node --conditions=@graph/source --import tsx src/scale.ts [--sizes 1000,10000,100000]
//      [--only sqlite,postgres,redis] [--out file.json] [--fill clone|api] [--stop-reps 3]
// `--fill clone` (the default) writes the first 100 workflows through the store API and clones them in bulk
// (`scale/cloneFill.ts`); `--fill api` writes every workflow through the store API (about an hour per 1M per SQL
// backend). At 1M and above `stopMany` is timed once (each repetition stops and resets 10k workflows).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Checkpointer, StepRecord, WorkflowUpdate } from "@graph/checkpoint";
import { encodeWorkflowCursor } from "@graph/checkpoint/adapter";
import { PostgresCheckpointer } from "@graph/checkpoint-postgres";
import { RedisCheckpointer } from "@graph/checkpoint-redis";
import { SqliteCheckpointer } from "@graph/checkpoint-sqlite";
import { Runner } from "@graph/runtime";
import { openSqlite, pgPool } from "./lib/drivers.js";
import {
  type Cloner,
  type CloneShape,
  postgresCloner,
  redisCloner,
  sqliteCloner,
  TEMPLATES,
  verifyClones,
} from "./scale/cloneFill.js";

type Store = Checkpointer & { storageBytes(): Promise<number>; close(): Promise<void> };
interface Backend {
  readonly name: string;
  /** A store on the backend; `ttlMs` gives it a retention policy. */
  open(ttlMs?: number): Store;
  /** Writes in flight while filling (SQLite has one writer). */
  readonly concurrency: number;
  /** Clones the templates into workflows `[from, to)` (see `scale/cloneFill.ts`); `close` when done. */
  cloner(): Promise<{ readonly clone: Cloner; close(): Promise<void> }>;
}

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const at = args.indexOf(`--${name}`);
  return at < 0 ? undefined : args[at + 1];
};
const sizes = (flag("sizes") ?? "1000,10000,100000").split(",").map(Number);
const only = flag("only")?.split(",");
const out = flag("out");
const fillMode = flag("fill") ?? "clone";
if (fillMode !== "clone" && fillMode !== "api") throw new Error(`--fill must be clone or api, got ${fillMode}`);
const stopReps = Number(flag("stop-reps") ?? 3);

const DAY = 86_400_000;
const dir = mkdtempSync(path.join(tmpdir(), "graph-scale-"));
const pgUrl = process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres";
const redisUrl = process.env["REDIS_URL"] ?? "redis://127.0.0.1:6379";
const schema = `bench_scale_${process.pid}`;
const prefix = `graph-bench:scale:${process.pid}:`;

const idOf = (i: number) => `wf-${String(i).padStart(8, "0")}`;
// Clones are created before the templates (written now), one per millisecond.
const shape: CloneShape = { idOf, base: Date.now() - Math.max(...sizes) - 60_000 };

const allBackends: Backend[] = [
  {
    name: "sqlite",
    concurrency: 1,
    open: (ttlMs) =>
      new SqliteCheckpointer({
        path: path.join(dir, "scale.db"),
        ...(ttlMs === undefined ? {} : { policy: { ttlMs } }),
      }),
    cloner: async () => {
      const db = openSqlite(path.join(dir, "scale.db"));
      db.pragma("busy_timeout = 10000");
      return { clone: sqliteCloner(db, shape), close: async () => db.close() };
    },
  },
  {
    name: "postgres",
    concurrency: 16,
    open: (ttlMs) =>
      new PostgresCheckpointer({
        connectionString: pgUrl,
        schema,
        ...(ttlMs === undefined ? {} : { policy: { ttlMs } }),
      }),
    cloner: async () => {
      const pool = pgPool(pgUrl);
      return { clone: await postgresCloner(pool, schema, shape), close: () => pool.end() };
    },
  },
  {
    name: "redis",
    concurrency: 32,
    open: (ttlMs) =>
      new RedisCheckpointer({ url: redisUrl, prefix, ...(ttlMs === undefined ? {} : { policy: { ttlMs } }) }),
    cloner: async () => {
      const clone = await redisCloner(redisUrl, prefix, shape);
      return { clone, close: () => clone.quit() };
    },
  },
];
const backends = allBackends.filter((backend) => only === undefined || only.includes(backend.name));

/** What the i-th workflow's run ends with (the mix of the issue). */
function ending(i: number): WorkflowUpdate {
  const slot = i % 20;
  if (slot < 8) return { status: "completed" };
  if (slot < 12) return { status: "paused", pause: { nodeName: "ask", value: "ok?", responseKey: "answer" } };
  if (slot < 15) return { status: "paused", wakeAt: new Date(Date.now() + 30 * DAY) };
  if (slot < 18) return { status: "paused", waitingFor: { event: "order.paid", key: `order-${i}` } };
  return { status: "failed", error: { name: "Error", message: "boom" } };
}

const RARE_EVERY = 100;
const graphOf = (i: number) => (i % RARE_EVERY === 7 ? "rare" : "app");

async function writeOne(store: Store, i: number): Promise<void> {
  const id = idOf(i);
  const { lease } = await store.startWorkflow!(
    { id, graphName: graphOf(i), graphHash: "h1" },
    { owner: "filler", ttlMs: 60_000 },
  );
  // The rare graph's workflows are paused (what a bulk stop acts on).
  const update = graphOf(i) === "rare" ? ending(8) : ending(i);
  const step: StepRecord = {
    workflowId: id,
    superstep: 0,
    nodeName: "work",
    index: 1,
    status: "completed",
    inputVersions: { input: 0 },
    values: { out: i },
    truncated: false,
    startedAt: new Date(),
    completedAt: new Date(),
  } as StepRecord;
  await store.finishWorkflow!({
    workflowId: id,
    steps: [{ steps: [step], fence: { epoch: lease.epoch } }],
    update,
    fence: { epoch: lease.epoch },
    release: { owner: "filler", epoch: lease.epoch },
  });
}

async function fill(store: Store, from: number, to: number, concurrency: number): Promise<void> {
  let next = from;
  const worker = async () => {
    for (let i = next++; i < to; i = next++) await writeOne(store, i);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

async function timeIt(reps: number, run: (rep: number) => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let rep = 0; rep < reps; rep++) {
    const start = performance.now();
    await run(rep);
    samples.push(performance.now() - start);
  }
  return samples;
}

const median = (samples: readonly number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
};

interface Row {
  backend: string;
  size: number;
  deepPage: number[];
  rareStatus: number[];
  startWithRetention: number[];
  stopMany: number[];
  bytesPerWorkflow: number;
}

async function measure(backend: Backend, store: Store, retained: Store, size: number, last: boolean): Promise<Row> {
  const middle = await store.getWorkflow(idOf(Math.floor(size / 2)));
  if (middle === undefined) throw new Error("the middle workflow is missing");
  const cursor = encodeWorkflowCursor({ createdAt: middle.createdAt, id: middle.id });
  const deepPage = await timeIt(31, async () => {
    const page = await store.listWorkflows({ limit: 20, cursor });
    if (page.workflows.length !== 20) throw new Error(`a deep page has ${page.workflows.length} workflows`);
  });
  const rareStatus = await timeIt(31, async () => {
    const page = await store.listWorkflows({ status: "stopped", limit: 20 });
    if (page.workflows.length !== 0) throw new Error("stopped workflows exist before the bulk stop");
  });
  const startWithRetention = await timeIt(31, async (rep) => {
    const id = `start-${size}-${rep}`;
    const { lease } = await retained.startWorkflow!(
      { id, graphName: "start", graphHash: "h1" },
      { owner: "bench", ttlMs: 60_000 },
    );
    await retained.releaseWorkflow(id, lease);
  });
  for (let rep = 0; rep < 31; rep++) await store.deleteWorkflow(`start-${size}-${rep}`);
  const bytesPerWorkflow = Math.round((await store.storageBytes()) / size);
  // Not closed: closing a runner closes its checkpointer, which the next size still uses.
  const runner = new Runner({ checkpointer: store });
  const rare = Math.floor((size - 8) / RARE_EVERY) + 1;
  const reps = size >= 1_000_000 ? 1 : stopReps;
  const stopMany = await timeIt(reps, async (rep) => {
    const report = await runner.stopMany({ graph: "rare" });
    if (report.done !== rare)
      throw new Error(
        `stopMany stopped ${report.done} of ${rare}: ${JSON.stringify(report.skipped.slice(0, 2))} ${String(report.failed[0]?.error)}`,
      );
    // Back to paused for the next repetition and size (not timed; not needed after the last).
    if (last && rep === reps - 1) return;
    for (const id of report.ids) {
      const lease = await store.claimWorkflow(id, { owner: "reset", ttlMs: 60_000 });
      await store.updateWorkflow(id, { ...ending(8), stopRequested: null }, { epoch: lease.epoch });
      await store.releaseWorkflow(id, lease);
    }
  });
  console.error(`${backend.name} ${size}: done`);
  return { backend: backend.name, size, deepPage, rareStatus, startWithRetention, stopMany, bytesPerWorkflow };
}

const rows: Row[] = [];
try {
  for (const backend of backends) {
    const store = backend.open();
    await store.setup?.();
    const retained = backend.open(30 * DAY);
    await retained.setup?.();
    let stored = 0;
    let cloner: Awaited<ReturnType<Backend["cloner"]>> | undefined;
    try {
      for (const [n, size] of sizes.entries()) {
        const started = Date.now();
        if (fillMode === "api") await fill(store, stored, size, backend.concurrency);
        else {
          if (stored < TEMPLATES) await fill(store, stored, Math.min(size, TEMPLATES), backend.concurrency);
          cloner ??= await backend.cloner();
          await cloner.clone(Math.max(stored, TEMPLATES), size);
          await verifyClones(store, shape, size);
        }
        stored = size;
        console.error(`${backend.name}: filled to ${size} (${fillMode}) in ${Date.now() - started} ms`);
        rows.push(await measure(backend, store, retained, size, n === sizes.length - 1));
      }
    } finally {
      await cloner?.close();
      await retained.close();
      if (backend.name === "redis") await (store as unknown as RedisCheckpointer).clear();
      await store.close();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
  const admin = pgPool(pgUrl);
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
}

const fmt = (ms: number) => (ms < 10 ? ms.toFixed(2) : ms.toFixed(0));
const series = (backend: string, pick: (row: Row) => string) =>
  rows
    .filter((row) => row.backend === backend)
    .map(pick)
    .join(" → ");
const names = [...new Set(rows.map((row) => row.backend))];
console.log(`| p50, ${sizes.join(" → ")} stored | ${names.join(" | ")} |`);
console.log(`|---|${names.map(() => "---").join("|")}|`);
const lines: [string, (row: Row) => string][] = [
  ["a page in the middle of the list (ms)", (row) => fmt(median(row.deepPage))],
  ["list a status nobody has (ms)", (row) => fmt(median(row.rareStatus))],
  ["a new run under a `ttlMs` retention policy (ms)", (row) => fmt(median(row.startWithRetention))],
  ["`stopMany` over 1% of the workflows (ms)", (row) => fmt(median(row.stopMany))],
  ["bytes per workflow", (row) => String(row.bytesPerWorkflow)],
];
for (const [label, pick] of lines) console.log(`| ${label} | ${names.map((name) => series(name, pick)).join(" | ")} |`);
if (out !== undefined) writeFileSync(out, JSON.stringify({ at: new Date().toISOString(), rows }, null, 2));
process.exit(0);
