import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { MemoryCheckpointer } from "@graph/checkpoint";
import { Graph, node } from "@graph/core";
import { describe, expect, it } from "vitest";
import {
  GraphConfigError,
  InvalidOptionError,
  Runner,
  type ScheduleEvent,
  type ScheduleOptions,
  type TestClock,
  testClock,
} from "../src/index.js";
import { advanceInSteps, twoRunnersFireEachOccurrenceOnce } from "./workflows/scheduleTwoRunners.js";

const MIN = 60_000;
const START = Date.parse("2026-01-05T00:00:00Z");
const iso = (ms: number) => new Date(ms).toISOString();

const ping = node({ name: "ping", output: "pong" }, ({ n }: { n: number }) => n + 1);
const pingGraph = new Graph([ping], { name: "ping" });

/** A node that takes `ms` of the test clock's time: the overlap rules need firings that are still running. */
function slowGraph(clock: TestClock, ms: number) {
  const spans: { start: number; end: number }[] = [];
  const slow = node({ name: "slow", output: "done" }, async ({ n }: { n: number }) => {
    const start = clock.now();
    await new Promise<void>((resolve) => clock.setTimer(start + ms, resolve));
    spans.push({ start, end: clock.now() });
    return n;
  });
  return { graph: new Graph([slow], { name: "slow" }), spans };
}

function recorder() {
  const events: ScheduleEvent[] = [];
  const of = <T extends ScheduleEvent["type"]>(type: T) =>
    events.filter((e): e is Extract<ScheduleEvent, { type: T }> => e.type === type);
  return { events, onEvent: (e: ScheduleEvent) => events.push(e), of };
}

