/**
 * The crashed holder of the wait-for-lease test (started by `waitForLease.ts`; the spec is JSON in argv[2]): runs
 * the holder workflow under its own lease; `first` completes (its step is stored), `second` reports `holding` and
 * never returns. The test SIGKILLs it there, leaving the workflow `running` under a lease nobody renews.
 */
import { resolvePolicy } from "@graph/checkpoint";
import { Runner } from "@graph/runtime";
import { runChildMain, sendToParent } from "./childMain.js";
import { holderGraph } from "./holderGraph.js";
import type { AdapterRef } from "./processes.js";
import { loadFactory } from "./processes.js";

/** What the holder runs. */
export interface HolderSpec {
  readonly adapter: AdapterRef;
  readonly workflowId: string;
  readonly leaseTtlMs: number;
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? "{}") as HolderSpec;
  const factory = await loadFactory(spec.adapter);
  const checkpointer = await factory(spec.adapter.args, { policy: resolvePolicy({ durability: "sync" }) });
  const runner = new Runner({ checkpointer, owner: `holder-${process.pid}`, leaseTtlMs: spec.leaseTtlMs });
  const graph = holderGraph({
    first: () => undefined,
    second: async () => {
      await sendToParent({ type: "holding" });
      return new Promise<number>(() => undefined);
    },
  });
  await runner.run(graph, { workflowId: spec.workflowId, values: { n: 1 } });
}

runChildMain(main);
