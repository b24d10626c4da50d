import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type Duration,
  Graph,
  type GraphConfigError,
  ifElse,
  interrupt,
  isGraphConfigError,
  node,
  parseDuration,
  sleep,
  toEpochMs,
  waitFor,
} from "../src/index.js";

/** The GraphConfigError `build` throws (fails the test when it throws nothing or something else). */
function configError(build: () => unknown): GraphConfigError {
  try {
    build();
  } catch (error) {
    expect(isGraphConfigError(error)).toBe(true);
    return error as GraphConfigError;
  }
  throw new Error("expected a GraphConfigError");
}

describe("durations", () => {
  it("reads milliseconds and unit strings, compound ones included", () => {
    expect(parseDuration(250, "t")).toBe(250);
    expect(parseDuration(0, "t")).toBe(0);
    expect(parseDuration("90s", "t")).toBe(90_000);
    expect(parseDuration("4h", "t")).toBe(14_400_000);
    expect(parseDuration("7d", "t")).toBe(604_800_000);
    expect(parseDuration("1h30m", "t")).toBe(5_400_000);
    expect(parseDuration("1.5h", "t")).toBe(5_400_000);
    expect(parseDuration("2w", "t")).toBe(1_209_600_000);
    expect(parseDuration("500ms", "t")).toBe(500);
    expect(parseDuration(" 1m ", "t")).toBe(60_000);
  });

  it("any sum of parts reads back as the sum", () => {
    const unit = fc.constantFrom(["ms", 1], ["s", 1_000], ["m", 60_000], ["h", 3_600_000], ["d", 86_400_000]);
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 500 }), unit), { minLength: 1, maxLength: 4 }),
        (parts) => {
          const text = parts.map(([n, [u]]) => `${n}${u}`).join("");
          const total = parts.reduce((sum, [n, [, ms]]) => sum + n * (ms as number), 0);
          expect(parseDuration(text, "t")).toBe(total);
        },
      ),
    );
  });

  it("refuses negative, NaN, infinite, unparseable and absurd durations, saying where and how", () => {
    for (const [bad, part] of [
      [-1, "finite number of milliseconds ≥ 0"],
      [Number.NaN, "finite number of milliseconds ≥ 0"],
      [Number.POSITIVE_INFINITY, "finite number of milliseconds ≥ 0"],
      ["4 hours", "is not a duration"],
      ["h4", "is not a duration"],
      ["", "is not a duration"],
      ["-4h", "is not a duration"],
      ["4h junk", "is not a duration"],
      [true, "must be a duration, got"],
      ["11000d", "more than the 10-year limit"],
    ] as const) {
      const error = configError(() => parseDuration(bad, "timeout of interrupt 'x'"));
      expect(error.message).toContain(part);
      expect(error.message).toContain("timeout of interrupt 'x'");
      expect(error.where).toBe("timeout of interrupt 'x'");
    }
  });

  it("reads points in time", () => {
    expect(toEpochMs(new Date("2026-01-01T00:00:00Z"))).toBe(1_767_225_600_000);
    expect(toEpochMs("2026-01-01T00:00:00Z")).toBe(1_767_225_600_000);
    expect(toEpochMs(5)).toBe(5);
    expect(toEpochMs(new Date(Number.NaN))).toBeUndefined();
    expect(toEpochMs("soon")).toBeUndefined();
    expect(toEpochMs(null)).toBeUndefined();
  });
});

