/**
 * The killed process of the durable-attempts crash test (started by `engineAttempts.ts`; the spec is JSON in
 * argv[2]): runs the attempts workflow, and in attempt `killAttempt` SIGKILLs itself — once the attempt's start is in
 * storage when the durability stores it while the attempt runs (`sync`: already before the call, which it reports;
 * `async`: after the background writer's next batch), at once in `exit` durability (nothing is stored before the end).
 */
import type { Durability } from "@graph/checkpoint";
import { resolvePolicy } from "@graph/checkpoint";
import { Runner } from "@graph/runtime";
import { attemptsGraph } from "./attemptsGraph.js";
import { runChildMain, sendToParent } from "./childMain.js";
import type { AdapterRef } from "./processes.js";
import { loadFactory } from "./processes.js";

/** What the killed process runs. */
export interface AttemptsChildSpec {
  readonly adapter: AdapterRef;
  readonly durability: Durability;
  readonly leaseTtlMs: number;
  readonly workflowId: string;
  readonly logFile: string;
  readonly killAttempt: number;
}

/** What it reports just before it dies: whether the running attempt's start was stored when the function was called. */
export interface AttemptsChildMessage {
  readonly type: "dying";
  readonly storedAtCall: boolean;
}

function die(): never {
  process.kill(process.pid, "SIGKILL");
  for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? "{}") as AttemptsChildSpec;
  const factory = await loadFactory(spec.adapter);
  const policy = resolvePolicy({ durability: spec.durability });
  const checkpointer = await factory(spec.adapter.args, { policy });
  const probe = await factory(spec.adapter.args, { policy: resolvePolicy({ durability: "sync" }) });
  const started = async (attempt: number) =>
    (await probe.getSteps(spec.workflowId)).some(
      (s) => s.nodeName === "charge" && s.status === "running" && s.attempt?.number === attempt,
    );
  const runner = new Runner({ checkpointer, leaseTtlMs: spec.leaseTtlMs });
  const graph = attemptsGraph(spec.logFile, async (attempt) => {
    if (attempt !== spec.killAttempt) return undefined;
    const storedAtCall = await started(attempt);
    if (spec.durability === "async") {
      const deadline = Date.now() + 10_000;
      while (!(await started(attempt)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    }
    await sendToParent({ type: "dying", storedAtCall } satisfies AttemptsChildMessage);
    die();
  });
  await runner.run(graph, { workflowId: spec.workflowId, values: { order: "o-1" } });
  throw new Error(`the run of '${spec.workflowId}' ended before attempt ${spec.killAttempt} was killed`);
}

runChildMain(main);
