import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { scriptCommand } from "@graph/checkpoint-conformance";
import { afterAll, describe, expect, it } from "vitest";
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
import { SqliteCheckpointer } from "../src/index.js";

const dir = mkdtempSync(path.join(tmpdir(), "graph-time-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
/** A fresh SQLite file per scenario (two runners of one scenario share it). */
const sqlite = () => new SqliteCheckpointer({ path: path.join(dir, `time-${n++}.db`) });

describe("durable time on a SQLite file (testClock)", () => {
  it("food delivery: picked up in time, settles 1 minute, delivered", () => foodDeliveredOnTime(sqlite));
  it("food delivery: not picked up within 1 minute → refund, once", () => foodRefundedOnTimeout(sqlite));
  it("support flow: a reply within 4h closes its own ticket only", () => supportReplied(sqlite));
  it("support flow: no reply in 4h escalates", () => supportEscalated(sqlite));
  it("an event kept with { buffer } goes to the first matching waitFor, once; an expired one is dropped", () =>
    bufferedEventUsedOnce(sqlite));
  it("two runners on one file: a due time fires once", () => twoRunnersFireOnce(sqlite));
  it("a human answer racing the timeout: one winner, the step after runs once", () => answerRacesTimeout(sqlite));
  it("catch-up: a runner started after the due time resumes it and says how late", () =>
    catchUpReportsLateness(sqlite));
  it("delayed start (delay, startAt): stored paused, runs when due", () => delayedStart(sqlite));
});

describe("SIGKILL while sleeping (real time, real processes)", () => {
  it("another process resumes the sleep when due, exactly once", { timeout: 120_000 }, async () => {
    const file = path.join(dir, "crash.db");
    const command = scriptCommand(fileURLToPath(new URL("./fixtures/timeSleeper.ts", import.meta.url)));
    const { lateMs } = await sigkillWhileSleeping(
      (args) =>
        fork(command.script, [args[0]!, file, ...args.slice(1)], {
          execArgv: [...command.execArgv],
          stdio: ["ignore", "inherit", "inherit", "ipc"],
        }),
      "sleeper-1",
    );
    expect(lateMs).toBeGreaterThanOrEqual(0);
  });

  it("another process resumes a timed wait (SIGKILLed while waiting) when it times out, exactly once", {
    timeout: 120_000,
  }, async () => {
    const file = path.join(dir, "crash-wait.db");
    const command = scriptCommand(fileURLToPath(new URL("./fixtures/timeSleeper.ts", import.meta.url)));
    const { lateMs } = await sigkillWhileSleeping(
      (args) =>
        fork(command.script, [args[0]!, file, ...args.slice(1)], {
          execArgv: [...command.execArgv],
          stdio: ["ignore", "inherit", "inherit", "ipc"],
        }),
      "wait-sleeper-1",
    );
    expect(lateMs).toBeGreaterThanOrEqual(0);
  });
});
