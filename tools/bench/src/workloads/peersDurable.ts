// Workload `durable`: the durable 10-node workflow with a commit per step, the durability Mastra and DBOS promise.
// - local file: ours (SqliteCheckpointer, `durability: "sync"`) vs Mastra with LibSQLStore on a file vs the floor
//   (better-sqlite3, one INSERT per step);
// - PostgreSQL: ours (PostgresCheckpointer, `durability: "sync"`) vs DBOS Transact (its own system database,
//   `bench_dbos`, created at launch and dropped at the end) vs the floor (`pg`, one INSERT per step).
// Every contender starts a fresh workflow per run; fresh files and schemas per repetition; close() is timed.
import path from "node:path";
import { PostgresCheckpointer } from "@graph/checkpoint-postgres";
import { SqliteCheckpointer } from "@graph/checkpoint-sqlite";
import { Runner } from "@graph/runtime";
import type { BenchContext, Workload } from "../lib/context.js";
import { type DbosKit, dropDbos, launchDbos } from "../lib/dbos.js";
import { openSqlite, type PgPool, pgPool, type SqliteDatabase } from "../lib/drivers.js";
import { DURABLE_LENGTH, type FloorStore, runFloor, runOurs } from "../lib/durable.js";
import { check, ourChain } from "../lib/graphs.js";
import { loadMastra, type MastraWorkflow, runMastra } from "../lib/mastra.js";
import { type Row, row, timeCell } from "../lib/results.js";
import { fmt, type MeasureOptions, measureAll, progress } from "../lib/timing.js";
import { pgFloorStore } from "./postgres.js";
import { sqliteFloorStore } from "./sqlite.js";

const DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/postgres";
const SYNC = { durability: "sync" } as const;

function contender(
  context: BenchContext,
  runs: number,
  before: (rep: number) => Promise<void> | void,
  go: (count: number, rep: number) => Promise<void>,
  slow = false,
): MeasureOptions {
  return {
    warmup: 1,
    warmupMs: slow ? 0 : context.warmupMs,
    reps: slow ? context.slowReps : context.reps,
    before,
    warmupRun: (rep) => go(Math.min(runs, 10), rep),
    run: (rep) => go(runs, rep),
  };
}

async function fileRow(context: BenchContext, runs: number, mastraRuns: number): Promise<Row> {
  const mastra = await loadMastra();
  const graph = ourChain(DURABLE_LENGTH);
  const file = (who: string, rep: number) => path.join(context.tmpDir, `durable-${who}-${rep}.db`);
  let runner: Runner | undefined;
  let db: SqliteDatabase | undefined;
  let store: FloorStore | undefined;
  let durable: { workflow: MastraWorkflow; close(): Promise<void> } | undefined;
  const m = await measureAll(
    {
      ours: contender(
        context,
        runs,
        async (rep) => {
          const checkpointer = new SqliteCheckpointer({ path: file("ours", rep), policy: SYNC });
          await checkpointer.setup();
          runner = new Runner({ checkpointer });
        },
        async (count, rep) => {
          await runOurs(runner!, graph, count, `wf-${rep}`);
          await runner!.close();
        },
      ),
      floor: contender(
        context,
        runs,
        (rep) => {
          db = openSqlite(file("floor", rep));
          store = sqliteFloorStore(db);
        },
        async (count, rep) => {
          await runFloor(store!, count, `wf-${rep}`);
          db!.close();
        },
      ),
      mastra: contender(
        context,
        mastraRuns,
        async (rep) => {
          durable = await mastra.durable(file("mastra", rep), mastra.chain(DURABLE_LENGTH, "durable"));
        },
        async (count) => {
          let last: unknown;
          for (let i = 0; i < count; i++) last = await runMastra(durable!.workflow, { v: 0 });
          check("Mastra durable chain", (last as { v: number }).v, DURABLE_LENGTH);
          await durable!.close();
        },
        true,
      ),
    },
    { onProgress: (message) => progress("durable", `file: ${message}`) },
  );
  const ours = timeCell(m.ours, 1 / runs);
  const floor = timeCell(m.floor, 1 / runs);
  const mastraCell = timeCell(m.mastra, 1 / mastraRuns);
  progress(
    "durable",
    `file: ours ${fmt(ours.value)}, floor ${fmt(floor.value)}, Mastra ${fmt(mastraCell.value)} ms/run`,
  );
  return row({
    id: "durable-file-10",
    workload: "durable",
    label: 'durable 10-node workflow, local file, commit per step (ours SQLite "sync", Mastra LibSQL)',
    unit: "ms/run",
    ours,
    floor,
    langgraph: { skipped: "see the sqlite rows" },
    peers: { mastra: mastraCell, dbos: { skipped: "PostgreSQL only" } },
    targets: [
      { kind: "floorRatioMax", threshold: 1.3, description: "≤ 1.3× the one-row-per-step floor" },
      { kind: "peerSpeedupMin", peer: "mastra", threshold: 5 },
    ],
    notes: [
      `per run incl. close(); ${runs} workflows per repetition (Mastra: ${mastraRuns}); fresh file per repetition`,
      "ours: SQLite WAL + synchronous=NORMAL, a commit per step; floor: the same pragmas, one INSERT per step; Mastra: LibSQLStore defaults (a run snapshot written as steps finish)",
    ],
    details: { runs, mastraRuns, stepsPerRun: DURABLE_LENGTH },
  });
}