describe("runner.schedule (in-process, test clock)", () => {
  it("fires a day of 15-minute occurrences, each once, on time, with the deterministic ids", async () => {
    const clock = testClock(START);
    const checkpointer = new MemoryCheckpointer();
    const runner = new Runner({ checkpointer, clock, closeCheckpointer: false });
    const rec = recorder();
    const handle = runner.schedule(pingGraph, {
      id: "quarter",
      cron: "*/15 * * * *",
      values: { n: 1 },
      onEvent: rec.onEvent,
    });
    expect(handle.nextFiring()).toEqual(new Date(START));
    await advanceInSteps(clock, 24 * 60 * MIN - 1, 15 * MIN);
    await handle.settled();
    const expected = Array.from({ length: 96 }, (_, i) => `quarter/${iso(START + i * 15 * MIN)}`);
    expect(rec.of("ScheduleFired").map((e) => e.workflowId)).toEqual(expected);
    expect(rec.of("ScheduleFired").every((e) => e.lateMs === 0 && !e.catchUp && !e.queued)).toBe(true);
    expect(rec.of("ScheduleRunEnded").map((e) => e.status)).toEqual(Array(96).fill("completed"));
    expect(rec.of("ScheduleSkipped")).toEqual([]);
    expect(rec.of("ScheduleRunFailed")).toEqual([]);
    expect(expected[95]).toBe("quarter/2026-01-05T23:45:00.000Z");
    const last = await checkpointer.getWorkflow(expected[95] as string);
    expect(last?.status).toBe("completed");
    expect(handle.nextFiring()).toEqual(new Date(START + 24 * 60 * MIN));
    await runner.close();
    expect(clock.pending()).toBe(0);
    await checkpointer.close();
  });

  it('overlap "skip": a firing while the previous one runs is skipped, with an event naming the previous one', async () => {
    const clock = testClock(START);
    const { graph, spans } = slowGraph(clock, 20 * MIN);
    const runner = new Runner({ checkpointer: new MemoryCheckpointer(), clock });
    const rec = recorder();
    const handle = runner.schedule(graph, {
      id: "s",
      cron: "*/15 * * * *",
      values: { n: 1 },
      overlap: "skip",
      onEvent: rec.onEvent,
    });
    await advanceInSteps(clock, 60 * MIN - 1);
    await handle.settled();
    expect(rec.of("ScheduleFired").map((e) => e.workflowId)).toEqual([`s/${iso(START)}`, `s/${iso(START + 30 * MIN)}`]);
    expect(rec.of("ScheduleSkipped").map((e) => [e.workflowId, e.reason, e.previousWorkflowId])).toEqual([
      [`s/${iso(START + 15 * MIN)}`, "overlap", `s/${iso(START)}`],
      [`s/${iso(START + 45 * MIN)}`, "overlap", `s/${iso(START + 30 * MIN)}`],
    ]);
    expect(spans).toEqual([
      { start: START, end: START + 20 * MIN },
      { start: START + 30 * MIN, end: START + 50 * MIN },
    ]);
    await runner.close();
  });

  it('overlap "queue": firings run one after another, in order, each as soon as the previous one ends', async () => {
    const clock = testClock(START);
    const { graph, spans } = slowGraph(clock, 20 * MIN);
    const runner = new Runner({ checkpointer: new MemoryCheckpointer(), clock });
    const rec = recorder();
    const handle = runner.schedule(graph, {
      id: "q",
      cron: "*/15 * * * *",
      values: { n: 1 },
      overlap: "queue",
      onEvent: rec.onEvent,
    });
    await advanceInSteps(clock, 90 * MIN - 1);
    handle.pause();
    await advanceInSteps(clock, 40 * MIN);
    await handle.settled();
    const fired = rec.of("ScheduleFired");
    expect(fired.map((e) => [e.workflowId, e.firedAt.getTime() - START, e.lateMs, e.queued])).toEqual([
      [`q/${iso(START)}`, 0, 0, false],
      [`q/${iso(START + 15 * MIN)}`, 20 * MIN, 5 * MIN, true],
      [`q/${iso(START + 30 * MIN)}`, 40 * MIN, 10 * MIN, true],
      [`q/${iso(START + 45 * MIN)}`, 60 * MIN, 15 * MIN, true],
      [`q/${iso(START + 60 * MIN)}`, 80 * MIN, 20 * MIN, true],
      [`q/${iso(START + 75 * MIN)}`, 100 * MIN, 25 * MIN, true],
    ]);
    expect(spans.map((s) => [s.start - START, s.end - START])).toEqual(
      [0, 20, 40, 60, 80, 100].map((m) => [m * MIN, (m + 20) * MIN]),
    );
    expect(rec.of("ScheduleSkipped")).toEqual([]);
    await runner.close();
  });

  it('overlap "allow": every firing starts on time, running beside the previous one', async () => {
    const clock = testClock(START);
    const { graph, spans } = slowGraph(clock, 20 * MIN);
    const runner = new Runner({ checkpointer: new MemoryCheckpointer(), clock });
    const rec = recorder();
    const handle = runner.schedule(graph, {
      id: "a",
      cron: "*/15 * * * *",
      values: { n: 1 },
      overlap: "allow",
      onEvent: rec.onEvent,
    });
    await advanceInSteps(clock, 60 * MIN - 1);
    handle.delete();
    await advanceInSteps(clock, 30 * MIN);
    await handle.settled();
    expect(rec.of("ScheduleFired").map((e) => [e.dueAt.getTime() - START, e.lateMs])).toEqual(
      [0, 15, 30, 45].map((m) => [m * MIN, 0]),
    );
    expect(spans.map((s) => [s.start - START, s.end - START])).toEqual(
      [0, 15, 30, 45].map((m) => [m * MIN, (m + 20) * MIN]),
    );
    await runner.close();
  });

  it("pause stops firing (occurrences passed while paused are not caught up); resume fires from the next one; delete removes it", async () => {
    const clock = testClock(START + 1);
    const runner = new Runner({ clock });
    const rec = recorder();
    const handle = runner.schedule(pingGraph, { id: "p", cron: "0 * * * *", values: { n: 1 }, onEvent: rec.onEvent });
    expect(runner.schedules().map((s) => s.id)).toEqual(["p"]);
    expect(handle.nextFiring()).toEqual(new Date(START + 60 * MIN));
    handle.pause();
    expect(handle.paused).toBe(true);
    expect(handle.nextFiring()).toBeUndefined();
    expect(clock.pending()).toBe(0);
    await advanceInSteps(clock, 150 * MIN, 30 * MIN);
    expect(rec.events).toEqual([]);
    handle.resume();
    expect(handle.nextFiring()).toEqual(new Date(START + 180 * MIN));
    await advanceInSteps(clock, 60 * MIN, 30 * MIN);
    await handle.settled();
    expect(rec.of("ScheduleFired").map((e) => e.workflowId)).toEqual([`p/${iso(START + 180 * MIN)}`]);
    handle.delete();
    expect(handle.paused).toBe(true);
    expect(runner.schedules()).toEqual([]);
    expect(clock.pending()).toBe(0);
    await advanceInSteps(clock, 120 * MIN, 30 * MIN);
    expect(rec.of("ScheduleFired")).toHaveLength(1);
    // The id is free again.
    runner.schedule(pingGraph, { id: "p", cron: "0 * * * *", values: { n: 1 } });
    await runner.close();
    expect(clock.pending()).toBe(0);
  });

  it("two runners on one store run each occurrence exactly once", () =>
    twoRunnersFireEachOccurrenceOnce(
      (() => {
        const shared = new MemoryCheckpointer();
        return () => shared;
      })(),
    ));

  it("reads the pattern in its time zone: 09:00 in Europe/Paris is 08:00Z before the spring DST change and 07:00Z after, 08:00Z again after the autumn one", async () => {
    for (const [from, expected] of [
      ["2026-03-27T12:00:00Z", ["2026-03-28T08:00:00.000Z", "2026-03-29T07:00:00.000Z", "2026-03-30T07:00:00.000Z"]],
      ["2026-10-23T12:00:00Z", ["2026-10-24T07:00:00.000Z", "2026-10-25T08:00:00.000Z", "2026-10-26T08:00:00.000Z"]],
    ] as const) {
      const clock = testClock(new Date(from));
      const runner = new Runner({ clock });
      const rec = recorder();
      const handle = runner.schedule(pingGraph, {
        id: "paris",
        cron: "0 9 * * *",
        timezone: "Europe/Paris",
        values: { n: 1 },
        onEvent: rec.onEvent,
      });
      await advanceInSteps(clock, 3 * 24 * 60 * MIN, 30 * MIN);
      await handle.settled();
      expect(rec.of("ScheduleFired").map((e) => [e.workflowId, e.firedAt.toISOString(), e.lateMs])).toEqual(
        expected.map((at) => [`paris/${at}`, at, 0]),
      );
      await runner.close();
    }
  });

  it('catch-up "latest": a restarted runner runs the latest occurrence missed while no process was up, once, and says how late', async () => {
    const clock = testClock(START);
    const checkpointer = new MemoryCheckpointer();
    const first = new Runner({ checkpointer, clock, closeCheckpointer: false });
    const options: ScheduleOptions = { id: "c", cron: "*/15 * * * *", values: { n: 1 } };
    first.schedule(pingGraph, options);
    await advanceInSteps(clock, 20 * MIN);
    await first.close();
    await advanceInSteps(clock, 50 * MIN); // 00:30, 00:45 and 01:00 pass with no runner up
    const rec = recorder();
    const second = new Runner({ checkpointer, clock, closeCheckpointer: false });
    const handle = second.schedule(pingGraph, { ...options, onEvent: rec.onEvent });
    await handle.settled();
    expect(rec.of("ScheduleFired").map((e) => [e.workflowId, e.lateMs, e.catchUp])).toEqual([
      [`c/${iso(START + 60 * MIN)}`, 10 * MIN, true],
    ]);
    expect((await checkpointer.getWorkflow(`c/${iso(START + 45 * MIN)}`))?.status).toBeUndefined();
    await second.close();
    // A third runner up a minute later finds the latest occurrence already fired: nothing runs twice.
    await advanceInSteps(clock, MIN);
    const again = recorder();
    const third = new Runner({ checkpointer, clock, closeCheckpointer: false });
    await third.schedule(pingGraph, { ...options, onEvent: again.onEvent }).settled();
    expect(again.events).toEqual([]);
    await third.close();
    // catchUp "none", or a miss older than the window: nothing is caught up.
    await advanceInSteps(clock, 3 * MIN); // 01:14: the 01:00 occurrence ran, no other missed
    for (const extra of [{ catchUp: "none" as const }, { catchUpWindowMs: 5 * MIN }]) {
      await advanceInSteps(clock, 15 * MIN); // 01:15 passes with no runner up
      const none = recorder();
      const runner = new Runner({ checkpointer, clock, closeCheckpointer: false });
      await runner.schedule(pingGraph, { ...options, ...extra, onEvent: none.onEvent }).settled();
      expect(none.events).toEqual([]);
      await runner.close();
    }
    await checkpointer.close();
  });

  it("close() stops the timers and queued firings; schedule() after close is refused", async () => {
    const clock = testClock(START + 1);
    const runner = new Runner({ clock });
    runner.schedule(pingGraph, { id: "x", cron: "0 * * * *", values: { n: 1 } });
    runner.schedule(pingGraph, { id: "y", cron: "*/5 * * * *", values: { n: 1 } });
    expect(clock.pending()).toBe(2);
    await runner.close();
    expect(clock.pending()).toBe(0);
    expect(() => runner.schedule(pingGraph, { id: "z", cron: "0 * * * *" })).toThrow(GraphConfigError);
  });
});

