/**
 * The crash matrix (with `engine.childProcess`): a child process runs the matrix workflow (`matrixGraph.ts`: a
 * nested graph, a 3-item map and an interrupt, 21 saved steps) and SIGKILLs itself right after its k-th
 * `CheckpointSaved` event, for each durability mode `sync`, `async` and `exit`. The test process then reads what
 * was committed, resumes the workflow **by id alone** (no values: the run's inputs must have been stored before its
 * first node ran) and checks:
 *
 * - no committed step runs again, and every step that was not committed runs exactly once more: for each node
 *   (each map item's node apart), executions of the resumed run = executions of a clean run − committed steps;
 * - nothing lost or duplicated: the tree holds exactly the clean run's workflows, each with the clean run's steps
 *   (name, status, values, decision, child), all `completed`;
 * - the final values equal the clean run's.
 *
 * `npm test` runs a sample of kill points per mode (k = 1, the first instant of a run, and one more drawn with a
 * fixed seed); `GRAPH_CRASH_MATRIX=full` runs every k (root script `npm run test:crash`), and a number runs that
 * many per mode. The same setting sizes the engine suite's per-step SIGKILL set ({@link sampledKillPoints}).
 */
import fs from "node:fs";
import path from "node:path";
import type { Checkpointer, Durability } from "@graph/checkpoint";
import { Runner } from "@graph/runtime";
import { describe, expect, it } from "vitest";
import type { ComparableStep } from "./engineCommon.js";
import { closeQuietly, comparable, count, plainValues, readLog, untilLeaseFree } from "./engineCommon.js";
import { ids } from "./fixtures.js";
import { openStorage } from "./handles.js";
import {
  MATRIX_EXECUTIONS,
  MATRIX_SAVES,
  MATRIX_WORKFLOWS,
  matrixGraph,
  resumeMatrix,
  startMatrix,
  stepLabel,
} from "./matrixGraph.js";
import type { DescribeCheckpointerOptions } from "./options.js";
import type { ChildProcessOptions } from "./processes.js";
import { adapterRef, spawnChild } from "./processes.js";
import { treeIds } from "./tree.js";

/** The environment variable that sizes the matrix: `full` (every kill point) or kill points per mode. */
export const CRASH_MATRIX_ENV = "GRAPH_CRASH_MATRIX";
/**
 * Kill points per durability mode in a normal test run (k = 1 and one drawn with {@link SEED}). Every trial is a
 * child process: on a 2-core machine each costs seconds, so `npm test` keeps a sample and `npm run test:crash` runs
 * them all.
 */
const DEFAULT_SAMPLES = 2;
const SEED = 0x22c0ffee;
const MODES: readonly Durability[] = ["sync", "async", "exit"];
/** Trials start together and queue for a child process slot: the timeout covers the wait too. */
const TRIAL_TIMEOUT = 600_000;

/** What the matrix needs from the engine suite around it. */
export interface CrashMatrixContext {
  readonly leaseTtlMs: number;
  /** Bounds the child processes alive at once (shared with the other engine tests). */
  readonly spawnLimit: <A>(task: () => Promise<A>) => Promise<A>;
  /** A temporary directory for the node logs. */
  readonly tmp: () => string;
}

/** A small deterministic generator (mulberry32): the same kill points on every run and machine. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** How many kill points `setting` asks for: every one (`full`), a number, or `fallback` when unset. */
function wantedKillPoints(setting: string | undefined, fallback: number): number {
  if (setting === "full") return Number.POSITIVE_INFINITY;
  const wanted = setting === undefined || setting === "" ? fallback : Number(setting);
  if (!Number.isInteger(wanted) || wanted < 1)
    throw new Error(`${CRASH_MATRIX_ENV} must be "full" or a whole number of kill points per mode, got '${setting}'.`);
  return wanted;
}

