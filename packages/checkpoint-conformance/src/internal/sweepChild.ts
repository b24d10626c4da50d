/**
 * A runner of the sweeper-under-load test (started by `sweeper.ts`; the spec is JSON in argv[2]): on `go`, starts
 * runs of a one-node graph one after another, each under a new workflow id, on a store with the test's retention
 * policy (its own housekeeping off: the test process sweeps), until told to `stop`; then reports how many runs
 * completed and every failure.
 */
import { resolvePolicy } from "@graph/checkpoint";
import { Graph, node } from "@graph/core";
import { Runner } from "@graph/runtime";
import { runChildMain, sendToParent } from "./childMain.js";
import type { AdapterRef } from "./processes.js";
import { loadFactory } from "./processes.js";

/** What the child runs. */
export interface SweepChildSpec {
  readonly adapter: AdapterRef;
  readonly base: string;
  readonly ttlMs: number | undefined;
}

/** What the child reports. */
export type SweepChildMessage =
  | { readonly type: "ready" }
  | { readonly type: "done"; readonly completed: number; readonly failures: readonly string[] }
  | { readonly type: "error"; readonly message: string };

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? "{}") as SweepChildSpec;
  const factory = await loadFactory(spec.adapter);
  const policy = resolvePolicy(spec.ttlMs === undefined ? {} : { ttlMs: spec.ttlMs });
  const checkpointer = await factory(spec.adapter.args, { policy });
  const runner = new Runner({ checkpointer, owner: `starter-${process.pid}`, housekeeping: false, scheduler: false });
  const graph = new Graph([node({ name: "work", inputs: ["x"], output: "y" }, async ({ x }: { x: number }) => x + 1)], {
    name: "sweep-load",
  });
  let stopping = false;
  const go = new Promise<void>((resolve) =>
    process.on("message", (message: { type: string }) => {
      if (message.type === "go") resolve();
      if (message.type === "stop") stopping = true;
    }),
  );
  await sendToParent({ type: "ready" });
  await go;
  let completed = 0;
  const failures: string[] = [];
  for (let i = 0; !stopping; i++) {
    // A store with a synchronous write path (SQLite) resolves a run without a turn of the event loop: yield one, so
    // the parent's `stop` is read.
    await new Promise((resolve) => setImmediate(resolve));
    try {
      const result = await runner.run(graph, { workflowId: `${spec.base}-run-${process.pid}-${i}`, values: { x: i } });
      if (result.status === "completed" && result.values["y"] === i + 1) completed++;
      else failures.push(`run ${i}: ${result.status} ${JSON.stringify(result.values)}`);
    } catch (error) {
      failures.push(`run ${i}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  await runner.close();
  await sendToParent({ type: "done", completed, failures });
}

runChildMain(main);
