import type { GraphNode } from "@graph/core";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import { RunResult } from "../../RunResult.js";
import type { EngineHost } from "../host.js";
import { NodeCtx } from "../nodeContext.js";
import { type Execution, isIterator, itemFailure, type Outcome, type RunError } from "../outcome.js";
import { RunConfig } from "../runConfig.js";

/**
 * A frames pipeline (`node({ frames: true })` and its per-frame consumers): pulls the generator while fewer than
 * `window` frames are unfinished, runs the consumers' graph once per frame as child run `<parent>/<node>/<i>`, and
 * gathers every output in frame order. A resumed run re-drives the generator from the start: frame `i` finds its
 * child run stored and completed, so its consumers don't run again (docs/pipelines.md).
 */
export function executeFrames(host: EngineHost, ex: Execution, n: GraphNode): Effect.Effect<Outcome, RunError> {
  const { source, output, window } = n.framesConfig!;
  const { control, completeOnStop } = host.config;
  const parentId = `${host.config.workflowId}/${n.name}`;
  return Effect.gen(function* () {
    const sourceInputs: Record<string, unknown> = {};
    for (const i of source.inputs) if (Object.hasOwn(ex.inputs, i)) sourceInputs[i] = ex.inputs[i];
    const base: Record<string, unknown> = {};
    const versions: Record<string, number> = {};
    for (const i of n.graph.inputs.all) {
      if (i === output || !Object.hasOwn(ex.inputs, i)) continue;
      base[i] = ex.inputs[i];
      versions[i] = ex.versions[i] ?? 0;
    }
    const returned = yield* Effect.try({
      try: () => source.invoke(sourceInputs, new NodeCtx(host, ex, undefined, 1) as never),
      catch: (e) => e,
    });
    if (!isIterator(returned))
      return yield* Effect.fail(new Error(`Frames node '${n.name}' did not return an iterator.`));
    const it = returned as AsyncIterator<unknown> | Iterator<unknown>;
    const frames: unknown[] = [];
    const results: RunResult[] = [];
    const permits = yield* Effect.makeSemaphore(window);
    const fibers: Fiber.RuntimeFiber<void, RunError>[] = [];
    let failedAt = -1;
    let completed = 0;
    const runFrame = (i: number, frame: unknown) => {
      const config = RunConfig.child(host.config, {
        workflowId: `${parentId}/${i}`,
        values: { ...base, [output]: frame },
        parentVersions: versions,
        completeOnStop: n.completeOnStop,
        parentSpanId: ex.spanId,
      });
      return host
        .spawn(n.graph, config)
        .run()
        .pipe(
          Effect.map((r) => {
            results[i] = r;
            if (r.status === "failed" && (failedAt < 0 || i < failedAt)) failedAt = i;
            completed++;
            host.event("MapProgress", { nodeName: n.name, completed, total: frames.length }, ex.spanId);
          }),
          Effect.ensuring(Effect.sync(() => control.release(config.control))),
          Effect.ensuring(permits.release(1)),
        );
    };
    let stoppedEarly = false;
    while (true) {
      yield* permits.take(1);
      if (failedAt >= 0 || control.stopRequested) {
        stoppedEarly = control.stopRequested;
        yield* permits.release(1);
        yield* Effect.promise(async () => it.return?.(undefined)).pipe(Effect.ignore);
        break;
      }
      const step = yield* Effect.tryPromise({ try: async () => it.next(), catch: (e) => e });
      if (step.done) {
        yield* permits.release(1);
        break;
      }
      const i = frames.length;
      frames.push(step.value);
      fibers.push(yield* Effect.fork(runFrame(i, step.value)));
    }
    yield* Fiber.joinAll(fibers);
    return gather(host, n, parentId, frames, results, failedAt, stoppedEarly, completeOnStop);
  }).pipe(Effect.catchAll((error) => Effect.succeed<Outcome>({ kind: "failed", error, childWorkflowId: parentId })));
}

/** The pipeline's outputs: the frames, and each consumer output as a list in frame order. */
function gather(
  host: EngineHost,
  n: GraphNode,
  parentId: string,
  frames: readonly unknown[],
  results: readonly RunResult[],
  failedAt: number,
  stoppedEarly: boolean,
  completeOnStop: boolean,
): Outcome {
  const output = n.framesConfig!.output;
  const stopped = stoppedEarly || results.some((r) => r.status === "stopped");
  // A stopped pipeline keeps only the frames whose consumers finished (completeOnStop).
  const kept = stopped ? results.findIndex((r) => r.status !== "completed") : -1;
  const count = kept < 0 ? frames.length : kept;
  const values: Record<string, unknown> = { [output]: frames.slice(0, count) };
  for (const o of n.graph.outputs) values[o] = results.slice(0, count).map((r) => r.values[o]);
  const status = failedAt >= 0 ? "failed" : stopped ? "stopped" : "completed";
  const error = failedAt >= 0 ? results[failedAt]!.error : undefined;
  const nested = new RunResult({ status, values, workflowId: parentId, runId: host.config.runId, error });
  if (failedAt >= 0)
    return { kind: "failed", error: itemFailure(n, failedAt, error), nested, childWorkflowId: parentId };
  if (stopped && !completeOnStop && !n.completeOnStop) return { kind: "stopped", nested, childWorkflowId: parentId };
  return { kind: "completed", outputs: values, nested, childWorkflowId: parentId, truncated: stopped };
}
