import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { scriptCommand } from "@graph/checkpoint-conformance";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
import { PostgresCheckpointer } from "../src/index.js";
import { DATABASE_URL, dropSchemas, randomSchema, requirePostgres } from "./fixtures/server.js";

const schemas: string[] = [];
beforeAll(requirePostgres);
afterAll(() => dropSchemas(schemas));
/** A fresh schema per scenario (two runners of one scenario share it). */
function postgres() {
  const schema = randomSchema("time");
  schemas.push(schema);
  return new PostgresCheckpointer({ connectionString: DATABASE_URL, schema });
}

describe("durable time on PostgreSQL (testClock)", () => {
  it("food delivery: picked up in time, settles 1 minute, delivered", () => foodDeliveredOnTime(postgres));
  it("food delivery: not picked up within 1 minute → refund, once", () => foodRefundedOnTimeout(postgres));
  it("support flow: a reply within 4h closes its own ticket only", () => supportReplied(postgres));
  it("support flow: no reply in 4h escalates", () => supportEscalated(postgres));
  it("an event kept with { buffer } goes to the first matching waitFor, once; an expired one is dropped", () =>
    bufferedEventUsedOnce(postgres));
  it("two runners on one schema: a due time fires once", () => twoRunnersFireOnce(postgres));
  it("a human answer racing the timeout: one winner, the step after runs once", () => answerRacesTimeout(postgres));
  it("catch-up: a runner started after the due time resumes it and says how late", () =>
    catchUpReportsLateness(postgres));
  it("delayed start (delay, startAt): stored paused, runs when due", () => delayedStart(postgres));
});

describe("SIGKILL while sleeping (PostgreSQL, real time, real processes)", () => {
  it("another process resumes the sleep when due, exactly once", { timeout: 120_000 }, async () => {
    const schema = randomSchema("time_crash");
    schemas.push(schema);
    const migrate = new PostgresCheckpointer({ connectionString: DATABASE_URL, schema });
    await migrate.setup();
    await migrate.close();
    const command = scriptCommand(fileURLToPath(new URL("./fixtures/timeSleeper.ts", import.meta.url)));
    const { lateMs } = await sigkillWhileSleeping(
      (args) =>
        fork(command.script, [args[0]!, schema, ...args.slice(1)], {
          execArgv: [...command.execArgv],
          env: { ...process.env, DATABASE_URL },
          stdio: ["ignore", "inherit", "inherit", "ipc"],
        }),
      "sleeper-pg",
    );
    expect(lateMs).toBeGreaterThanOrEqual(0);
  });

  it("another process resumes a timed wait (SIGKILLed while waiting) when it times out, exactly once", {
    timeout: 120_000,
  }, async () => {
    const schema = randomSchema("time_crash");
    schemas.push(schema);
    const migrate = new PostgresCheckpointer({ connectionString: DATABASE_URL, schema });
    await migrate.setup();
    await migrate.close();
    const command = scriptCommand(fileURLToPath(new URL("./fixtures/timeSleeper.ts", import.meta.url)));
    const { lateMs } = await sigkillWhileSleeping(
      (args) =>
        fork(command.script, [args[0]!, schema, ...args.slice(1)], {
          execArgv: [...command.execArgv],
          env: { ...process.env, DATABASE_URL },
          stdio: ["ignore", "inherit", "inherit", "ipc"],
        }),
      "wait-sleeper-pg",
    );
    expect(lateMs).toBeGreaterThanOrEqual(0);
  });
});
