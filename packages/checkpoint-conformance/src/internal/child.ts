/**
 * The child process of the engine tests (started by `processes.ts` with `fork`). The spec is JSON in argv[2]:
 *
 * - `crash`: runs the engine graph's workflow (or, with `graph: "matrix"`, the crash matrix's), answering the
 *   interrupt, and SIGKILLs itself right after the `killAt`-th `CheckpointSaved` event — synchronously, inside the event processor, so nothing runs after that
 *   step boundary. Reports `finished` if the run ends before that.
 * - `resume`: runs the workflow to its end and reports its final values (serialised with `defaultSerializer`).
 * - `race`: waits for `go`, then at `at + i * gapMs` resumes workflow i with the answer; reports each outcome
 *   (the run's status, or the error's `_tag`). The racer that gets `WorkflowConflictError` creates `<log>.lost`;
 *   the winner's `finalize` waits for that file, so it still holds the lease when the loser claims.
 *
 * Node executions are appended to the log file synchronously, so they survive the kill.
 */
import fs from "node:fs";
import { defaultSerializer, resolvePolicy } from "@graph/checkpoint";
import type { GraphEvent } from "@graph/runtime";
import { Runner, RunResult } from "@graph/runtime";
import { runChildMain, sendToParent } from "./childMain.js";
import { drive, engineGraph, RACE_VALUES, raceGraph } from "./engineGraph.js";
import { matrixGraph, startMatrix } from "./matrixGraph.js";
import type { ChildMessage, ChildSpec, GoMessage, RaceOutcome } from "./processes.js";
import { loadFactory } from "./processes.js";

const send: (message: ChildMessage) => Promise<void> = sendToParent;

function die(): never {
  process.kill(process.pid, "SIGKILL");
  // SIGKILL to oneself is delivered before the syscall returns; block in case it is not, so no more JS runs.
  for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
}

async function untilExists(file: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!fs.existsSync(file) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
}

const appender = (file: string) => (name: string) => fs.appendFileSync(file, `${name}\n`);

/** Plain values of a result (nested RunResults left out: they carry run ids). */
function plainValues(result: RunResult): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(result.values)) if (!(v instanceof RunResult)) values[k] = v;
  return values;
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? "{}") as ChildSpec;
  const factory = await loadFactory(spec.adapter);
  const checkpointer = await factory(spec.adapter.args, { policy: resolvePolicy({ durability: spec.durability }) });
  if (spec.role === "race") {
    await race(spec, checkpointer);
    return;
  }
  let saves = 0;
  const killAt = spec.killAt;
  const onEvent = (event: GraphEvent) => {
    if (event.type === "CheckpointSaved" && ++saves === killAt) die();
  };
  const runner = new Runner({ checkpointer, leaseTtlMs: spec.leaseTtlMs, eventProcessors: [{ onEvent }] });
  const record = appender(spec.logFile);
  const result =
    spec.graph === "matrix"
      ? await startMatrix(runner, matrixGraph(record), spec.workflowId)
      : await drive(runner, engineGraph(record), spec.workflowId);
  await runner.close();
  await send({
    type: "finished",
    saves,
    status: result.status,
    values: defaultSerializer.serialize(plainValues(result)),
  });
}

async function race(
  spec: Extract<ChildSpec, { role: "race" }>,
  checkpointer: Awaited<ReturnType<Awaited<ReturnType<typeof loadFactory>>>>,
) {
  const runner = new Runner({ checkpointer, leaseTtlMs: spec.leaseTtlMs });
  const go = new Promise<GoMessage>((resolve) => process.once("message", (m) => resolve(m as GoMessage)));
  await send({ type: "ready" });
  const { at } = await go;
  const outcomes: RaceOutcome[] = [];
  for (let i = 0; i < spec.workflowIds.length; i++) {
    const workflowId = spec.workflowIds[i]!;
    const wait = at + i * spec.gapMs - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const log = spec.logFiles[i]!;
    const graph = raceGraph(appender(log), () => untilExists(`${log}.lost`, 15_000));
    try {
      const result = await runner.run(graph, { workflowId, values: RACE_VALUES });
      outcomes.push({ workflowId, status: result.status });
    } catch (error) {
      const e = error as { _tag?: string; message?: string };
      if (e?._tag === "WorkflowConflictError") fs.writeFileSync(`${log}.lost`, String(process.pid));
      outcomes.push({ workflowId, tag: e?._tag ?? "untagged", message: String(e?.message ?? error) });
    }
  }
  await runner.close();
  await send({ type: "race", outcomes });
}

runChildMain(main);
