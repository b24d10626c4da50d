// Workload 4: the 10-node chain with the SQLite checkpointer, run 200 times with distinct workflow ids on a fresh
// database file per repetition; LangGraph.js with SqliteSaver (one thread_id per run); the floor stores one row per
// step with better-sqlite3. Closing (which flushes pending writes) is inside the timed region for all three.
// Also bytes stored per step: the database file after close (SQLite checkpoints the WAL into it) / steps.
import fs from "node:fs";
import path from "node:path";
import { SqliteCheckpointer } from "@graph/checkpoint-sqlite";
import { Runner } from "@graph/runtime";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import type { BenchContext, Workload } from "../lib/context.js";
import { openSqlite, type SqliteDatabase } from "../lib/drivers.js";
import { DURABLE_LENGTH, type FloorStore, runFloor, runLangGraph, runOurs } from "../lib/durable.js";
import { ourChain } from "../lib/graphs.js";
import { type LangGraphApp, langgraphChain } from "../lib/langgraph.js";
import { type Row, row, timeCell } from "../lib/results.js";
import { fmt, type MeasureOptions, measureAll, progress } from "../lib/timing.js";

/** Size of the database after close: the main file plus any WAL left behind. */
function storedBytes(file: string): number {
  let bytes = 0;
  for (const f of [file, `${file}-wal`]) if (fs.existsSync(f)) bytes += fs.statSync(f).size;
  return bytes;
}

export function sqliteFloorStore(db: SqliteDatabase): FloorStore {
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.exec(
    "CREATE TABLE workflows (id TEXT PRIMARY KEY, status TEXT NOT NULL);" +
      "CREATE TABLE steps (workflow_id TEXT NOT NULL, idx INTEGER NOT NULL, node TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (workflow_id, idx));",
  );
  const start = db.prepare("INSERT INTO workflows (id, status) VALUES (?, 'running')");
  const step = db.prepare("INSERT INTO steps (workflow_id, idx, node, value) VALUES (?, ?, ?, ?)");
  const finish = db.prepare("UPDATE workflows SET status = 'completed' WHERE id = ?");
  return {
    startWorkflow: (id) => void start.run(id),
    saveStep: (id, index, node, value) => void step.run(id, index, node, value),
    finishWorkflow: (id) => void finish.run(id),
  };
}

