import type { FunctionNode } from "@graph/core";
import { Chunk, Duration, Effect, Schedule } from "effect";
import { describe, expect, it } from "vitest";
import { retrySchedule } from "../src/internal/executors/function.js";

/** The delays before each retry (the schedule is stepped, nothing sleeps), for up to `failures` failures. */
function delays(retry: NonNullable<FunctionNode["retry"]>, failures = 8): number[] {
  const inputs = Array.from({ length: failures }, (_, i) => i);
  const out = Effect.runSync(Schedule.run(Schedule.delays(retrySchedule(retry)), 0, inputs));
  // Schedule.run also emits the output of the step that ends the schedule: that one is not a retry.
  return Chunk.toReadonlyArray(out).map(Duration.toMillis).slice(0, -1);
}

describe("retrySchedule: the delays between attempts", () => {
  const cases: Array<[string, NonNullable<FunctionNode["retry"]>, number[]]> = [
    ["exponential by default, from 100 ms", { attempts: 4 }, [100, 200, 400]],
    ["constant", { attempts: 3, backoff: "constant", initialDelayMs: 50 }, [50, 50]],
    ["linear", { attempts: 4, backoff: "linear", initialDelayMs: 10 }, [10, 20, 30]],
    ["capped at maxDelayMs", { attempts: 5, initialDelayMs: 100, maxDelayMs: 250 }, [100, 200, 250, 250]],
    ["one attempt: no retry", { attempts: 1 }, []],
  ];
  for (const [what, retry, expected] of cases) it(what, () => expect(delays(retry)).toEqual(expected));
});
