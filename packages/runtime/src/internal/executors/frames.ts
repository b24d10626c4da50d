import type { UsageRecord } from "@graph/checkpoint";
import { BUDGET_KEY, type GraphNode } from "@graph/core";
import * as Cause from "effect/Cause";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import { type PauseInfo, RunResult } from "../../RunResult.js";
import { type FrameRunner, poolFrames } from "../framesDispatch.js";
import type { EngineHost } from "../host.js";
import { rollUp } from "../journalUsage.js";
import { NodeCtx } from "../nodeContext.js";
import { type Execution, isIterator, itemFailure, type Outcome, type RunError } from "../outcome.js";
import { RunConfig } from "../runConfig.js";
import { sumUsage } from "../usage.js";

/**
 * A frames pipeline (`node({ frames: true })` and its per-frame consumers): pulls the generator while fewer than
 * `window` frames are unfinished, runs the consumers' graph once per frame as child run `<parent>/<node>/<i>`, and
 * gathers every output in frame order. A resumed run re-drives the generator from the start: frame `i` finds its
 * child run stored and completed, so its consumers don't run again (docs/pipelines.md).
 */
export function executeFrames(host: EngineHost, ex: Execution, n: GraphNode): Effect.Effect<Outcome, RunError> {
  const { source, output, window } = n.framesConfig!;
  const completeOnStop = host.config.completeOnStop;
  const parentId = `${host.config.workflowId}/${n.name}`;
  const failed = (error: unknown): Outcome => ({ kind: "failed", error, childWorkflowId: parentId });
  return Effect.async<Outcome>((resume) => {
    const base: Record<string, unknown> = {};
    const versions: Record<string, number> = {};
    for (const i of n.graph.inputs.all) {
      if (i === output || !Object.hasOwn(ex.inputs, i)) continue;
      base[i] = ex.inputs[i];
      versions[i] = ex.versions[i] ?? 0;
    }
    const sourceInputs: Record<string, unknown> = {};
    for (const i of source.inputs) if (Object.hasOwn(ex.inputs, i)) sourceInputs[i] = ex.inputs[i];
    let returned: unknown;
    try {
      returned = source.invoke(sourceInputs, new NodeCtx(host, ex, undefined, 1) as never);
    } catch (error) {
      resume(Effect.succeed(failed(error)));
      return;
    }
    if (!isIterator(returned)) {
      resume(Effect.succeed(failed(new Error(`Frames node '${n.name}' did not return an iterator.`))));
      return;
    }
    const valuesOf = (frame: unknown) => ({ ...base, [output]: frame });
    const runner =
      poolFrames(host, ex.spanId, n, valuesOf, versions) ??
      new LocalFrames(host, n, (i, frame) =>
        RunConfig.child(host.config, {
          workflowId: `${parentId}/${i}`,
          values: valuesOf(frame),
          parentVersions: versions,
          completeOnStop: n.completeOnStop,
          parentSpanId: ex.spanId,
        }),
      );
    const driver = new FrameDriver(host, ex, n, returned as AsyncIterator<unknown>, window, runner);
    driver
      .drive()
      .finally(() => runner.close())
      .then(
        (d) => resume(Effect.succeed(rollUp(ex, gather(host, n, parentId, d, completeOnStop), d.usage, true))),
        (error: unknown) => resume(Effect.succeed(failed(error))),
      );
    return Effect.sync(() => driver.abandon());
  });
}

/** Frames run in this process: one child run per frame, each its own fiber. */
class LocalFrames implements FrameRunner {
  readonly countsUsage = true;
  #running = new Set<Fiber.RuntimeFiber<RunResult, RunError>>();
  constructor(
    readonly host: EngineHost,
    readonly n: GraphNode,
    readonly configOf: (i: number, frame: unknown) => RunConfig,
  ) {}

  run(i: number, frame: unknown): Promise<RunResult> {
    const config = this.configOf(i, frame);
    const fiber = Effect.runFork(this.host.spawn(this.n.graph, config).run());
    this.#running.add(fiber);
    return new Promise((resolve, reject) =>
      fiber.addObserver((exit) => {
        this.#running.delete(fiber);
        this.host.config.control.release(config.control);
        if (exit._tag === "Success") resolve(exit.value);
        else reject(Cause.squash(exit.cause));
      }),
    );
  }

  flush(): void {}
  // A stop reaches the frames' child runs through their own controls.
  stop(): void {}