describe("runner.schedule: bad input is refused at call time", () => {
  const runner = new Runner({ clock: testClock(START) });
  const cases: [string, ScheduleOptions, string, string][] = [
    [
      "an unparseable cron",
      { id: "r", cron: "every day" },
      "cron",
      `option 'cron' "every day" is not a valid cron pattern`,
    ],
    ["a cron with an out-of-range field", { id: "r", cron: "61 * * * *" }, "cron", "is not a valid cron pattern"],
    [
      "an unknown time zone",
      { id: "r", cron: "0 * * * *", timezone: "Mars/Olympus" },
      "timezone",
      `'timezone' "Mars/Olympus" is not a known IANA time zone`,
    ],
    ["an empty id", { id: "", cron: "0 * * * *" }, "id", "option 'id' must be a non-empty string"],
    ["an id with '/'", { id: "team/report", cron: "0 * * * *" }, "id", `e.g. id: "team-report"`],
    ["an id with ':'", { id: "a:b", cron: "0 * * * *" }, "id", "no '/', ':' or spaces"],
    [
      "a bad overlap",
      { id: "r", cron: "0 * * * *", overlap: "never" as never },
      "overlap",
      `must be "skip", "queue" or "allow"`,
    ],
    ["a bad catchUp", { id: "r", cron: "0 * * * *", catchUp: "all" as never }, "catchUp", `must be "latest" or "none"`],
    ["a negative window", { id: "r", cron: "0 * * * *", catchUpWindowMs: -1 }, "catchUpWindowMs", "≥ 0"],
    ["an unknown option", { id: "r", cron: "0 * * * *", every: 5 } as never, "every", "unknown option 'every'"],
  ];
  for (const [what, options, option, message] of cases) {
    it(`${what} → InvalidOptionError naming '${option}' and how to fix`, () => {
      let error: unknown;
      try {
        runner.schedule(pingGraph, options);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(InvalidOptionError);
      expect((error as InvalidOptionError).option).toBe(option);
      expect((error as InvalidOptionError).message).toContain("runner.schedule()");
      expect((error as InvalidOptionError).message).toContain(message);
      expect(runner.schedules()).toEqual([]);
    });
  }

  it("a second schedule with the same id on one runner is refused", () => {
    const r = new Runner({ clock: testClock(START) });
    r.schedule(pingGraph, { id: "dup", cron: "0 * * * *" });
    expect(() => r.schedule(pingGraph, { id: "dup", cron: "0 * * * *" })).toThrow(/a schedule 'dup' already runs/);
    return r.close();
  });
});

describe("runner.schedule on the system clock", () => {
  it("a schedule's timer never keeps the process alive on its own (no close(), the process still exits)", () => {
    const entry = fileURLToPath(new URL("../src/index.ts", import.meta.url));
    const script = [
      `import { Graph, node } from "@graph/core";`,
      `import { Runner } from ${JSON.stringify(entry)};`,
      `const tick = node({ name: "tick", output: "t" }, () => 1);`,
      `const handle = new Runner().schedule(new Graph([tick]), { id: "hourly", cron: "0 * * * *" });`,
      `console.log("armed", handle.nextFiring() instanceof Date);`,
    ].join("\n");
    const started = Date.now();
    const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(child.stderr).toBe("");
    expect(child.stdout.trim()).toBe("armed true");
    expect(child.status).toBe(0);
    expect(child.signal).toBeNull();
    console.log(`the process exited by itself after ${Date.now() - started} ms`);
  }, 70_000);

  it("a seconds cron fires every second for ~3 s, each occurrence once (lateness printed, not asserted)", async () => {
    const runner = new Runner({ checkpointer: new MemoryCheckpointer() });
    const rec = recorder();
    const started = Date.now();
    const handle = runner.schedule(pingGraph, {
      id: "sec",
      cron: "*/1 * * * * *",
      values: { n: 1 },
      catchUp: "none",
      onEvent: rec.onEvent,
    });
    await new Promise((resolve) => setTimeout(resolve, 3_200));
    handle.delete();
    await handle.settled();
    const fired = rec.of("ScheduleFired");
    expect(fired.length).toBeGreaterThanOrEqual(2);
    for (const e of fired) {
      expect(e.workflowId).toBe(`sec/${e.dueAt.toISOString()}`);
      expect(e.dueAt.getMilliseconds()).toBe(0);
      expect(e.dueAt.getTime()).toBeGreaterThanOrEqual(started);
      expect(e.firedAt.getTime()).toBeGreaterThanOrEqual(e.dueAt.getTime());
    }
    expect(new Set(fired.map((e) => e.workflowId)).size).toBe(fired.length);
    expect(rec.of("ScheduleRunEnded").map((e) => e.status)).toEqual(Array(fired.length).fill("completed"));
    console.log(`in-process schedule lateness (ms): ${fired.map((e) => e.lateMs).join(", ")}`);
    await runner.close();
  });
});
