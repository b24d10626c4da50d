import { type Duration, Graph, type InputsOf, interrupt, node, type OutputsOf, sleep, waitFor } from "@graph/core";
import { describe, expectTypeOf, test } from "vitest";
import type { ResultOf, Runner, RunOptions, SendOptions, SendResult, WakeResult } from "../src/index.js";

const ask = interrupt({
  name: "ask",
  input: "draft",
  response: "decision",
  handler: (draft: string): "ok" | "no" | undefined => (draft === "" ? "no" : undefined),
  timeout: "2h",
  onTimeout: "no",
  timedOut: "expired",
});
const nap = sleep({ name: "nap", input: "job", duration: "1h", output: "napped" });
const until = sleep({ name: "until", until: "deadline", output: "reached" });
const reply = waitFor({
  name: "reply",
  event: "ticket.replied",
  match: { ticketId: "ticketId" },
  after: "notified",
  response: "answer",
  timeout: "4h",
  onTimeout: null,
  timedOut: "noReply",
  payload: undefined as unknown as { ticketId: string; text: string },
});

describe("timed pauses are typed like interrupts", () => {
  test("a timed interrupt: the answer (onTimeout's type included) and the boolean flag", () => {
    expectTypeOf<InputsOf<typeof ask>>().toEqualTypeOf<{ draft: string }>();
    expectTypeOf<OutputsOf<typeof ask>>().toEqualTypeOf<{ decision: "ok" | "no"; expired: boolean }>();
  });

  test("a sleep: its input, and the due time (epoch ms) as its output", () => {
    expectTypeOf<InputsOf<typeof nap>>().toEqualTypeOf<{ job: unknown }>();
    expectTypeOf<OutputsOf<typeof nap>>().toEqualTypeOf<{ napped: number }>();
    expectTypeOf<InputsOf<typeof until>>().toEqualTypeOf<{ deadline: Date | string | number }>();
  });

  test("a waitFor: matched and `after` values in, the payload or the fallback out, and the flag", () => {
    expectTypeOf<InputsOf<typeof reply>>().toEqualTypeOf<{ ticketId: unknown; notified: unknown }>();
    expectTypeOf<OutputsOf<typeof reply>>().toEqualTypeOf<{
      answer: { ticketId: string; text: string } | null;
      noReply: boolean;
    }>();
  });

  test("a graph's result reads the timed outputs with their types", () => {
    const close = node(
      { name: "close", output: "closed" },
      ({ answer }: { answer: { text: string } | null }) => answer?.text ?? "none",
    );
    const graph = new Graph([reply, close]);
    type Values = ResultOf<typeof graph>["values"];
    expectTypeOf<Values["answer"]>().toEqualTypeOf<{ ticketId: string; text: string } | null | undefined>();
    expectTypeOf<Values["noReply"]>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf<Values["closed"]>().toEqualTypeOf<string | undefined>();
  });

  test("durations and delayed starts", () => {
    expectTypeOf<"1h30m">().toExtend<Duration>();
    expectTypeOf<250>().toExtend<Duration>();
    expectTypeOf<"soon">().not.toExtend<Duration>();
    expectTypeOf<{ delay: "2h" }>().toExtend<RunOptions>();
    expectTypeOf<{ startAt: Date }>().toExtend<RunOptions>();
    // @ts-expect-error a duration is a number of ms or starts with a number and a unit
    sleep({ name: "bad", input: "x", duration: "soon", output: "y" });
  });

  test("wake and send answers", () => {
    expectTypeOf<Runner["wake"]>().returns.toEqualTypeOf<Promise<WakeResult>>();
    expectTypeOf<Runner["send"]>().parameters.toEqualTypeOf<
      [string, Readonly<Record<string, unknown>>, (SendOptions | undefined)?]
    >();
    expectTypeOf<SendResult["delivered"][number]["status"]>().toEqualTypeOf<
      "completed" | "paused" | "stopped" | "failed"
    >();
  });
});
