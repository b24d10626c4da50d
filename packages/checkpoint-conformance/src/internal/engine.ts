/**
 * Engine conformance: real graphs run through `@graph/runtime` on the adapter (docs/durability.md).
 *
 * - **Crash and resume.** The engine graph (`engineGraph.ts`: 8 sequential nodes with a gated loop, a nested
 *   graph and an interrupt — 15 saved steps) is killed after each step boundary in turn and resumed with the same
 *   workflow id. Every resumed workflow must end with the reference run's values, each node must have run exactly
 *   as often (killed run + resumed run) as in the reference run, and storage must hold exactly the reference's
 *   steps. In-process for every adapter (the killed runner's storage goes dead after step k, as if its process had
 *   died); with `engine.childProcess`, also with real child processes killed by `SIGKILL`.
 * - **Durability `async`.** A crash may drop queued steps, which then run again: the final values still match.
 * - **Lease races.** Two runners (and, with `engine.childProcess`, two processes) resume one paused or crashed
 *   workflow at the same instant: exactly one runs it, the other fails with `WorkflowConflictError`.
 * - **Growth.** 1,000 steps written through the runtime store at most 1 KB each.
 * - **Leases across processes** (with `engine.childProcess`, `engineLeases.ts`): `runner.stop` from another
 *   process (stop latency p99 below one renewal interval) and a runtime zombie frozen past its lease.
 *
 * Why `durability: "sync"` for the kill tests: with `async` a step is reported saved (`CheckpointSaved`) when it
 * is queued, so a kill right after it may lose queued steps, whose nodes then run again on resume. At-least-once execution allows
 * that, but the exact "no finished node runs twice" assertion needs each step on storage before the next node
 * starts.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Checkpointer, Durability, WorkflowStatus } from "@graph/checkpoint";
import { defaultSerializer, INPUT_STEP } from "@graph/checkpoint";
import type { GraphEvent } from "@graph/runtime";
import { Runner, type RunResult } from "@graph/runtime";
import { afterAll, describe, expect, it } from "vitest";
import { describeConflictMatrix } from "./conflictMatrix.js";
import { describeCrashMatrix, sampledKillPoints } from "./crashMatrix.js";
import { describeAnswers } from "./engineAnswers.js";
import { describeAttemptsCrash, describeAttemptsStop } from "./engineAttempts.js";
import { describeBulkOperations } from "./engineBulk.js";
import type { ComparableStep } from "./engineCommon.js";
import {
  closeQuietly,
  comparable,
  count,
  leaseExpired,
  plainValues,
  readLog,
  SLOW,
  tagOf,
  untilLeaseFree,
} from "./engineCommon.js";
import { describeFrames, describeFramesCrash } from "./engineFrames.js";
import { describeFramesNested } from "./engineFramesNested.js";
import type { Recorder } from "./engineGraph.js";
import {
  drive,
  ENGINE_EXECUTIONS,
  ENGINE_SAVES,
  engineGraph,
  GROWTH_ITERATIONS,
  growthGraph,
  RACE_VALUES,
  raceGraph,
} from "./engineGraph.js";
import { describeEngineLeases, describeInProcessStop } from "./engineLeases.js";
import { describeNodeLimits } from "./engineLimits.js";
import { ids, sleep, withCheckpointer } from "./fixtures.js";
import type { Storage } from "./handles.js";
import { borrowed, crashable, openStorage } from "./handles.js";
import type { DescribeCheckpointerOptions } from "./options.js";
import type { ChildMessage, ChildProcessOptions, RaceOutcome } from "./processes.js";
import { adapterRef, limiter, spawnChild } from "./processes.js";
import { describeZombieMatrix } from "./zombieMatrix.js";

export type { ChildProcessOptions, EngineCheckpointerFactory } from "./processes.js";

/** Options of the engine half of the suite. */
export interface EngineOptions {
  /** Skip the engine tests for this adapter. */
  readonly skip?: boolean;
  /**
   * Run the crash and race tests in real child processes too. The module's factory is also what the test
   * process uses to open the storage the children write (so it must reach the same database every call).
   * Leave it out for adapters with no storage shared between processes (in-memory).
   */
  readonly childProcess?: ChildProcessOptions;
  /** Lease of runs that get killed: the resumer waits it out. Default 300 ms. */
  readonly leaseTtlMs?: number;
  /** Repetitions of the in-process lease race (at least 50). Default 50. */
  readonly raceRepetitions?: number;
  /** Repetitions of the lease race between two child processes (at least 5). Default 6. */
  readonly processRaceRepetitions?: number;
  /** Child processes of the kill matrix alive at once. Default: the number of CPUs, between 2 and 4. */
  readonly processConcurrency?: number;
  /**
   * Which engine tests this call registers: all of them (default), only those in the test process, or only those
   * that start child processes (needs `childProcess`). Two test files, one per part, each on its own storage, run
   * in parallel: the process tests spend most of their time waiting for children and leases.
   */
  readonly part?: "all" | "in-process" | "processes";
}

