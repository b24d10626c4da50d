import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { scriptCommand } from "@graph/checkpoint-conformance";
import { afterAll, describe, expect, it } from "vitest";
// The runtime's time scenarios, run on this adapter (the runtime can't depend on its adapters).
import {
  answerRacesTimeout,
  bufferedEventUsedOnce,
  catchUpReportsLateness,
  delayedStart,
  foodDeliveredOnTime,
  foodRefundedOnTimeout,
  supportEscalated,
  supportReplied,
  twoRunnersFireOnce,
} from "../../runtime/test/workflows/time.js";
import { sigkillWhileSleeping } from "../../runtime/test/workflows/timeCrash.js";
import { RedisCheckpointer } from "../src/index.js";
import { clearPrefixes, randomPrefix, redisUrl } from "./fixtures/store.js";

const prefixes: string[] = [];
afterAll(() => clearPrefixes(prefixes));
/** A fresh key prefix per scenario (two runners of one scenario share it). */
function redis() {
  const prefix = randomPrefix("time");
  prefixes.push(prefix);
  return new RedisCheckpointer({ url: redisUrl(), prefix });
}

describe("durable time on Redis (testClock)", () => {
  it("food delivery: picked up in time, settles 1 minute, delivered", () => foodDeliveredOnTime(redis));
  it("food delivery: not picked up within 1 minute → refund, once", () => foodRefundedOnTimeout(redis));
  it("support flow: a reply within 4h closes its own ticket only", () => supportReplied(redis));
  it("support flow: no reply in 4h escalates", () => supportEscalated(redis));
  it("an event kept with { buffer } goes to the first matching waitFor, once; an expired one is dropped", () =>
    bufferedEventUsedOnce(redis));
  it("two runners on one prefix: a due time fires once", () => twoRunnersFireOnce(redis));
  it("a human answer racing the timeout: one winner, the step after runs once", () => answerRacesTimeout(redis));
  it("catch-up: a runner started after the due time resumes it and says how late", () => catchUpReportsLateness(redis));
  it("delayed start (delay, startAt): stored paused, runs when due", () => delayedStart(redis));
});

describe("SIGKILL while sleeping (Redis, real time, real processes)", () => {
  it("another process resumes the sleep when due, exactly once", { timeout: 120_000 }, async () => {
    const prefix = randomPrefix("time-crash");
    prefixes.push(prefix);
    const command = scriptCommand(fileURLToPath(new URL("./fixtures/timeSleeper.ts", import.meta.url)));
    const { lateMs } = await sigkillWhileSleeping(
      (args) =>
        fork(command.script, [args[0]!, redisUrl(), prefix, ...args.slice(1)], {
          execArgv: [...command.execArgv],
          stdio: ["ignore", "inherit", "inherit", "ipc"],
        }),
      "sleeper-redis",
    );
    expect(lateMs).toBeGreaterThanOrEqual(0);
  });

  it("another process resumes a timed wait (SIGKILLed while waiting) when it times out, exactly once", {
    timeout: 120_000,
  }, async () => {
    const prefix = randomPrefix("time-crash");
    prefixes.push(prefix);
    const command = scriptCommand(fileURLToPath(new URL("./fixtures/timeSleeper.ts", import.meta.url)));
    const { lateMs } = await sigkillWhileSleeping(
      (args) =>
        fork(command.script, [args[0]!, redisUrl(), prefix, ...args.slice(1)], {
          execArgv: [...command.execArgv],
          stdio: ["ignore", "inherit", "inherit", "ipc"],
        }),
      "wait-sleeper-redis",
    );
    expect(lateMs).toBeGreaterThanOrEqual(0);
  });
});
