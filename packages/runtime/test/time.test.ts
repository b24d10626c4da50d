import { MemoryCheckpointer } from "@graph/checkpoint";
import { describe, it } from "vitest";
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
} from "./workflows/time.js";

const memory = () => new MemoryCheckpointer();

describe("durable time on the memory checkpointer (testClock)", () => {
  it("food delivery: picked up in time, settles 1 minute, delivered", () => foodDeliveredOnTime(memory));
  it("food delivery: not picked up within 1 minute → refund, once", () => foodRefundedOnTimeout(memory));
  it("support flow: a reply within 4h closes its own ticket only", () => supportReplied(memory));
  it("support flow: no reply in 4h escalates", () => supportEscalated(memory));
  it("an event kept with { buffer } goes to the first matching waitFor, once; an expired one is dropped", () =>
    bufferedEventUsedOnce(memory));
  it("two runners on one store: a due time fires once", () => twoRunnersFireOnce(memory));
  it("a human answer racing the timeout: one winner, the step after runs once", () => answerRacesTimeout(memory));
  it("catch-up: a runner started after the due time resumes it and says how late", () =>
    catchUpReportsLateness(memory));
  it("delayed start (delay, startAt): stored paused, runs when due", () => delayedStart(memory));
});
