import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { scriptCommand } from "@graph/checkpoint-conformance";
import { afterAll, describe, expect, it } from "vitest";
import {
  answerRacesTimeout,
  catchUpReportsLateness,
  delayedStart,
  foodDeliveredOnTime,
  foodRefundedOnTimeout,
  supportEscalated,
  supportReplied,
  twoRunnersFireOnce,
} from "../../runtime/test/workflows/time.js";
import { logLines, type Resumed } from "../../runtime/test/workflows/timeCrash.js";
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
  it("two runners on one file: a due time fires once", () => twoRunnersFireOnce(sqlite));
  it("a human answer racing the timeout: one winner, the step after runs once", () => answerRacesTimeout(sqlite));
  it("catch-up: a runner started after the due time resumes it and says how late", () =>
    catchUpReportsLateness(sqlite));
  it("delayed start (delay, startAt): stored paused, runs when due", () => delayedStart(sqlite));
});

/** Forks the fixture in `mode`; resolves with its first IPC message, and its exit signal or code. */
function child(args: string[]) {
  const command = scriptCommand(fileURLToPath(new URL("./fixtures/timeSleeper.ts", import.meta.url)));
  const proc = fork(command.script, args, {
    execArgv: [...command.execArgv],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const exit = new Promise<unknown>((resolve) => proc.on("exit", (code, signal) => resolve(signal ?? code)));
  const message = new Promise<unknown>((resolve, reject) => {
    proc.on("message", resolve);
    void exit.then((how) => reject(new Error(`the child exited (${String(how)}) before reporting`)));
  });
  return { proc, exit, message };
}

describe("SIGKILL while sleeping (real time, real processes)", () => {
  it("another process resumes the sleep when due, exactly once", { timeout: 120_000 }, async () => {
    const file = path.join(dir, "crash.db");
    const log = path.join(dir, "crash.log");
    const sleeper = child(["sleep", file, log, "3000", "sleeper-1"]);
    const { wakeAt } = (await sleeper.message) as { wakeAt: number };
    sleeper.proc.kill("SIGKILL");
    expect(await sleeper.exit).toBe("SIGKILL");
    expect(wakeAt).toBeGreaterThan(Date.now()); // killed while sleeping, before its due time
    const resumer = child(["resume", file, log, "3000", "sleeper-1"]);
    const seen = (await resumer.message) as Resumed;
    expect(await resumer.exit).toBe(0);
    expect(seen.fired).toHaveLength(1);
    expect(seen.fired[0]!.dueAt).toBe(wakeAt);
    expect(seen.fired[0]!.firedAt).toBeGreaterThanOrEqual(wakeAt);
    expect(seen.values).toMatchObject({ job: "sleeper-1", napped: wakeAt, done: "sleeper-1 done" });
    const lines = logLines(log);
    expect(lines.filter((l) => l.startsWith("before:")).map((l) => l.split(":")[2])).toEqual([
      String(sleeper.proc.pid),
    ]);
    expect(lines.filter((l) => l.startsWith("after:"))).toEqual([`after:sleeper-1:${seen.pid}:${wakeAt}`]);
  });
});