/** Registers one kill point's test (they run concurrently, each on its own workflow id). */
function killPoint(_k: number, name: string, body: () => Promise<void>): void {
  it.concurrent(name, { timeout: SLOW }, body);
}

const WORKFLOWS = ["", "/enrich"] as const;
/** Races between child processes start this far apart. */
const PROCESS_RACE_GAP_MS = 400;

/** What a finished workflow looks like: final values, executions per node, stored steps and statuses. */
interface Outcome {
  readonly values: Readonly<Record<string, unknown>>;
  readonly executions: Readonly<Record<string, number>>;
  /** Steps of the root workflow ("") and of the nested one ("/enrich"), paused steps left out. */
  readonly steps: Readonly<Record<string, readonly ComparableStep[]>>;
  readonly statuses: Readonly<Record<string, WorkflowStatus | undefined>>;
}

interface Reference extends Outcome {
  /** Labels of the `CheckpointSaved` events, in order. */
  readonly saves: readonly string[];
}

async function outcome(
  handle: Checkpointer,
  id: string,
  values: Record<string, unknown>,
  log: readonly string[],
): Promise<Outcome> {
  const steps: Record<string, ComparableStep[]> = {};
  const statuses: Record<string, WorkflowStatus | undefined> = {};
  for (const suffix of WORKFLOWS) {
    const stored = await handle.getSteps(id + suffix);
    const indexes = stored.map((s) => s.index);
    expect(new Set(indexes).size, `step indexes of ${id + suffix} are unique`).toBe(indexes.length);
    expect(indexes, `steps of ${id + suffix} come in index order`).toStrictEqual([...indexes].sort((a, b) => a - b));
    steps[suffix] = stored.filter((s) => s.status !== "paused").map((s) => comparable(id, s));
    statuses[suffix] = (await handle.getWorkflow(id + suffix))?.status;
  }
  return { values, executions: count(log), steps, statuses };
}

/**
 * Runs the engine graph's workflow on a handle that dies right after the k-th saved step (in-process stand-in
 * for a killed process: nothing the dead runner does afterwards reaches storage or the log).
 */
async function crashInProcess(
  storage: Storage,
  id: string,
  k: number,
  durability: Durability,
  leaseTtlMs: number,
): Promise<string[]> {
  const dead = crashable(await storage.open(durability));
  const log: string[] = [];
  let saves = 0;
  const onEvent = (event: GraphEvent) => {
    if (event.type === "CheckpointSaved" && !dead.crashed && ++saves === k) dead.crash();
  };
  const runner = new Runner({ checkpointer: dead.checkpointer, leaseTtlMs, eventProcessors: [{ onEvent }] });
  const record: Recorder = (name) => {
    if (!dead.crashed) log.push(name);
  };
  const ended = await drive(runner, engineGraph(record), id).then(
    (result) => `finished with status ${result.status}`,
    (error: unknown) => `failed: ${String(error)}`,
  );
  await closeQuietly(runner);
  if (!dead.crashed) throw new Error(`the run was to die after saved step ${k}, but it ${ended} after ${saves} saves`);
  return log;
}

