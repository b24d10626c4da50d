// Workload 5: the SQLite workload on PostgreSQL. Ours: PostgresCheckpointer in a fresh schema per repetition;
// LangGraph.js: PostgresSaver in its own fresh schema; floor: one INSERT per step through `pg`. Every schema the
// bench creates is dropped at the end. Server: DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres.
import { PostgresCheckpointer } from "@graph/checkpoint-postgres";
import { Runner } from "@graph/runtime";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import type { BenchContext, Workload } from "../lib/context.js";
import { type PgPool, type PgQueryable, pgPool } from "../lib/drivers.js";
import { DURABLE_LENGTH, type FloorStore, runFloor, runLangGraph, runOurs } from "../lib/durable.js";
import { ourChain } from "../lib/graphs.js";
import { type LangGraphApp, langgraphChain } from "../lib/langgraph.js";
import { type Row, row, timeCell } from "../lib/results.js";
import { fmt, measureAll, progress } from "../lib/timing.js";

const DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/postgres";

/** Row bytes (`pg_column_size`) and on-disk bytes (`pg_total_relation_size`) of every table in a schema. */
async function schemaBytes(db: PgQueryable, schema: string): Promise<{ rowBytes: number; relationBytes: number }> {
  const tables = await db.query(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE'",
    [schema],
  );
  let rowBytes = 0;
  let relationBytes = 0;
  for (const { table_name } of tables.rows) {
    const qualified = `"${schema}"."${String(table_name)}"`;
    const r = await db.query(
      `SELECT coalesce(sum(pg_column_size(t.*)), 0)::bigint AS rows, pg_total_relation_size('${qualified}')::bigint AS rel FROM ${qualified} t`,
    );
    rowBytes += Number(r.rows[0]!["rows"]);
    relationBytes += Number(r.rows[0]!["rel"]);
  }
  return { rowBytes, relationBytes };
}

export async function pgFloorStore(pool: PgPool, schema: string): Promise<FloorStore> {
  await pool.query(`CREATE SCHEMA "${schema}"`);
  await pool.query(`CREATE TABLE "${schema}".workflows (id text PRIMARY KEY, status text NOT NULL)`);
  await pool.query(
    `CREATE TABLE "${schema}".steps (workflow_id text NOT NULL, idx integer NOT NULL, node text NOT NULL, value jsonb NOT NULL, PRIMARY KEY (workflow_id, idx))`,
  );
  return {
    startWorkflow: async (id) =>
      void (await pool.query(`INSERT INTO "${schema}".workflows (id, status) VALUES ($1, 'running')`, [id])),
    saveStep: async (id, index, node, value) =>
      void (await pool.query(`INSERT INTO "${schema}".steps (workflow_id, idx, node, value) VALUES ($1, $2, $3, $4)`, [
        id,
        index,
        node,
        value,
      ])),
    finishWorkflow: async (id) =>
      void (await pool.query(`UPDATE "${schema}".workflows SET status = 'completed' WHERE id = $1`, [id])),
  };
}

function skippedRows(reason: string, runs: number): Row[] {
  const skipped = { skipped: reason };
  return [
    row({
      id: `postgres-chain-10x${runs}`,
      workload: "postgres",
      label: `PostgreSQL: chain of 10 × ${runs} workflows`,
      unit: "ms/run",
      ours: skipped,
      floor: skipped,
      langgraph: skipped,
      targets: [{ kind: "speedupMin", threshold: 5 }],
      notes: [reason],
    }),
  ];
}

