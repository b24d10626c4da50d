/**
 * An idle runner wakes a due time another process stored: the runner is up first (its scheduler found nothing due
 * and armed nothing), then another process pauses `a → nap (1 s) → b` and dies. The idle runner must resume the
 * workflow and run `b` within the documented bound after the due time: pushed by the store's `watchDue` when it
 * has one, else found by the runner's re-read of `nextDue` (every `duePollIntervalMs`, default 1 s).
 *
 * With `engine.childProcess` the pausing process is a real child, SIGKILLed once it reported the pause; without it
 * (storage processes don't share, like the in-memory store) it is a second runner on the same checkpointer, closed.
 */
import type { Checkpointer } from "@graph/checkpoint";
import { Runner, type RunnerOptions } from "@graph/runtime";
import { describe, expect, it } from "vitest";
import type { DueSpec } from "./dueChild.js";
import { dueGraph, NAP_MS } from "./dueGraph.js";
import type { DescribeCheckpointerOptions } from "./options.js";
import { adapterRef, spawnScript } from "./processes.js";
import { reportTrials, trialCount } from "./trials.js";

/** The runner's default re-read of `nextDue` (documented in docs/time.md). */
const DEFAULT_RECHECK_MS = 1_000;
/** Room for a loaded 2-core machine: the resume itself (claim, replay, `b`, finish) and event-loop lag. */
const SLACK_MS = 3_000;
/** Trials per test (`GRAPH_CONFORMANCE_TRIALS` to measure more); every trial's lateness is checked. */
const TRIALS = trialCount();

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function describeDueWake(options: DescribeCheckpointerOptions): void {
  const child = options.engine?.childProcess;
  let n = 0;

  /** Pauses the workflow in another process (or a second runner) and returns the stored due time. */
  async function pauseElsewhere(checkpointer: Checkpointer, workflowId: string): Promise<number> {
    if (child === undefined) {
      const other = new Runner({ checkpointer, scheduler: false, closeCheckpointer: false });
      const graph = dueGraph({ b: () => expect.fail("the pausing runner must never run b") });
      const result = await other.run(graph, { workflowId, values: { n: 1 } });
      expect(result.status).toBe("paused");
      await other.close();
      return (await checkpointer.getWorkflow(workflowId))!.wakeAt!.getTime();
    }
    const spec: DueSpec = { adapter: adapterRef(child), workflowId };
    const pauser = spawnScript<{ type: string; status?: string; wakeAt?: number | null }, never>(
      child,
      "dueChild",
      spec,
    );
    try {
      const said = await pauser.next();
      expect(said, pauser.stderr()).toMatchObject({ type: "paused", status: "paused" });
      expect(typeof said.wakeAt).toBe("number");
      return said.wakeAt!;
    } finally {
      pauser.kill();
      await pauser.exit;
    }
  }

  /** One trial: the idle runner first, then the pause elsewhere; returns how late `b` started after the due time. */
  async function trial(runnerOptions: Partial<RunnerOptions>, boundMs: number): Promise<number> {
    const checkpointer = await options.create({});
    const runs: number[] = [];
    const graph = dueGraph({ b: () => void runs.push(Date.now()) });
    const runner = new Runner({ checkpointer, graphs: [graph], ...runnerOptions });
    try {
      // Let the scheduler start and look at the store: it finds nothing due and arms nothing.
      await runner.wake(`due-wake-warmup-${process.pid}`);
      await pause(200);
      const workflowId = `due-wake-${process.pid}-${Date.now()}-${n++}`;
      const wakeAt = await pauseElsewhere(checkpointer, workflowId);
      const deadline = wakeAt + boundMs + SLACK_MS;
      while (Date.now() < deadline && (await checkpointer.getWorkflow(workflowId))?.status !== "completed")
        await pause(25);
      const done = await checkpointer.getWorkflow(workflowId);
      expect(done?.status, `not resumed ${Date.now() - wakeAt} ms after its due time`).toBe("completed");
      expect(runs).toHaveLength(1);
      expect(await checkpointer.getState(workflowId)).toMatchObject({ x: 2, y: 20 });
      expect(done?.wakeAt).toBeUndefined();
      const lateness = runs[0]! - wakeAt;
      expect(lateness).toBeGreaterThanOrEqual(0);
      expect(lateness).toBeLessThan(boundMs + SLACK_MS);
      return lateness;
    } finally {
      await runner.close();
    }
  }

  const report = (label: string, late: readonly number[]) => reportTrials(`due-wake ${options.name} ${label}`, late);

  describe(`an idle runner wakes a due time another process stored: ${options.name}`, () => {
    it(`runs b within the re-read bound (${DEFAULT_RECHECK_MS} ms) of the due time, the pausing process dead`, {
      timeout: 30_000 + TRIALS * (NAP_MS + DEFAULT_RECHECK_MS + SLACK_MS + 5_000),
    }, async () => {
      const late: number[] = [];
      for (let i = 0; i < TRIALS; i++) late.push(await trial({}, DEFAULT_RECHECK_MS));
      report("default", late);
    });

    // One of two ways applies to each store: a store that pushes must wake idle runners by the push alone (the
    // re-read set to a minute); a store without a push must do it by the re-read, here every 3 s.
    it("the store's own way alone: its watchDue push, or without one the re-read (every 3 s here)", {
      timeout: 30_000 + TRIALS * (NAP_MS + 3_000 + SLACK_MS + 5_000),
    }, async () => {
      const probe = await options.create({});
      const pushes = typeof probe.watchDue === "function";
      await (options.destroy ?? ((c: Checkpointer) => c.close()))(probe);
      const late: number[] = [];
      if (pushes) {
        for (let i = 0; i < TRIALS; i++) late.push(await trial({ duePollIntervalMs: 60_000 }, 0));
        report("push only", late);
      } else {
        for (let i = 0; i < TRIALS; i++) late.push(await trial({ duePollIntervalMs: 3_000 }, 3_000));
        report("re-read every 3 s", late);
      }
    });
  });
}
