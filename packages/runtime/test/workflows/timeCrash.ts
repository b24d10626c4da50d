import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Checkpointer } from "@graph/checkpoint";
import { Graph, interrupt, node, sleep } from "@graph/core";
import { describe, expect, it } from "vitest";
import { type GraphEvent, Runner } from "../../src/index.js";
import { child, type StartChild } from "./children.js";

/**
 * The real-time crash check: a child process starts a workflow that sleeps `ms` and is SIGKILLed while it sleeps;
 * another process (the test's) opens the same store with the graph and must resume it on time, exactly once.
 * Side effects are appended to `log` (one line per run of a node), so every process's runs are counted.
 */
function sleeperGraph(log: string, ms: number): Graph {
  const before = node({ name: "before", output: "job" }, async ({ id }: { id: string }) => {
    appendFileSync(log, `before:${id}:${process.pid}\n`);
    return id;
  });
  const nap = sleep({ name: "nap", input: "job", duration: ms, output: "napped" });
  const after = node({ name: "after", output: "done" }, async ({ job, napped }: { job: string; napped: number }) => {
    appendFileSync(log, `after:${job}:${process.pid}:${napped}\n`);
    return `${job} done`;
  });
  return new Graph([before, nap, after], { name: "sleeper" });
}

/**
 * The same workflow with a timed wait instead of a sleep: an approval nobody gives, which times out after `ms` and
 * answers "expired". Workflow ids starting with `wait-` use it (the fixtures pass the id, not the kind).
 */
function timedWaitGraph(log: string, ms: number): Graph {
  const before = node({ name: "before", output: "job" }, async ({ id }: { id: string }) => {
    appendFileSync(log, `before:${id}:${process.pid}\n`);
    return id;
  });
  const nap = interrupt({ name: "nap", input: "job", response: "napped", timeout: ms, onTimeout: "expired" });
  const after = node({ name: "after", output: "done" }, async ({ job, napped }: { job: string; napped: string }) => {
    appendFileSync(log, `after:${job}:${process.pid}:${napped}\n`);
    return `${job} done`;
  });
  return new Graph([before, nap, after], { name: "timed-wait" });
}

const graphFor = (log: string, ms: number, id: string): Graph =>
  id.startsWith("wait-") ? timedWaitGraph(log, ms) : sleeperGraph(log, ms);

/** The child's side: runs to the sleep, tells the parent the due time, and waits to be killed. */
export async function sleepThenWaitToDie(
  checkpointer: Checkpointer,
  log: string,
  ms: number,
  id: string,
): Promise<void> {
  const runner = new Runner({ checkpointer, leaseTtlMs: 400, leaseRenewIntervalMs: 150, stopPollIntervalMs: 150 });
  const result = await runner.run(graphFor(log, ms, id), { values: { id }, workflowId: id });
  process.send?.({ type: "sleeping", wakeAt: result.pause?.wakeAt?.getTime() ?? null });
  // Keep the process (and its runner, whose timer would resume the workflow) alive until the SIGKILL.
  setInterval(() => {}, 1_000);
}

/** What the resuming process saw: its TimerFired events, the run's values, and its pid. */
export interface Resumed {
  readonly fired: ReadonlyArray<{ readonly dueAt: number; readonly firedAt: number; readonly lateMs: number }>;
  readonly values: Record<string, unknown>;
  readonly pid: number;
}

/**
 * The resuming side, started right after the kill (in a process that loads the graph from the same bundle, so it
 * has the same definition hash): a runner that knows the graph resumes the workflow when it is due.
 */
export async function resumeWhenDue(checkpointer: Checkpointer, log: string, ms: number, id: string): Promise<Resumed> {
  const events: GraphEvent[] = [];
  const graph = graphFor(log, ms, id);
  const runner = new Runner({
    checkpointer,
    graphs: [graph],
    eventProcessors: [{ onEvent: (e) => void events.push(e) }],
  });
  const deadline = Date.now() + ms + 30_000;
  while (!events.some((e) => e.type === "RunEnd" && e.status === "completed")) {
    if (Date.now() > deadline) throw new Error(`not resumed: ${JSON.stringify(events.map((e) => e.type))}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const fired = events.flatMap((e) =>
    e.type === "TimerFired" ? [{ dueAt: e.dueAt, firedAt: e.firedAt, lateMs: e.lateMs }] : [],
  );
  const result = await runner.run(graph, { workflowId: id });
  await runner.close();
  return { fired, values: { ...result.values }, pid: process.pid };
}

/** The log's lines (`before:<id>:<pid>`, `after:<id>:<pid>:<napped>`). */
function logLines(log: string): string[] {
  return existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : [];
}

/**
 * The parent's side, for any adapter (its fixture calls `sleepThenWaitToDie` / `resumeWhenDue` on its store): a
 * child sleeps 3 s (or, for an id starting with `wait-`, waits 3 s for an answer that never comes) and is SIGKILLed
 * while it waits; a second child opens the store with the graph and must resume the workflow when it is due — not
 * before — exactly once (the timed wait resumes with its `onTimeout` answer).
 */
async function sigkillWhileSleeping(start: StartChild, id: string): Promise<{ lateMs: number }> {
  const dir = mkdtempSync(path.join(tmpdir(), "graph-time-crash-"));
  try {
    const log = path.join(dir, "crash.log");
    const sleeper = child(start, ["sleep", log, "3000", id]);
    const { wakeAt } = (await sleeper.message) as { wakeAt: number };
    sleeper.proc.kill("SIGKILL");
    expect(await sleeper.exit).toBe("SIGKILL");
    expect(wakeAt).toBeGreaterThan(Date.now()); // killed while sleeping, before its due time
    const resumer = child(start, ["resume", log, "3000", id]);
    const seen = (await resumer.message) as Resumed;
    expect(await resumer.exit).toBe(0);
    expect(seen.fired).toHaveLength(1);
    expect(seen.fired[0]!.dueAt).toBe(wakeAt);
    expect(seen.fired[0]!.firedAt).toBeGreaterThanOrEqual(wakeAt);
    const answer = id.startsWith("wait-") ? "expired" : wakeAt;
    expect(seen.values).toMatchObject({ job: id, napped: answer, done: `${id} done` });
    const lines = logLines(log);
    expect(lines.filter((l) => l.startsWith("before:"))).toEqual([`before:${id}:${sleeper.proc.pid}`]);
    expect(lines.filter((l) => l.startsWith("after:"))).toEqual([`after:${id}:${seen.pid}:${answer}`]);
    return { lateMs: seen.fired[0]!.lateMs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Registers the two crash checks on one adapter: SIGKILL while sleeping and while in a timed wait. `startFor(id)`
 * prepares a fresh store for that workflow id and returns how to start the adapter's child process on it.
 */
export function describeTimeCrashes(
  where: string,
  startFor: (id: string) => Promise<StartChild>,
  idBase: string,
): void {
  describe(`SIGKILL while sleeping (${where}, real time, real processes)`, () => {
    it("another process resumes the sleep when due, exactly once", { timeout: 120_000 }, async () => {
      const id = `sleeper-${idBase}`;
      const { lateMs } = await sigkillWhileSleeping(await startFor(id), id);
      expect(lateMs).toBeGreaterThanOrEqual(0);
    });

    it("another process resumes a timed wait (SIGKILLed while waiting) when it times out, exactly once", {
      timeout: 120_000,
    }, async () => {
      const id = `wait-sleeper-${idBase}`;
      const { lateMs } = await sigkillWhileSleeping(await startFor(id), id);
      expect(lateMs).toBeGreaterThanOrEqual(0);
    });
  });
}