/** The kill points of one mode: all of them with `full`, else k = 1 plus `samples - 1` drawn with the fixed seed. */
export function crashKillPoints(modeIndex: number, setting = process.env[CRASH_MATRIX_ENV]): number[] {
  const all = Array.from({ length: MATRIX_SAVES }, (_, i) => i + 1);
  const wanted = wantedKillPoints(setting, DEFAULT_SAMPLES);
  if (wanted >= all.length) return all;
  const next = random(SEED + modeIndex);
  const picked = new Set([1]);
  while (picked.size < wanted) picked.add(all[Math.floor(next() * all.length)]!);
  return [...picked].sort((a, b) => a - b);
}

/**
 * Kill points (1-based, out of `saves`) for a crash test that starts a process per point: every one with
 * `GRAPH_CRASH_MATRIX=full` or a number at least `saves`; by default only the `required` ones (pick the boundaries
 * where a process dies differently: the first instant, a pause, the last step), plus points drawn with a fixed seed
 * up to a number. `npm test` stays quick; `npm run test:crash` runs them all.
 *
 * @example
 * ```ts
 * import { sampledKillPoints } from "@graph/checkpoint-conformance";
 * for (const k of sampledKillPoints(10, [1, 5, 10])) it(`SIGKILL at node ${k}`, async () => {});
 * ```
 */
export function sampledKillPoints(
  saves: number,
  required: readonly number[],
  setting = process.env[CRASH_MATRIX_ENV],
): number[] {
  const all = Array.from({ length: saves }, (_, i) => i + 1);
  const wanted = Math.max(required.length, wantedKillPoints(setting, required.length));
  if (wanted >= all.length) return all;
  const next = random(SEED - 1);
  const picked = new Set(required);
  while (picked.size < wanted) picked.add(all[Math.floor(next() * all.length)]!);
  return [...picked].sort((a, b) => a - b);
}

/** A clean run's result, per mode (retention differs: `exit` keeps the latest step per node). */
interface MatrixOutcome {
  readonly values: Readonly<Record<string, unknown>>;
  readonly steps: Readonly<Record<string, readonly ComparableStep[]>>;
  readonly statuses: Readonly<Record<string, string | undefined>>;
  /** Workflows of the tree, as suffixes of the root id. */
  readonly tree: readonly string[];
}

async function matrixOutcome(handle: Checkpointer, id: string, values: Record<string, unknown>) {
  const steps: Record<string, ComparableStep[]> = {};
  const statuses: Record<string, string | undefined> = {};
  for (const suffix of MATRIX_WORKFLOWS) {
    const stored = await handle.getSteps(id + suffix, { includeInputs: true });
    steps[suffix] = stored.filter((s) => s.status !== "paused").map((s) => comparable(id, s));
    statuses[suffix] = (await handle.getWorkflow(id + suffix))?.status;
  }
  const tree = (await treeIds(handle, id)).map((child) => child.slice(id.length));
  return { values, steps, statuses, tree } satisfies MatrixOutcome;
}

/** Committed executions per label: the completed steps of user functions stored in the tree. */
async function committedLabels(handle: Checkpointer, id: string): Promise<Record<string, number>> {
  const labels: string[] = [];
  for (const suffix of MATRIX_WORKFLOWS) {
    for (const step of await handle.getSteps(id + suffix)) {
      const label = stepLabel(suffix, step.nodeName);
      if (label !== undefined && step.status === "completed") labels.push(label);
    }
  }
  return count(labels);
}

async function cleanRun(options: DescribeCheckpointerOptions, durability: Durability): Promise<MatrixOutcome> {
  const storage = await openStorage(options);
  try {
    const id = ids(`matrix-reference-${durability}`)();
    const log: string[] = [];
    let saves = 0;
    const runner = new Runner({
      checkpointer: await storage.open(durability),
      eventProcessors: [{ onEvent: (event) => void (event.type === "CheckpointSaved" && saves++) }],
    });
    const result = await startMatrix(
      runner,
      matrixGraph((label) => log.push(label)),
      id,
    );
    await runner.close();
    expect(result.status, `the clean ${durability} run completes`).toBe("completed");
    expect(saves, `the clean ${durability} run's kill points (CheckpointSaved events)`).toBe(MATRIX_SAVES);
    expect(count(log), `the clean ${durability} run's executions`).toStrictEqual(MATRIX_EXECUTIONS);
    return await matrixOutcome(await storage.open("sync"), id, plainValues(result));
  } finally {
    await storage.close();
  }
}

