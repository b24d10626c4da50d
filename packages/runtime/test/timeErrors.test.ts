import { MemoryCheckpointer } from "@graph/checkpoint";
import { Graph, node, sleep } from "@graph/core";
import { describe, expect, it } from "vitest";
import { InvalidOptionError, isInvalidOptionError, Runner, testClock } from "../src/index.js";

const T0 = Date.parse("2026-03-01T12:00:00Z");
const work = node({ name: "work", output: "result" }, async ({ task }: { task: string }) => task);
const graph = new Graph([work]);

async function invalid(call: () => Promise<unknown>): Promise<InvalidOptionError> {
  try {
    await call();
  } catch (error) {
    expect(isInvalidOptionError(error)).toBe(true);
    return error as InvalidOptionError;
  }
  throw new Error("expected an InvalidOptionError");
}

describe("bad input to the time API: InvalidOptionError naming the option and the fix", () => {
  it("delayed start options", async () => {
    const checkpointer = new MemoryCheckpointer();
    const runner = new Runner({ checkpointer, clock: testClock(T0) });
    const values = { task: "a" };
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ startAt: new Date(Number.NaN) }, "startAt", "must be a valid time, got an invalid Date"],
      [{ startAt: "next tuesday" }, "startAt", 'got "next tuesday"'],
      [{ startAt: Number.NaN }, "startAt", "must be a valid time"],
      [{ delay: "-5m" }, "delay", "is not a duration"],
      [{ delay: Number.NaN }, "delay", "finite number of milliseconds ≥ 0"],
      [{ delay: "20000d" }, "delay", "10-year limit"],
      [{ startAt: T0 + 11 * 365 * 86_400_000 }, "startAt", "more than 10 years ahead"],
      [{ startAt: T0, delay: "1m" }, "startAt", "either 'startAt' (a time) or 'delay'"],
    ];
    for (const [options, option, part] of cases) {
      const error = await invalid(() => runner.run(graph, { values, workflowId: "w", ...options } as never));
      expect(error.option).toBe(option);
      expect(error.message).toContain(part);
      expect(error.message).toContain("How to fix");
    }
    const mapped = await invalid(() =>
      runner.map(graph, { values: { task: ["a", "b"] }, mapOver: "task", delay: "1m" } as never),
    );
    expect({ option: mapped.option, part: mapped.message.includes("map runs its items now") }).toEqual({
      option: "delay",
      part: true,
    });
    // Nothing was stored by the refused calls.
    expect(await checkpointer.getWorkflow("w")).toBeUndefined();
    await runner.run(graph, { values, workflowId: "w" });
    const again = await invalid(() => runner.run(graph, { values, workflowId: "w", delay: "1m" }));
    expect(again.message).toContain("workflow 'w' already exists");
    await runner.close();
  });

  it("needs a checkpointer for delayed starts, wake and send", async () => {
    const runner = new Runner();
    expect((await invalid(() => runner.run(graph, { values: { task: "a" }, delay: "1m" }))).message).toContain(
      "'delay' needs a checkpointer",
    );
    expect((await invalid(() => runner.wake("w"))).option).toBe("checkpointer");
    expect((await invalid(() => runner.send("e", {}))).option).toBe("checkpointer");
    await runner.close();
  });

  it("send: the event name and the payload", async () => {
    const runner = new Runner({ checkpointer: new MemoryCheckpointer() });
    for (const [event, payload, option] of [
      ["", {}, "event"],
      [42, {}, "event"],
      ["x".repeat(257), {}, "event"],
      ["ticket.replied", "T-1", "payload"],
      ["ticket.replied", null, "payload"],
      ["ticket.replied", ["T-1"], "payload"],
    ] as const) {
      const error = await invalid(() => runner.send(event as never, payload as never));
      expect(error.option).toBe(option);
    }
    // An event nobody waits for is not an error: it is delivered to nobody (and not kept).
    expect(await runner.send("nobody.listens", { id: 1 })).toEqual({ delivered: [], skipped: [] });
    expect((await invalid(() => runner.wake("" as never))).option).toBe("workflowId");
    expect(await runner.wake("no-such-workflow")).toEqual({
      woken: false,
      workflowId: "no-such-workflow",
      reason: "not-found",
    });
    await runner.close();
  });

  it("runner options clock, graphs and scheduler", () => {
    for (const [options, option] of [
      [{ clock: { now: 1 } }, "clock"],
      [{ graphs: [{}] }, "graphs"],
      [{ graphs: graph }, "graphs"],
      [{ scheduler: "yes" }, "scheduler"],
    ] as const) {
      expect(() => new Runner(options as never)).toThrow(InvalidOptionError);
      try {
        new Runner(options as never);
      } catch (error) {
        expect((error as InvalidOptionError).option).toBe(option);
      }
    }
  });

  it("runner option duePollIntervalMs: an integer of ms from 10 to 3600000", () => {
    for (const bad of [0, 9, 1.5, -1, 3_600_001, Number.NaN, "1s", null]) {
      let error: unknown;
      try {
        new Runner({ checkpointer: new MemoryCheckpointer(), duePollIntervalMs: bad as never });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(InvalidOptionError);
      expect((error as InvalidOptionError).option).toBe("duePollIntervalMs");
      expect((error as Error).message).toContain("How to fix");
    }
    for (const good of [10, 2_000, 3_600_000]) expect(() => new Runner({ duePollIntervalMs: good })).not.toThrow();
  });

  it("a sleep until a value that is no time fails its node, naming the value", async () => {
    const clock = testClock(T0);
    const until = sleep({ name: "wait", until: "deadline", output: "reached" });
    const runner = new Runner({ checkpointer: new MemoryCheckpointer(), clock });
    const result = await runner.run(new Graph([until]), {
      values: { deadline: "whenever" },
      workflowId: "bad-until",
      errorHandling: "continue",
    });
    expect(result.status).toBe("failed");
    const cause = (result.error as { cause: InvalidOptionError }).cause;
    expect(cause.option).toBe("deadline");
    expect(cause.message).toContain(`sleep 'wait' reads its wake-up time from 'deadline', which holds "whenever"`);
    // A time in the past wakes at once (no pause); one in the future pauses until it.
    const past = await runner.run(new Graph([until]), { values: { deadline: T0 - 1 }, workflowId: "past" });
    expect(past.values).toEqual({ reached: T0 - 1 });
    const future = await runner.run(new Graph([until]), {
      values: { deadline: new Date(T0 + 5_000) },
      workflowId: "future",
    });
    expect(future.pause).toMatchObject({ reason: "sleep", wakeAt: new Date(T0 + 5_000) });
    await runner.close();
  });
});
