/**
 * The process that pauses the due-wake workflow and dies (started by `dueWake.ts`; the spec is JSON in argv[2]): it
 * runs `a`, pauses in the 1 s sleep, reports `paused` with the stored due time and waits for its SIGKILL, so the
 * due time is only in the store and only another process's runner can resume it.
 */
import { resolvePolicy } from "@graph/checkpoint";
import { Runner } from "@graph/runtime";
import { runChildMain, sendToParent } from "./childMain.js";
import { dueGraph } from "./dueGraph.js";
import type { AdapterRef } from "./processes.js";
import { loadFactory } from "./processes.js";

/** What the pausing child runs. */
export interface DueSpec {
  readonly adapter: AdapterRef;
  readonly workflowId: string;
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? "{}") as DueSpec;
  const factory = await loadFactory(spec.adapter);
  const checkpointer = await factory(spec.adapter.args, { policy: resolvePolicy({ durability: "sync" }) });
  // No scheduler here: this process must not wake the workflow itself, even if it outlived the sleep.
  const runner = new Runner({ checkpointer, scheduler: false, owner: `pauser-${process.pid}` });
  const graph = dueGraph({
    b: () => {
      throw new Error("the pausing process must never run b");
    },
  });
  const result = await runner.run(graph, { workflowId: spec.workflowId, values: { n: 1 } });
  const stored = await checkpointer.getWorkflow(spec.workflowId);
  await sendToParent({ type: "paused", status: result.status, wakeAt: stored?.wakeAt?.getTime() ?? null });
  await new Promise(() => undefined);
}

runChildMain(main);