/** Registers the crash matrix (`describe("crash matrix")`): one test per durability mode and kill point. */
export function describeCrashMatrix(
  options: DescribeCheckpointerOptions,
  child: ChildProcessOptions,
  context: CrashMatrixContext,
): void {
  const adapter = adapterRef(child);
  const references = new Map<Durability, Promise<MatrixOutcome>>();
  const reference = (durability: Durability) => {
    let found = references.get(durability);
    if (found === undefined) references.set(durability, (found = cleanRun(options, durability)));
    return found;
  };

  async function trial(durability: Durability, k: number): Promise<void> {
    const ref = await reference(durability);
    const id = ids(`matrix-${durability}-${k}`)();
    const logFile = path.join(context.tmp(), `${id}.log`);
    await context.spawnLimit(async () => {
      const killed = spawnChild(child, {
        role: "crash",
        graph: "matrix",
        adapter,
        durability,
        leaseTtlMs: context.leaseTtlMs,
        workflowId: id,
        logFile,
        killAt: k,
      });
      const exit = await killed.exit;
      if (exit.signal !== "SIGKILL") {
        const said = await killed.next().catch(() => undefined);
        throw new Error(
          `The child running '${id}' (${durability}) was to SIGKILL itself after saved step ${k} but exited with code ` +
            `${exit.code} (signal ${exit.signal}); it said ${JSON.stringify(said)}.\n${killed.stderr()}`,
        );
      }
    });
    const where = `${durability}, SIGKILL after step ${k}/${MATRIX_SAVES}`;
    const killedRuns = count(readLog(logFile));
    fs.rmSync(logFile, { force: true });
    const storage = await openStorage(options);
    try {
      const probe = await storage.open("sync");
      const committed = await committedLabels(probe, id);
      for (const [label, times] of Object.entries(committed)) {
        expect(times, `${where}: '${label}' is committed but the killed process never ran it`).toBeLessThanOrEqual(
          killedRuns[label] ?? 0,
        );
      }
      const resumedLog: string[] = [];
      const runner = new Runner({ checkpointer: await storage.open(durability) });
      let result: Awaited<ReturnType<typeof resumeMatrix>>;
      try {
        result = await untilLeaseFree(context.leaseTtlMs, () =>
          resumeMatrix(
            runner,
            matrixGraph((label) => resumedLog.push(label)),
            id,
          ),
        );
      } finally {
        await closeQuietly(runner);
      }
      expect(result.status, `${where}: the resumed run's status`).toBe("completed");
      const expected: Record<string, number> = {};
      for (const [label, times] of Object.entries(MATRIX_EXECUTIONS)) {
        if (times - (committed[label] ?? 0) > 0) expected[label] = times - (committed[label] ?? 0);
      }
      expect(
        count(resumedLog),
        `${where}: executions of the resumed run = a clean run's − the ${JSON.stringify(committed)} committed ` +
          "(more: a committed step ran again; fewer: a step was lost)",
      ).toStrictEqual(expected);
      const actual = await matrixOutcome(probe, id, plainValues(result));
      expect(actual.tree, `${where}: the workflows of the tree`).toStrictEqual(ref.tree);
      expect(actual.statuses, `${where}: workflow statuses`).toStrictEqual(ref.statuses);
      expect(actual.values, `${where}: final values`).toStrictEqual(ref.values);
      expect(actual.steps, `${where}: stored steps (lost or duplicated steps show here)`).toStrictEqual(ref.steps);
    } finally {
      await storage.close();
    }
  }

  describe("crash matrix", () => {
    MODES.forEach((durability, modeIndex) => {
      for (const k of crashKillPoints(modeIndex)) {
        it.concurrent(
          `crash matrix (${durability}): SIGKILL after step ${k}/${MATRIX_SAVES}, resumed by id: no committed step re-runs, nothing lost or duplicated, clean-run values`,
          { timeout: TRIAL_TIMEOUT },
          () => trial(durability, k),
        );
      }
    });
  });
}