export const sqlite: Workload = {
  name: "sqlite",
  title: "10-node chain + SQLite checkpointer × 200 workflows",
  async run(context: BenchContext): Promise<Row[]> {
    const runs = context.quick ? 20 : 200;
    const warmRuns = Math.min(runs, 20);
    const steps = runs * DURABLE_LENGTH;
    const file = (who: string, rep: number) => path.join(context.tmpDir, `sqlite-${who}-${rep}.db`);
    const graph = ourChain(DURABLE_LENGTH);
    const lastFile: Record<string, string> = {};

    const oursWith = (who: string, policy: { durability: "sync" | "async" }): MeasureOptions => {
      let runner: Runner | undefined;
      const go = (count: number) => async (rep: number) => {
        await runOurs(runner!, graph, count, `wf-${rep}`);
        await runner!.close();
      };
      return {
        warmup: 1,
        warmupMs: context.warmupMs,
        reps: context.reps,
        before: async (rep) => {
          const checkpointer = new SqliteCheckpointer({ path: (lastFile[who] = file(who, rep)), policy });
          await checkpointer.setup();
          runner = new Runner({ checkpointer });
        },
        warmupRun: go(warmRuns),
        run: go(runs),
      };
    };

    let db: SqliteDatabase | undefined;
    let store: FloorStore | undefined;
    const floorRun = (count: number) => async (rep: number) => {
      await runFloor(store!, count, `wf-${rep}`);
      db!.close();
    };
    let saver: SqliteSaver | undefined;
    let app: LangGraphApp | undefined;
    const langgraphRun = (count: number) => async (rep: number) => {
      await runLangGraph(app!, count, `t-${rep}`);
      saver!.db.close();
    };

    const m = await measureAll(
      {
        ours: oursWith("ours", { durability: "async" }),
        oursSync: oursWith("ours-sync", { durability: "sync" }),
        floor: {
          warmup: 1,
          warmupMs: context.warmupMs,
          reps: context.reps,
          before: (rep) => {
            db = openSqlite((lastFile["floor"] = file("floor", rep)));
            store = sqliteFloorStore(db);
          },
          warmupRun: floorRun(warmRuns),
          run: floorRun(runs),
        },
        langgraph: {
          warmup: 1,
          reps: context.slowReps,
          before: (rep) => {
            saver = SqliteSaver.fromConnString((lastFile["langgraph"] = file("langgraph", rep)));
            (saver as unknown as { setup(): void }).setup();
            app = langgraphChain(DURABLE_LENGTH, saver);
          },
          warmupRun: langgraphRun(warmRuns),
          run: langgraphRun(runs),
        },
      },
      { onProgress: (message) => progress("sqlite", message) },
    );
    const ours = timeCell(m.ours, 1 / runs);
    const oursSync = timeCell(m.oursSync, 1 / runs);
    const floor = timeCell(m.floor, 1 / runs);
    const langgraph = timeCell(m.langgraph, 1 / runs);
    progress(
      "sqlite",
      `ours ${fmt(ours.value)}, durability sync ${fmt(oursSync.value)}, floor ${fmt(floor.value)}, LangGraph.js ${fmt(langgraph.value)} ms/run`,
    );

    const oursBytes = storedBytes(lastFile["ours"]!);
    const reopened = new SqliteCheckpointer({ path: lastFile["ours"]! });
    const adapterBytes = await reopened.storageBytes();
    await reopened.close();
    const empty = new SqliteCheckpointer({ path: file("empty", 0) });
    await empty.setup();
    await empty.close();
    const emptyBytes = storedBytes(file("empty", 0));
    const floorBytes = storedBytes(lastFile["floor"]!);
    const langgraphBytes = storedBytes(lastFile["langgraph"]!);
    const bytesPerStep = (bytes: number) => ({ value: bytes / steps });
    progress(
      "sqlite",
      `bytes per step: ours ${fmt(oursBytes / steps)} (net of the empty schema ${fmt((oursBytes - emptyBytes) / steps)}), floor ${fmt(floorBytes / steps)}, LangGraph.js ${fmt(langgraphBytes / steps)}`,
    );

    return [
      row({
        id: `sqlite-chain-10x${runs}`,
        workload: "sqlite",
        label: `SQLite: chain of 10 × ${runs} workflows`,
        unit: "ms/run",
        ours,
        floor,
        langgraph,
        targets: [
          { kind: "speedupMin", threshold: 15 },
          { kind: "max", threshold: 0.5 },
        ],
        notes: [
          `node functions \`async\`; per run incl. close() (flushes pending writes); fresh database file per repetition; median of ${context.reps} (LangGraph.js: ${context.slowReps})`,
          "ours: default policy (durability async, retention full), WAL + synchronous=NORMAL; LangGraph SqliteSaver: WAL + synchronous=FULL (its default); floor: WAL + NORMAL, one INSERT per step",
        ],
        details: { runs, stepsPerRun: DURABLE_LENGTH },
      }),
      row({
        id: `sqlite-chain-10x${runs}-sync`,
        workload: "sqlite",
        label: `SQLite, durability "sync" (info)`,
        unit: "ms/run",
        ours: oursSync,
        floor,
        langgraph,
        notes: [
          "informational: every step is committed before the next node starts, like SqliteSaver; the target applies to the default policy",
        ],
      }),
      row({
        id: "sqlite-bytes-per-step",
        workload: "sqlite",
        label: "SQLite: bytes stored per step",
        unit: "B/step",
        ours: bytesPerStep(oursBytes),
        floor: bytesPerStep(floorBytes),
        langgraph: bytesPerStep(langgraphBytes),
        targets: [{ kind: "max", threshold: 200, description: "≤ 200 B/step" }],
        notes: [
          `database file size after close (WAL checkpointed into it) / ${steps} steps (${runs} runs × ${DURABLE_LENGTH} nodes), schema pages included`,
          `ours: ${oursBytes} B total, empty schema ${emptyBytes} B → ${fmt((oursBytes - emptyBytes) / steps)} B/step net; adapter storageBytes() = ${adapterBytes} B (${fmt(adapterBytes / steps)} B/step)`,
        ],
        details: {
          steps,
          oursBytes,
          emptySchemaBytes: emptyBytes,
          oursAdapterStorageBytes: adapterBytes,
          floorBytes,
          langgraphBytes,
        },
      }),
    ];
  },
};
