import type { Checkpointer } from "@graph/checkpoint";
import { Graph, node } from "@graph/core";
import { expect } from "vitest";
import { Runner, type ScheduleEvent, type TestClock, testClock } from "../../src/index.js";

/** Moves a test clock in steps, letting the work each step starts reach its store between steps. */
export async function advanceInSteps(clock: TestClock, totalMs: number, stepMs = 60_000): Promise<void> {
  const end = clock.now() + totalMs;
  while (clock.now() < end) {
    await clock.set(Math.min(end, clock.now() + stepMs));
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/**
 * Two runners (two checkpointers on one storage, as two processes would have) run the same schedule: every
 * occurrence runs exactly once in total, the other runner sees it taken. `open()` returns a new checkpointer on the
 * shared storage each time.
 */
export async function twoRunnersFireEachOccurrenceOnce(open: () => Checkpointer): Promise<void> {
  const clock = testClock(new Date("2026-01-05T00:00:00Z"));
  const ran: string[] = [];
  const work = node({ name: "work", output: "done" }, async ({ label }: { label: string }) => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    ran.push(label);
    return true;
  });
  const graph = new Graph([work], { name: "twoRunners" });
  const events: { runner: string; event: ScheduleEvent }[] = [];
  const opened = new Set<Checkpointer>();
  const openOnce = (): Checkpointer => {
    const cp = open();
    opened.add(cp);
    return cp;
  };
  const runners = ["a", "b"].map((name) => {
    const runner = new Runner({ checkpointer: openOnce(), closeCheckpointer: false, clock, owner: `runner-${name}` });
    runner.schedule(graph, {
      id: "report",
      cron: "*/15 * * * *",
      values: { label: "x" },
      catchUp: "none",
      onEvent: (event) => events.push({ runner: name, event }),
    });
    return runner;
  });
  await advanceInSteps(clock, 2 * 3_600_000 - 1);
  for (const runner of runners) await Promise.all(runner.schedules().map((s) => s.settled()));
  const expected = Array.from(
    { length: 8 },
    (_, i) => `report/${new Date(Date.parse("2026-01-05T00:00:00Z") + i * 900_000).toISOString()}`,
  );
  const fired = events.filter((e) => e.event.type === "ScheduleFired").map((e) => e.event.workflowId);
  expect(fired.sort()).toEqual(expected);
  const taken = events.filter((e) => e.event.type === "ScheduleSkipped").map((e) => e.event.workflowId);
  expect(taken.sort()).toEqual(expected);
  expect(
    events
      .filter((e) => e.event.type === "ScheduleSkipped")
      .every((e) => e.event.type === "ScheduleSkipped" && e.event.reason === "taken"),
  ).toBe(true);
  expect(ran).toHaveLength(8);
  const ended = events.filter((e) => e.event.type === "ScheduleRunEnded");
  expect(ended.map((e) => (e.event.type === "ScheduleRunEnded" ? e.event.status : "")).sort()).toEqual(
    Array(8).fill("completed"),
  );
  const check = openOnce();
  await check.setup();
  for (const id of expected) expect((await check.getWorkflow(id))?.status).toBe("completed");
  for (const runner of runners) await runner.close();
  for (const cp of opened) await cp.close();
  expect(clock.pending()).toBe(0);
}
