/**
 * A runner SIGSTOPped inside a write transaction (started by `frozenWriter.ts`; the spec is JSON in argv[2]). It runs
 * the frozen-writer graph with durability "sync" under a short lease. The adapter module's `insideWrite` export
 * calls back when one of the store's write transactions holds its locks and waits on this process; once `second`
 * ran, the next such call writes `<dir>/frozen` and stops the process (after `settleMs` of running on, so its own
 * lease renewal is sent and queues behind the lock it holds).
 */
import fs from "node:fs";
import path from "node:path";
import { resolvePolicy } from "@graph/checkpoint";
import { Runner } from "@graph/runtime";
import { runChildMain } from "./childMain.js";
import { frozenWriterGraph } from "./frozenWriterGraph.js";
import type { AdapterRef } from "./processes.js";
import { loadExport, loadFactory } from "./processes.js";

/** What the freezing child runs. */
export interface FrozenWriterSpec {
  readonly adapter: AdapterRef;
  readonly hookExport: string;
  readonly workflowId: string;
  readonly dir: string;
  readonly leaseTtlMs: number;
  readonly settleMs: number;
}

/** The adapter's hook: `onLocked` runs inside each write transaction once its locks are taken. */
type InsideWrite = (onLocked: () => void | Promise<void>) => void;

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? "{}") as FrozenWriterSpec;
  const factory = await loadFactory(spec.adapter);
  const insideWrite = (await loadExport(spec.adapter, spec.hookExport)) as InsideWrite;
  let armed = false;
  const stop = () => {
    fs.writeFileSync(path.join(spec.dir, "frozen"), JSON.stringify({ pid: process.pid, at: Date.now() }));
    process.kill(process.pid, "SIGSTOP");
  };
  insideWrite(() => {
    if (!armed) return;
    armed = false;
    if (spec.settleMs <= 0) return stop();
    return new Promise<void>((resolve) =>
      setTimeout(() => {
        stop();
        resolve();
      }, spec.settleMs),
    );
  });
  const checkpointer = await factory(spec.adapter.args, { policy: resolvePolicy({ durability: "sync" }) });
  const runner = new Runner({ checkpointer, leaseTtlMs: spec.leaseTtlMs, owner: `frozen-${process.pid}` });
  const graph = frozenWriterGraph((name) => {
    // The next write transaction is the one of this node's step.
    if (name === "second") armed = true;
  });
  await runner.run(graph, { workflowId: spec.workflowId, values: { n: 0 } });
}

runChildMain(main);