/** Resumes the workflow in this process (after the dead holder's lease expired) and describes the result. */
async function resumeInProcess(
  storage: Storage,
  id: string,
  durability: Durability,
  leaseTtlMs: number,
  record: Recorder,
  log: () => readonly string[],
): Promise<Outcome & { readonly status: string }> {
  const handle = await storage.open(durability);
  const runner = new Runner({ checkpointer: handle });
  try {
    const result = await untilLeaseFree(leaseTtlMs, () => drive(runner, engineGraph(record), id));
    return { ...(await outcome(handle, id, plainValues(result), log())), status: result.status };
  } finally {
    await closeQuietly(runner);
  }
}

function assertLikeReference(where: string, reference: Outcome, actual: Outcome): void {
  expect(actual.statuses, `${where}: workflow statuses`).toStrictEqual(reference.statuses);
  expect(actual.values, `${where}: final values`).toStrictEqual(reference.values);
  expect(
    actual.executions,
    `${where}: executions per node, killed run + resumed run (more than the reference: a finished node ran again; fewer: a step was lost)`,
  ).toStrictEqual(reference.executions);
  expect(actual.steps, `${where}: stored steps (lost or duplicated steps show here)`).toStrictEqual(reference.steps);
}

async function runReference(options: DescribeCheckpointerOptions): Promise<Reference> {
  const storage = await openStorage(options);
  try {
    const handle = await storage.open("sync");
    const id = ids("engine-reference")();
    const log: string[] = [];
    const saves: string[] = [];
    const onEvent = (event: GraphEvent) => {
      if (event.type === "CheckpointSaved") {
        saves.push(
          event.workflowId === id ? event.nodeName : `${event.workflowId.slice(id.length + 1)}/${event.nodeName}`,
        );
      } else if (event.type === "Paused" && saves.at(-1) === event.nodeName) {
        saves[saves.length - 1] = `${event.nodeName} (paused)`;
      }
    };
    const runner = new Runner({ checkpointer: handle, eventProcessors: [{ onEvent }] });
    try {
      const result = await drive(
        runner,
        engineGraph((name) => log.push(name)),
        id,
      );
      expect(result.status, "the reference run completes").toBe("completed");
      return { ...(await outcome(handle, id, plainValues(result), log)), saves };
    } finally {
      await runner.close();
    }
  } finally {
    await storage.close();
  }
}

/** Prepares a workflow of the race graph: paused at its interrupt, or crashed after its first step. */
async function prepareRace(storage: Storage, id: string, crashed: boolean, leaseTtlMs: number): Promise<void> {
  if (!crashed) {
    const runner = new Runner({ checkpointer: await storage.open("sync") });
    try {
      const result = await runner.run(
        raceGraph(
          () => undefined,
          async () => undefined,
        ),
        { workflowId: id, values: { topic: RACE_VALUES["topic"] } },
      );
      expect(result.status, "the race workflow pauses at its interrupt").toBe("paused");
    } finally {
      await runner.close();
    }
    return;
  }
  const dead = crashable(await storage.open("sync"));
  const onEvent = (event: GraphEvent) => {
    if (event.type === "CheckpointSaved") dead.crash();
  };
  const runner = new Runner({ checkpointer: dead.checkpointer, leaseTtlMs, eventProcessors: [{ onEvent }] });
  await runner
    .run(
      raceGraph(
        () => undefined,
        async () => undefined,
      ),
      { workflowId: id, values: { topic: RACE_VALUES["topic"] } },
    )
    .catch(() => undefined);
  await closeQuietly(runner);
  expect(dead.crashed, "the race workflow crashed after its first step").toBe(true);
}

/** The stored state of a raced workflow: one finished run, `finalize` saved once. */
async function assertRacedOnce(handle: Checkpointer, id: string, finalizeRuns: number, where: string): Promise<void> {
  expect(finalizeRuns, `${where}: finalize ran exactly once`).toBe(1);
  expect((await handle.getWorkflow(id))?.status, `${where}: workflow status`).toBe("completed");
  const finalized = (await handle.getSteps(id)).filter((s) => s.nodeName === "finalize" && s.status === "completed");
  expect(
    finalized.map((s) => s.values),
    `${where}: one finalize step`,
  ).toStrictEqual([{ final: "about leases: approved" }]);
}