describe("sleep, timed interrupts and waitFor", () => {
  it("a sleep is an interrupt node with its due-time rule", () => {
    const nap = sleep({ name: "nap", input: "job", duration: "1h", output: "napped" });
    expect({ kind: nap.kind, inputs: nap.inputs, outputs: nap.outputs, timing: nap.timing }).toEqual({
      kind: "interrupt",
      inputs: ["job"],
      outputs: ["napped"],
      timing: { wait: "sleep", afterMs: 3_600_000 },
    });
    const until = sleep({ name: "wait", until: "deadline", output: "reached" });
    expect({ inputs: until.inputs, timing: until.timing }).toEqual({
      inputs: ["deadline"],
      timing: { wait: "sleep", untilInput: true },
    });
  });

  it("an interrupt with a timeout gets the timed-out flag as a second output", () => {
    const ask = interrupt({
      name: "ask",
      input: "draft",
      response: "decision",
      timeout: "2h",
      onTimeout: "no",
      timedOut: "expired",
    });
    expect({ outputs: ask.outputs, responseKey: ask.responseKey, flag: ask.timedOutKey }).toEqual({
      outputs: ["decision", "expired"],
      responseKey: "decision",
      flag: "expired",
    });
    expect(ask.withOutputs({ expired: "late" }).timedOutKey).toBe("late");
  });

  it("a waitFor reads its matched values and `after`, and shows the match by payload field", () => {
    const reply = waitFor({
      name: "reply",
      event: "ticket.replied",
      match: { ticketId: "ticketId", org: "orgId" },
      after: "notified",
      response: "answer",
    });
    expect({ inputs: reply.inputs, outputs: reply.outputs, match: reply.eventMatch }).toEqual({
      inputs: ["notified", "orgId", "ticketId"],
      outputs: ["answer"],
      match: { org: "orgId", ticketId: "ticketId" },
    });
    expect(reply.withInputs({ ticketId: "id" }).eventMatch).toEqual({ org: "orgId", ticketId: "id" });
  });

  it("definition hashes: plain interrupts keep theirs, every time option changes it", () => {
    const plain = interrupt({ name: "ask", input: "draft", response: "decision" });
    expect(plain.definitionHash).toBe(interrupt({ name: "ask", input: "draft", response: "decision" }).definitionHash);
    const timed = (timeout: Duration, onTimeout: unknown = "no") =>
      interrupt({ name: "ask", input: "draft", response: "decision", timeout, onTimeout }).definitionHash;
    const hashes = new Set([
      plain.definitionHash,
      timed("1h"),
      timed("2h"),
      timed("1h", "yes"),
      sleep({ name: "ask", input: "draft", duration: "1h", output: "decision" }).definitionHash,
      sleep({ name: "ask", input: "draft", duration: "1m", output: "decision" }).definitionHash,
      waitFor({ name: "ask", event: "a", match: { d: "draft" }, response: "decision" }).definitionHash,
      waitFor({ name: "ask", event: "b", match: { d: "draft" }, response: "decision" }).definitionHash,
      waitFor({ name: "ask", event: "a", match: { e: "draft" }, response: "decision" }).definitionHash,
    ]);
    expect(hashes.size).toBe(9);
    expect(timed("60m")).toBe(timed("1h")); // the same time written two ways is the same definition
  });

  it("bad options are GraphConfigErrors that say what, where and how", () => {
    const cases: Array<[() => unknown, string]> = [
      [() => sleep({ name: "nap", input: "job", output: "out" } as never), "exactly one of 'duration'"],
      [() => sleep({ name: "nap", input: "job", duration: "-1s", output: "out" }), "is not a duration"],
      [() => sleep({ name: "nap", until: "when", input: "job", output: "out" } as never), "both 'until' and 'input'"],
      [() => sleep({ name: "nap", input: "job", duration: "1m" } as never), "needs 'output'"],
      [() => sleep({ name: "nap", input: "x", duration: "1m", output: "x" }), "both its input and its output"],
      [() => interrupt({ name: "ask", input: "d", response: "r", timeout: "1h" }), "has a timeout but no 'onTimeout'"],
      [() => interrupt({ name: "ask", input: "d", response: "r", onTimeout: "x" }), "has 'onTimeout' but no 'timeout'"],
      [
        () => interrupt({ name: "ask", input: "d", response: "r", timeout: "1h", onTimeout: 1, timedOut: "r" }),
        "must be the name of a new boolean value",
      ],
      [() => interrupt({ name: "ask", input: "d", response: "r", timeout: Number.NaN, onTimeout: 1 }), "≥ 0"],
      [() => waitFor({ name: "w", event: "", match: { a: "a" }, response: "r" }), "needs 'event'"],
      [() => waitFor({ name: "w", event: "e", match: {}, response: "r" }), "needs 'match'"],
      [() => waitFor({ name: "w", event: "e", match: { a: 1 } as never, response: "r" }), "must name a run value"],
      [() => waitFor({ name: "w", event: "e", match: { a: "r" }, response: "r" }), "the value its own event produces"],
    ];
    for (const [build, part] of cases) expect(configError(build).message).toContain(part);
    expect(configError(cases[1]![0]).where).toBe("duration of the sleep 'nap'");
  });

  it("a waitFor matching a misspelled run value is refused when the graph is built, with a suggestion", () => {
    const load = node({ name: "load", output: "ticketId" }, async ({ email }: { email: string }) => email);
    const reply = waitFor({ name: "reply", event: "ticket.replied", match: { ticketId: "ticketID" }, response: "r" });
    const error = configError(() => new Graph([load, reply]));
    expect(error.message).toContain("matches payload field 'ticketId' on the run value 'ticketID'");
    expect(error.message).toContain("Did you mean 'ticketId'?");
    expect(error.where).toBe("reply");
    // A value only the waitFor reads (with no look-alike) is simply an input of the run.
    const alone = new Graph([waitFor({ name: "reply", event: "e", match: { ticketId: "ticketId" }, response: "r" })]);
    expect([...alone.inputs.required]).toEqual(["ticketId"]);
  });

  it("a waitFor matching a payload field on the run value of the same name is accepted, whatever looks alike", () => {
    // The usual pattern: the event carries `userId`, the run was started with `userId`, and only the wait reads it.
    const load = node({ name: "load", output: "user" }, async ({ email }: { email: string }) => ({ email }));
    const approved = waitFor({ name: "approved", event: "app/approved", match: { userId: "userId" }, response: "ok" });
    const graph = new Graph([load, approved]);
    expect([...graph.inputs.required].sort()).toEqual(["email", "userId"]);
    // A field matched on a look-alike of a value the graph has is still a typo.
    const typo = waitFor({ name: "approved", event: "app/approved", match: { userId: "usr" }, response: "ok" });
    const error = configError(() => new Graph([load, typo]));
    expect(error.message).toContain("matches payload field 'userId' on the run value 'usr'");
    expect(error.message).toContain("Did you mean 'user'?");
    expect(error.message).toContain(`How to fix: match: { userId: "user" }`);
  });

  it("Mermaid and the structure view show the timeout path and the time in the box", () => {
    const ask = interrupt({
      name: "ask",
      input: "draft",
      response: "decision",
      timeout: "1m",
      onTimeout: null,
      timedOut: "expired",
    });
    const gate = ifElse(
      { name: "late?", whenTrue: "refund", whenFalse: "ship" },
      ({ expired }: { expired: boolean }) => expired,
    );
    const refund = node({ name: "refund", output: "refunded" }, ({ draft }: { draft: string }) => draft);
    const ship = node({ name: "ship", output: "shipped" }, ({ decision }: { decision: string }) => decision);
    const nap = sleep({ name: "nap", input: "shipped", duration: "1h", output: "rested" });
    const graph = new Graph([ask, gate, refund, ship, nap]);
    const mermaid = graph.toMermaid();
    expect(mermaid).toContain('n0[/"ask (answer, timeout 1m)"/]');
    expect(mermaid).toContain('n4[/"nap (sleep 1h)"/]');
    expect(mermaid).toContain('n0 -.->|"timeout#58; expired"| n1');
    expect(graph.structure.getEdgeAttributes("ask", "late?")).toEqual({
      edgeType: "data",
      valueNames: ["expired"],
      condition: "timeout",
    });
    expect(graph.structure.getEdgeAttributes("ask", "ship").condition).toBeUndefined();
  });
});