export const postgres: Workload = {
  name: "postgres",
  title: "10-node chain + PostgreSQL checkpointer × 200 workflows",
  async run(context: BenchContext): Promise<Row[]> {
    const url = process.env["DATABASE_URL"] ?? DEFAULT_DATABASE_URL;
    const runs = context.quick ? 20 : 200;
    const admin = pgPool(url, 2);
    try {
      await admin.query("SELECT 1");
    } catch (error) {
      await admin.end().catch(() => {});
      const reason = `PostgreSQL not reachable at ${url.replace(/\/\/[^@]*@/, "//…@")} (${(error as Error).message}); set DATABASE_URL to run this workload`;
      progress("postgres", `skipped: ${reason}`);
      return skippedRows(reason, runs);
    }

    const warmRuns = Math.min(runs, 20);
    const steps = runs * DURABLE_LENGTH;
    const tag = `${process.pid}_${Date.now().toString(36)}`;
    const schemas: string[] = [];
    const schema = (who: string, rep: number) => {
      const name = `bench_${who}_${tag}_${rep}`;
      schemas.push(name);
      return name;
    };
    const lastSchema: Record<string, string> = {};
    const graph = ourChain(DURABLE_LENGTH);

    try {
      let runner: Runner | undefined;
      const oursRun = (count: number) => async (rep: number) => {
        await runOurs(runner!, graph, count, `wf-${rep}`);
        await runner!.close();
      };
      let pool: PgPool | undefined;
      let store: FloorStore | undefined;
      const floorRun = (count: number) => async (rep: number) => {
        await runFloor(store!, count, `wf-${rep}`);
        await pool!.end();
      };
      let saver: PostgresSaver | undefined;
      let app: LangGraphApp | undefined;
      const langgraphRun = (count: number) => async (rep: number) => {
        await runLangGraph(app!, count, `t-${rep}`);
        await saver!.end();
      };

      const m = await measureAll(
        {
          ours: {
            warmup: 1,
            warmupMs: context.warmupMs,
            reps: context.reps,
            before: async (rep) => {
              const checkpointer = new PostgresCheckpointer({
                connectionString: url,
                schema: (lastSchema["ours"] = schema("ours", rep)),
              });
              await checkpointer.setup();
              runner = new Runner({ checkpointer });
            },
            warmupRun: oursRun(warmRuns),
            run: oursRun(runs),
          },
          floor: {
            warmup: 1,
            warmupMs: context.warmupMs,
            reps: context.reps,
            before: async (rep) => {
              pool = pgPool(url, 1);
              store = await pgFloorStore(pool, (lastSchema["floor"] = schema("floor", rep)));
            },
            warmupRun: floorRun(warmRuns),
            run: floorRun(runs),
          },
          langgraph: {
            warmup: 1,
            reps: context.slowReps,
            before: async (rep) => {
              saver = PostgresSaver.fromConnString(url, {
                schema: (lastSchema["langgraph"] = schema("langgraph", rep)),
              });
              await saver.setup();
              app = langgraphChain(DURABLE_LENGTH, saver);
            },
            warmupRun: langgraphRun(warmRuns),
            run: langgraphRun(runs),
          },
        },
        { onProgress: (message) => progress("postgres", message) },
      );
      const ours = timeCell(m.ours, 1 / runs);
      const floor = timeCell(m.floor, 1 / runs);
      const langgraph = timeCell(m.langgraph, 1 / runs);
      progress(
        "postgres",
        `ours ${fmt(ours.value)}, floor ${fmt(floor.value)}, LangGraph.js ${fmt(langgraph.value)} ms/run`,
      );
      const reopened = new PostgresCheckpointer({ connectionString: url, schema: lastSchema["ours"]! });
      const adapterBytes = await reopened.storageBytes();
      await reopened.close();

      const bytes = {
        ours: await schemaBytes(admin, lastSchema["ours"]!),
        floor: await schemaBytes(admin, lastSchema["floor"]!),
        langgraph: await schemaBytes(admin, lastSchema["langgraph"]!),
      };
      const perStep = (b: { rowBytes: number }) => ({ value: b.rowBytes / steps });
      progress(
        "postgres",
        `bytes per step (row bytes): ours ${fmt(bytes.ours.rowBytes / steps)}, floor ${fmt(bytes.floor.rowBytes / steps)}, LangGraph.js ${fmt(bytes.langgraph.rowBytes / steps)}`,
      );

      return [
        row({
          id: `postgres-chain-10x${runs}`,
          workload: "postgres",
          label: `PostgreSQL: chain of 10 × ${runs} workflows`,
          unit: "ms/run",
          ours,
          floor,
          langgraph,
          targets: [{ kind: "speedupMin", threshold: 5 }],
          notes: [
            `per run incl. close(); fresh schema per repetition; median of ${context.reps} (LangGraph.js: ${context.slowReps}); server ${url.replace(/\/\/[^@]*@/, "//…@")}`,
            "ours: default policy (durability async, retention full); floor: one INSERT per step on one connection",
          ],
          details: { runs, stepsPerRun: DURABLE_LENGTH },
        }),
        row({
          id: "postgres-bytes-per-step",
          workload: "postgres",
          label: "PostgreSQL: bytes stored per step",
          unit: "B/step",
          ours: perStep(bytes.ours),
          floor: perStep(bytes.floor),
          langgraph: perStep(bytes.langgraph),
          targets: [{ kind: "max", threshold: 1024, description: "≤ 1 KB/step" }],
          notes: [
            `sum of pg_column_size(row) over the schema's tables / ${steps} steps; on disk incl. indexes and free space (pg_total_relation_size): ` +
              `ours ${fmt(bytes.ours.relationBytes / steps)}, floor ${fmt(bytes.floor.relationBytes / steps)}, LangGraph.js ${fmt(bytes.langgraph.relationBytes / steps)} B/step`,
            `ours adapter storageBytes() = ${adapterBytes} B (${fmt(adapterBytes / steps)} B/step)`,
          ],
          details: { steps, ...bytes, oursAdapterStorageBytes: adapterBytes },
        }),
      ];
    } finally {
      for (const name of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
      await admin.end();
      progress("postgres", `dropped ${schemas.length} bench schemas`);
    }
  },
};
