/**
 * The crashed run of the frames SIGKILL test (started by `engineFrames.ts`; the spec is JSON in argv[2]): runs the
 * frames pipeline and SIGKILLs itself right after its `killAfter`-th write, mid-stream, frames still in flight.
 */
import { resolvePolicy } from "@graph/checkpoint";
import { Runner } from "@graph/runtime";
import { runChildMain } from "./childMain.js";
import { FRAMES, framesGraph } from "./framesGraph.js";
import type { AdapterRef } from "./processes.js";
import { loadFactory } from "./processes.js";

/** What the child runs. */
export interface FramesChildSpec {
  readonly adapter: AdapterRef;
  readonly workflowId: string;
  readonly logFile: string;
  readonly leaseTtlMs: number;
  readonly killAfter: number;
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? "{}") as FramesChildSpec;
  const factory = await loadFactory(spec.adapter);
  const checkpointer = await factory(spec.adapter.args, { policy: resolvePolicy({ durability: "sync" }) });
  const runner = new Runner({ checkpointer, owner: `frames-${process.pid}`, leaseTtlMs: spec.leaseTtlMs });
  const graph = framesGraph(spec.logFile, (_, writes) => {
    if (writes === spec.killAfter) process.kill(process.pid, "SIGKILL");
  });
  await runner.run(graph, { workflowId: spec.workflowId, values: { count: FRAMES } });
}

runChildMain(main);