/**
 * Registers the engine tests inside `describe("engine", …)` (vitest fails on an empty describe block, so the
 * caller does not open one).
 */
export function describeEngine(options: DescribeCheckpointerOptions): void {
  const engine = options.engine ?? {};
  const leaseTtlMs = engine.leaseTtlMs ?? 300;
  const part = engine.part ?? "all";
  if (part === "processes" && engine.childProcess === undefined)
    throw new Error(
      `describeCheckpointer (${options.name}): engine.part is "processes" but engine.childProcess is not set. ` +
        "Give the child-process adapter module, or leave part out.",
    );
  const inProcess = part !== "processes";
  const child = part === "in-process" ? undefined : engine.childProcess;
  const raceRepetitions = Math.max(50, engine.raceRepetitions ?? 50);
  const processRaceRepetitions = Math.max(5, engine.processRaceRepetitions ?? 6);
  const spawnLimit = limiter(
    Math.max(1, engine.processConcurrency ?? Math.min(4, Math.max(2, os.availableParallelism()))),
  );
  let reference: Promise<Reference> | undefined;
  const getReference = () => (reference ??= runReference(options));
  let dir: string | undefined;
  const tmp = () => (dir ??= fs.mkdtempSync(path.join(os.tmpdir(), "graph-conformance-engine-")));

  describe("engine", () => {
    afterAll(() => {
      if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
    });

    if (inProcess) {
      it("the test graph: an uninterrupted run (paused at the interrupt, then answered) saves 15 steps", {
        timeout: SLOW,
      }, async () => {
        const ref = await getReference();
        expect(ref.saves, "the saved steps of an uninterrupted run (the kill points)").toStrictEqual(ENGINE_SAVES);
        expect(ref.executions, "executions per node").toStrictEqual(
          count(Object.entries(ENGINE_EXECUTIONS).flatMap(([n, c]) => Array<string>(c).fill(n))),
        );
        expect(ref.statuses).toStrictEqual({ "": "completed", "/enrich": "completed" });
        const doc = ref.values["doc"] as { createdAt: unknown; tags: unknown };
        expect(doc.createdAt).toBeInstanceOf(Date);
        expect(doc.tags).toBeInstanceOf(Map);
        expect(ref.values["scores"]).toBeInstanceOf(Map);
        expect((ref.values["draft"] as { version: number }).version).toBe(3);
        expect(ref.values["decision"]).toBe("approved");
        expect(ref.steps[""]!.filter((s) => s.nodeName !== INPUT_STEP).length).toBeGreaterThanOrEqual(8);
      });

      describe("crash after each step boundary, then resume (in-process: the crashed runner's storage goes dead)", () => {
        ENGINE_SAVES.forEach((label, i) => {
          const k = i + 1;
          killPoint(
            k,
            `crash after step ${k} (${label}): same final values, steps and executions as an uninterrupted run`,
            async () => {
              const ref = await getReference();
              const storage = await openStorage(options);
              try {
                const id = ids(`crash-${k}`)();
                const killedLog = await crashInProcess(storage, id, k, "sync", leaseTtlMs);
                const resumedLog: string[] = [];
                const resumed = await resumeInProcess(
                  storage,
                  id,
                  "sync",
                  leaseTtlMs,
                  (n) => resumedLog.push(n),
                  () => [...killedLog, ...resumedLog],
                );
                expect(resumed.status).toBe("completed");
                assertLikeReference(`crash after step ${k} (${label})`, ref, resumed);
              } finally {
                await storage.close();
              }
            },
          );
        });
      });

      describeInProcessStop(options);
      describeAttemptsStop(options, tmp);
      describeConflictMatrix(options);
      describeBulkOperations(options);
      describeNodeLimits(options);
      describeFrames(options);
      describeFramesNested(options);
    }

    describeAnswers(options, inProcess, child);
    if (child !== undefined) describeEngineLeases(options, child);
    if (child !== undefined) describeZombieMatrix(options, child);
    if (child !== undefined) describeFramesCrash(options, child);

    if (child !== undefined) {
      const adapter = adapterRef(child);
      // The first instant, the pause and the last step by default (the in-process set covers every step);
      // every step with GRAPH_CRASH_MATRIX=full.
      const sampled = sampledKillPoints(ENGINE_SAVES.length, [
        1,
        ENGINE_SAVES.indexOf("approval (paused)") + 1,
        ENGINE_SAVES.length,
      ]);
      describe("SIGKILL of a child process after a step boundary, then resume", () => {
        sampled.forEach((k) => {
          const label = ENGINE_SAVES[k - 1]!;
          killPoint(
            k,
            `SIGKILL after step ${k} (${label}): same final values, steps and executions as an uninterrupted run`,
            async () => {
              const ref = await getReference();
              const id = ids(`kill-${k}`)();
              const logFile = path.join(tmp(), `${id}.log`);
              await spawnLimit(async () => {
                const killed = spawnChild(child, {
                  role: "crash",
                  adapter,
                  durability: "sync",
                  leaseTtlMs,
                  workflowId: id,
                  logFile,
                  killAt: k,
                });
                const exit = await killed.exit;
                if (exit.signal !== "SIGKILL") {
                  const said = await killed.next().catch(() => undefined);
                  throw new Error(
                    `The child running '${id}' was to SIGKILL itself after saved step ${k} but exited with code ${exit.code}` +
                      ` (signal ${exit.signal}); it said ${JSON.stringify(said)}.\n${killed.stderr()}`,
                  );
                }
              });
              const storage = await openStorage(options);
              try {
                const resumed = await resumeInProcess(
                  storage,
                  id,
                  "sync",
                  leaseTtlMs,
                  (n) => fs.appendFileSync(logFile, `${n}\n`),
                  () => readLog(logFile),
                );
                expect(resumed.status).toBe("completed");
                assertLikeReference(`SIGKILL after step ${k} (${label})`, ref, resumed);
              } finally {
                await storage.close();
              }
            },
          );
        });
      });
    }

    if (child !== undefined) describeCrashMatrix(options, child, { leaseTtlMs, spawnLimit, tmp });
    if (child !== undefined) describeAttemptsCrash(options, child, { leaseTtlMs, spawnLimit, tmp });

    describe("durability async", () => {
      // A crash may lose steps that were queued but not written; their nodes run again. Values must still match.
      const k = ENGINE_SAVES.length - 5;
      if (inProcess) {
        it(`a crash after step ${k} (${ENGINE_SAVES[k - 1]}) with durability "async": the resumed run ends with the same values`, {
          timeout: SLOW,
        }, async () => {
          const ref = await getReference();
          const storage = await openStorage(options);
          try {
            const id = ids("async-crash")();
            const killedLog = await crashInProcess(storage, id, k, "async", leaseTtlMs);
            const resumedLog: string[] = [];
            const resumed = await resumeInProcess(
              storage,
              id,
              "async",
              leaseTtlMs,
              (n) => resumedLog.push(n),
              () => [...killedLog, ...resumedLog],
            );
            expect(resumed.status).toBe("completed");
            expect(resumed.values).toStrictEqual(ref.values);
            expect(resumed.statuses).toStrictEqual(ref.statuses);
            for (const [name, times] of Object.entries(ref.executions)) {
              expect(
                resumed.executions[name] ?? 0,
                `${name} ran at least as often as in an uninterrupted run`,
              ).toBeGreaterThanOrEqual(times);
            }
          } finally {
            await storage.close();
          }
        });
      }

      if (child !== undefined) {
        const adapter = adapterRef(child);
        it(`SIGKILL after step ${k} with durability "async", resumed by another child process: same final values`, {
          timeout: SLOW,
        }, async () => {
          const ref = await getReference();
          const id = ids("async-kill")();
          const logFile = path.join(tmp(), `${id}.log`);
          const killed = spawnChild(child, {
            role: "crash",
            adapter,
            durability: "async",
            leaseTtlMs,
            workflowId: id,
            logFile,
            killAt: k,
          });
          const exit = await killed.exit;
          expect(exit.signal, `the child was to SIGKILL itself after saved step ${k}:\n${killed.stderr()}`).toBe(
            "SIGKILL",
          );
          const resumer = spawnChild(child, {
            role: "resume",
            adapter,
            durability: "async",
            leaseTtlMs,
            workflowId: id,
            logFile,
          });
          let report: ChildMessage;
          try {
            report = await resumer.next();
          } finally {
            await resumer.exit;
          }
          if (report.type !== "finished")
            throw new Error(`the resuming child failed: ${JSON.stringify(report)}\n${resumer.stderr()}`);
          expect(report.status).toBe("completed");
          expect(defaultSerializer.deserialize(report.values)).toStrictEqual(ref.values);
          const storage = await openStorage(options);
          try {
            const handle = await storage.open("sync");
            expect((await handle.getWorkflow(id))?.status).toBe("completed");
            expect(await handle.getState(id)).toMatchObject({
              archived: ref.values["archived"],
              published: ref.values["published"],
            });
          } finally {
            await storage.close();
          }
          const executions = count(readLog(logFile));
          for (const [name, times] of Object.entries(ref.executions)) {
            expect(
              executions[name] ?? 0,
              `${name} ran at least as often as in an uninterrupted run`,
            ).toBeGreaterThanOrEqual(times);
          }
        });
      }
    });

    describe("lease races", () => {
      if (inProcess) {
        it(`two runners resume one workflow at once: exactly one wins, the other gets WorkflowConflictError (${raceRepetitions}×, paused and crashed workflows)`, {
          timeout: SLOW,
        }, async () => {
          const storage = await openStorage(options);
          try {
            const base = ids("race");
            const reps = Array.from({ length: raceRepetitions }, (_, i) => ({
              id: base(String(i)),
              crashed: i % 2 === 1,
            }));
            for (let start = 0; start < reps.length; start += 10) {
              await Promise.all(reps.slice(start, start + 10).map((r) => prepareRace(storage, r.id, r.crashed, 100)));
            }
            const probe = await storage.open("sync");
            for (const r of reps) if (r.crashed) await leaseExpired(probe, r.id, 100);
            for (const [i, r] of reps.entries()) {
              const where = `race ${i + 1}/${reps.length} (${r.crashed ? "crashed" : "paused"} workflow)`;
              const runners = [
                new Runner({ checkpointer: await storage.open("sync") }),
                new Runner({ checkpointer: await storage.open("sync") }),
              ];
              const log: string[] = [];
              // The winner's finalize waits until the loser has failed, so it holds the lease while the loser claims.
              let loserDone = () => {};
              const loserFailed = new Promise<void>((resolve) => (loserDone = resolve));
              const graph = raceGraph(
                (n) => log.push(n),
                () => Promise.race([loserFailed, sleep(15_000)]),
              );
              const attempt = (runner: Runner) =>
                runner.run(graph, { workflowId: r.id, values: RACE_VALUES }).catch((error: unknown) => {
                  if (tagOf(error) === "WorkflowConflictError") loserDone();
                  throw error;
                });
              const settled = await Promise.allSettled(runners.map(attempt));
              await Promise.all(runners.map((runner) => runner.close()));
              const won = settled.filter((s): s is PromiseFulfilledResult<RunResult> => s.status === "fulfilled");
              const lost = settled.filter((s): s is PromiseRejectedResult => s.status === "rejected");
              expect(
                won.map((s) => s.value.status),
                `${where}: one runner completes it`,
              ).toStrictEqual(["completed"]);
              expect(won[0]!.value.values["final"]).toBe("about leases: approved");
              expect(
                lost.map((s) => tagOf(s.reason) ?? String(s.reason)),
                `${where}: the other fails with WorkflowConflictError`,
              ).toStrictEqual(["WorkflowConflictError"]);
              await assertRacedOnce(probe, r.id, log.filter((n) => n === "finalize").length, where);
              expect(
                log.filter((n) => n === "draft"),
                `${where}: draft is not run again`,
              ).toStrictEqual([]);
            }
          } finally {
            await storage.close();
          }
        });
      }
      if (child !== undefined) {
        const adapter = adapterRef(child);
        it(`two processes resume one workflow at once: exactly one wins (${processRaceRepetitions}×)`, {
          timeout: SLOW,
        }, async () => {
          const base = ids("process-race");
          const reps = Array.from({ length: processRaceRepetitions }, (_, i) => ({
            id: base(String(i)),
            crashed: i % 2 === 1,
            log: path.join(tmp(), `${base(String(i))}.log`),
          }));
          const spec = {
            role: "race" as const,
            adapter,
            durability: "sync" as const,
            leaseTtlMs: 30_000,
            workflowIds: reps.map((r) => r.id),
            logFiles: reps.map((r) => r.log),
            gapMs: PROCESS_RACE_GAP_MS,
          };
          const racers = [spawnChild(child, spec), spawnChild(child, spec)];
          const storage = await openStorage(options);
          try {
            await Promise.all(reps.map((r) => prepareRace(storage, r.id, r.crashed, 100)));
            const probe = await storage.open("sync");
            for (const r of reps) if (r.crashed) await leaseExpired(probe, r.id, 100);
            for (const racer of racers) {
              const ready = await racer.next();
              if (ready.type !== "ready")
                throw new Error(`a racing child failed to start: ${JSON.stringify(ready)}\n${racer.stderr()}`);
            }
            const at = Date.now() + 300;
            for (const racer of racers) racer.send({ type: "go", at });
            const reports = await Promise.all(racers.map((racer) => racer.next()));
            const outcomes: (readonly RaceOutcome[])[] = reports.map((report, n) => {
              if (report.type !== "race")
                throw new Error(`racing child ${n} failed: ${JSON.stringify(report)}\n${racers[n]!.stderr()}`);
              return report.outcomes;
            });
            for (const [i, r] of reps.entries()) {
              const where = `process race ${i + 1}/${reps.length} (${r.crashed ? "crashed" : "paused"} workflow)`;
              const pair = outcomes.map((list) => list[i]!);
              expect(
                pair.filter((o) => o.status !== undefined).map((o) => o.status),
                `${where}: one process completes it (${JSON.stringify(pair)})`,
              ).toStrictEqual(["completed"]);
              expect(
                pair.filter((o) => o.tag !== undefined).map((o) => o.tag),
                `${where}: the other fails with WorkflowConflictError`,
              ).toStrictEqual(["WorkflowConflictError"]);
              await assertRacedOnce(probe, r.id, readLog(r.log).filter((n) => n === "finalize").length, where);
            }
          } finally {
            for (const racer of racers) racer.kill();
            await Promise.all(racers.map((racer) => racer.exit));
            await storage.close();
          }
        });
      }
    });

    if (inProcess) {
      describe("storage growth through the runtime", () => {
        it(`a ${2 * GROWTH_ITERATIONS}-step workflow stores at most 1 KB per step`, { timeout: SLOW }, async () => {
          await withCheckpointer(options, {}, async (checkpointer) => {
            const id = ids("engine-growth")();
            const before = options.storageBytes === undefined ? 0 : await options.storageBytes(checkpointer);
            const runner = new Runner({ checkpointer: borrowed(checkpointer) });
            const result = await runner.run(growthGraph(), {
              workflowId: id,
              values: { n: 0 },
              maxIterations: 2 * GROWTH_ITERATIONS + 10,
            });
            await runner.close();
            expect(result.status).toBe("completed");
            expect(result.values["n"]).toBe(GROWTH_ITERATIONS);
            const steps = await checkpointer.getSteps(id);
            expect(steps.filter((s) => s.nodeName !== INPUT_STEP)).toHaveLength(2 * GROWTH_ITERATIONS);
            const bytes =
              options.storageBytes === undefined
                ? Buffer.byteLength(JSON.stringify(steps))
                : (await options.storageBytes(checkpointer)) - before;
            expect(bytes / steps.length, `${bytes} bytes for ${steps.length} steps`).toBeLessThanOrEqual(1024);
          });
        });
      });
    }
  });
}
