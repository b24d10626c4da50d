import { Graph, node } from "@graph/core";
import { describe, expectTypeOf, test } from "vitest";
import { Runner, type ScheduleEvent, type ScheduleHandle } from "../src/index.js";

const ping = node({ name: "ping", output: "pong" }, ({ n }: { n: number }) => n + 1);
const graph = new Graph([ping], { name: "ping" });
const runner = new Runner();

describe("runner.schedule types", () => {
  test("returns a handle; schedules() lists handles", () => {
    expectTypeOf(runner.schedule(graph, { id: "p", cron: "0 * * * *" })).toEqualTypeOf<ScheduleHandle>();
    expectTypeOf(runner.schedules()).toEqualTypeOf<readonly ScheduleHandle[]>();
    expectTypeOf<ScheduleHandle["nextFiring"]>().returns.toEqualTypeOf<Date | undefined>();
  });

  test("overlap and catchUp take only their words", () => {
    // @ts-expect-error: not an overlap rule
    runner.schedule(graph, { id: "p", cron: "0 * * * *", overlap: "never" });
    // @ts-expect-error: not a catch-up rule
    runner.schedule(graph, { id: "p", cron: "0 * * * *", catchUp: "all" });
  });

  test("events narrow on their type", () => {
    const onEvent = (event: ScheduleEvent) => {
      if (event.type === "ScheduleFired") expectTypeOf(event.lateMs).toEqualTypeOf<number>();
      if (event.type === "ScheduleSkipped") expectTypeOf(event.reason).toEqualTypeOf<"overlap" | "taken">();
      if (event.type === "ScheduleRunEnded")
        expectTypeOf(event.status).toEqualTypeOf<"completed" | "paused" | "stopped" | "failed">();
    };
    runner.schedule(graph, { id: "p", cron: "0 * * * *", onEvent });
  });
});