async function postgresRow(context: BenchContext, url: string, runs: number, dbosRuns: number): Promise<Row> {
  const admin = pgPool(url, 1);
  try {
    await admin.query("SELECT 1");
  } catch (error) {
    await admin.end().catch(() => {});
    const reason = `PostgreSQL not reachable (${(error as Error).message}); set DATABASE_URL to run this row`;
    return row({
      id: "durable-postgres-10",
      workload: "durable",
      label: "durable 10-node workflow, PostgreSQL, commit per step",
      unit: "ms/run",
      ours: { skipped: reason },
      floor: { skipped: reason },
      langgraph: { skipped: reason },
      peers: { dbos: { skipped: reason } },
      notes: [reason],
    });
  }
  const graph = ourChain(DURABLE_LENGTH);
  const tag = `${process.pid}_${Date.now().toString(36)}`;
  const schemas: string[] = [];
  const schema = (who: string, rep: number) => {
    const name = `bench_${who}_${tag}_${rep}`;
    schemas.push(name);
    return name;
  };
  let dbos: DbosKit | undefined;
  try {
    let runner: Runner | undefined;
    let pool: PgPool | undefined;
    let store: FloorStore | undefined;
    const m = await measureAll(
      {
        ours: contender(
          context,
          runs,
          async (rep) => {
            const checkpointer = new PostgresCheckpointer({
              connectionString: url,
              schema: schema("durable_ours", rep),
              policy: SYNC,
            });
            await checkpointer.setup();
            runner = new Runner({ checkpointer });
          },
          async (count, rep) => {
            await runOurs(runner!, graph, count, `wf-${rep}`);
            await runner!.close();
          },
        ),
        floor: contender(
          context,
          runs,
          async (rep) => {
            pool = pgPool(url, 1);
            store = await pgFloorStore(pool, schema("durable_floor", rep));
          },
          async (count, rep) => {
            await runFloor(store!, count, `wf-${rep}`);
            await pool!.end();
          },
        ),
        dbos: contender(
          context,
          dbosRuns,
          async () => {
            dbos ??= await launchDbos(url, DURABLE_LENGTH);
          },
          async (count) => {
            let last = 0;
            for (let i = 0; i < count; i++) last = await dbos!.chain(0);
            check("DBOS durable chain", last, DURABLE_LENGTH);
          },
          true,
        ),
      },
      { onProgress: (message) => progress("durable", `postgres: ${message}`) },
    );
    const ours = timeCell(m.ours, 1 / runs);
    const floor = timeCell(m.floor, 1 / runs);
    const dbosCell = timeCell(m.dbos, 1 / dbosRuns);
    progress(
      "durable",
      `postgres: ours ${fmt(ours.value)}, floor ${fmt(floor.value)}, DBOS ${fmt(dbosCell.value)} ms/run`,
    );
    return row({
      id: "durable-postgres-10",
      workload: "durable",
      label: 'durable 10-node workflow, PostgreSQL, commit per step (ours "sync", DBOS)',
      unit: "ms/run",
      ours,
      floor,
      langgraph: { skipped: "see the postgres rows" },
      peers: { mastra: { skipped: "@mastra/pg not installed" }, dbos: dbosCell },
      targets: [
        { kind: "floorRatioMax", threshold: 1.3, description: "≤ 1.3× the one-row-per-step floor" },
        { kind: "peerSpeedupMin", peer: "dbos", threshold: 2 },
      ],
      notes: [
        `per run incl. close(); ${runs} workflows per repetition (DBOS: ${dbosRuns}, one launch for all repetitions, not timed); fresh schema per repetition`,
        "floor: `pg`, one connection, one INSERT (autocommit) per step; DBOS: registerWorkflow calling 10 registerStep functions (a committed row per step)",
      ],
      details: { runs, dbosRuns, stepsPerRun: DURABLE_LENGTH },
    });
  } finally {
    await dbos?.shutdown();
    for (const name of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
    if (dbos !== undefined) await dropDbos(admin);
    await admin.end();
  }
}

export const durable: Workload = {
  name: "durable",
  title: "durable 10-node workflow, commit per step: ours vs Mastra (LibSQL file) and DBOS (PostgreSQL)",
  async run(context): Promise<Row[]> {
    const url = process.env["DATABASE_URL"] ?? DEFAULT_DATABASE_URL;
    const runs = context.quick ? 20 : 100;
    const peerRuns = context.quick ? 10 : 30;
    return [await fileRow(context, runs, peerRuns), await postgresRow(context, url, runs, peerRuns)];
  },
};