  abandon(): void {
    for (const fiber of this.#running) Effect.runFork(Fiber.interrupt(fiber));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * Pulls the generator while fewer than `window` frames are unfinished and hands each frame to the runner (here or
 * elsewhere). Plain Promises around the generator: a fiber hop per pull would add a scheduler turn to every frame.
 */
class FrameDriver {
  readonly frames: unknown[] = [];
  readonly results: RunResult[] = [];
  failedAt = -1;
  stoppedEarly = false;
  overBudget = false;
  /** What the frames' runs spent (their results' totals). */
  usage: UsageRecord | undefined;
  #running = 0;
  #completed = 0;
  #wake: (() => void) | undefined;
  #over = false;
  #error: unknown;
  constructor(
    readonly host: EngineHost,
    readonly ex: Execution,
    readonly n: GraphNode,
    readonly it: AsyncIterator<unknown> | Iterator<unknown>,
    readonly window: number,
    readonly runner: FrameRunner,
  ) {}

  async drive(): Promise<this> {
    const control = this.host.config.control;
    // One listener for the run's stop, pointed at the pull in progress (a shared promise raced with every pull
    // would keep every pulled frame reachable until the run ends).
    let stopPull: (() => void) | undefined;
    control.onStop(() => {
      stopPull?.();
      this.runner.stop();
    });
    let exhausted = false;
    while (true) {
      if (this.#running >= this.window) this.runner.flush();
      while (this.#running >= this.window && this.#error === undefined) await this.#slot();
      if (this.#error !== undefined) throw this.#error;
      if (this.failedAt >= 0 || control.stopRequested || this.#over) break;
      // Over the run's budget: pull no more frames (each would pause at once); the pipeline pauses with the tree.
      if (this.host.config.meter.limit !== undefined && this.host.config.meter.exceeded() !== undefined) {
        this.overBudget = true;
        break;
      }
      const step = await new Promise<IteratorResult<unknown> | typeof STOP>((resolve, reject) => {
        stopPull = () => resolve(STOP);
        Promise.resolve(this.it.next()).then(resolve, reject);
      });
      stopPull = undefined;
      if (step === STOP || this.#over) break;
      if (step.done) {
        exhausted = true;
        break;
      }
      this.frames.push(step.value);
      this.#start(this.frames.length - 1, step.value);
    }
    if (control.stopRequested) this.stoppedEarly = true;
    this.runner.flush();
    // Stopped, failed or abandoned before the end: let the generator run its `finally` blocks.
    if (!exhausted) void Promise.resolve(this.it.return?.(undefined)).catch(() => undefined);
    while (this.#running > 0 && this.#error === undefined) await this.#slot();
    if (this.#error !== undefined) throw this.#error;
    return this;
  }

  /** Stops pulling and drops the frames still running (the pipeline's own fiber was interrupted). */
  abandon(): void {
    this.#over = true;
    this.runner.abandon();
    this.#wake?.();
  }

  #slot(): Promise<void> {
    return new Promise((resolve) => (this.#wake = resolve));
  }

  #start(i: number, frame: unknown): void {
    const { host, ex, n } = this;
    this.#running++;
    const settled = () => {
      this.#running--;
      const wake = this.#wake;
      this.#wake = undefined;
      wake?.();
    };
    this.runner.run(i, frame).then(
      (r) => {
        this.results[i] = r;
        this.usage = sumUsage(this.usage, r.usage);
        if (!this.runner.countsUsage) host.config.meter.add(r.usage, `${host.config.workflowId}/${n.name}/${i}`);
        if (r.status === "failed" && (this.failedAt < 0 || i < this.failedAt)) this.failedAt = i;
        this.#completed++;
        host.event(
          "MapProgress",
          { nodeName: n.name, completed: this.#completed, total: this.frames.length },
          ex.spanId,
        );
        settled();
      },
      (error: unknown) => {
        if (!this.#over && this.#error === undefined) this.#error = error;
        settled();
      },
    );
  }
}

const STOP = Symbol("stop");

/** The pipeline's outputs: the frames, and each consumer output as a list in frame order. */
function gather(
  host: EngineHost,
  n: GraphNode,
  parentId: string,
  driven: FrameDriver,
  completeOnStop: boolean,
): Outcome {
  const { frames, results, failedAt, stoppedEarly } = driven;
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
  const pause = framesPause(host, n, driven);
  if (pause !== undefined) return { kind: "paused", pause, nested, childWorkflowId: parentId };
  if (stopped && !completeOnStop && !n.completeOnStop) return { kind: "stopped", nested, childWorkflowId: parentId };
  return { kind: "completed", outputs: values, nested, childWorkflowId: parentId, truncated: stopped };
}

/**
 * A pipeline over its run's budget pauses: with the first frame that paused for it (its path under the pipeline),
 * or, when it only stopped pulling frames, at the pipeline. A resume re-drives it; finished frames are skipped.
 */
function framesPause(host: EngineHost, n: GraphNode, driven: FrameDriver): PauseInfo | undefined {
  const i = driven.results.findIndex((r) => r?.status === "paused");
  if (i >= 0) {
    const pause = driven.results[i]!.pause!;
    return { ...pause, nodeName: `${n.name}/${i}/${pause.nodeName}` };
  }
  if (!driven.overBudget) return undefined;
  const meter = host.config.meter;
  const value = meter.pauseValue(meter.exceeded() ?? []);
  return { reason: "budget", nodeName: n.name, value, responseKey: BUDGET_KEY };
}
