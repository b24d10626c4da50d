import type { Checkpointer } from "@graph/checkpoint";
import { Graph, interrupt, node, sleep } from "@graph/core";
import { describe, expect, it } from "vitest";
import { type GraphEvent, Runner, type RunnerOptions, type TestClock, testClock } from "../../src/index.js";
import { foodDelivery, supportFlow } from "./timeGraphs.js";

/**
 * Scenarios of durable time (sleeps, timeouts, waitFor/send, delayed start, exactly-once, catch-up), written once
 * and registered on every checkpointer by {@link describeTimeScenarios} (memory here, SQLite, PostgreSQL and Redis in
 * their packages). Each takes a factory of a fresh store (a scenario with two runners shares one store between
 * them). Time is a `testClock`: a "4h" wait takes milliseconds.
 */
export type NewCheckpointer = () => Checkpointer;

const T0 = Date.parse("2026-03-01T12:00:00Z");
const MINUTE = 60_000;
const HOUR = 3_600_000;

function runnerOn(checkpointer: Checkpointer, clock: TestClock, extra: Partial<RunnerOptions> = {}) {
  const events: GraphEvent[] = [];
  const runner = new Runner({
    checkpointer,
    clock,
    eventProcessors: [{ onEvent: (e) => void events.push(e) }],
    ...extra,
  });
  return { runner, events };
}

/** Waits (real time, a few ms at a time) for work a fired timer started: the store may do real I/O. */
async function until(check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const fired = (events: readonly GraphEvent[]) => events.filter((e) => e.type === "TimerFired");
const ended = (events: readonly GraphEvent[], status: string, atLeast = 1) =>
  events.filter((e) => e.type === "RunEnd" && e.status === status).length >= atLeast;

/** Food delivery, picked up after 30 s: the settle sleep fires once at its due time, then "delivered" completes it. */
async function foodDeliveredOnTime(store: NewCheckpointer): Promise<void> {
  const clock = testClock(T0);
  const { runner, events } = runnerOn(store(), clock);
  const calls: string[] = [];
  const graph = foodDelivery(calls);
  const first = await runner.run(graph, { values: { orderId: "42" }, workflowId: "order-42" });
  expect(first.status).toBe("paused");
  expect(first.pause).toEqual({
    reason: "event",
    nodeName: "await-pickup",
    value: { orderNumber: "N-42" },
    responseKey: "pickup",
    wakeAt: new Date(T0 + MINUTE),
    waitingFor: { event: "order.pickedUp", match: { orderNumber: "N-42" } },
    visit: 3,
  });
  await clock.advance(30_000);
  const sent = await runner.send("order.pickedUp", { orderNumber: "N-42", driver: "Ada" });
  expect(sent).toEqual({ delivered: [{ workflowId: "order-42", status: "paused" }], skipped: [] });
  const settling = await runner.run(graph, { workflowId: "order-42" });
  expect(settling.pause).toMatchObject({ reason: "sleep", nodeName: "settle", wakeAt: new Date(T0 + 90_000) });
  expect(settling.get("notPickedUp")).toBe(false);
  // The pickup's timeout went with the answer: only the settle's wake-up is due.
  await clock.advance(MINUTE - 1);
  expect(fired(events)).toEqual([]);
  const pausedRuns = events.filter((e) => e.type === "RunEnd" && e.status === "paused").length;
  await clock.advance(1);
  // The wake's run ends paused again (at the delivery wait): one more paused RunEnd than before.
  await until(() => fired(events).length > 0 && ended(events, "paused", pausedRuns + 1));
  expect(fired(events)).toHaveLength(1);
  expect(fired(events)[0]).toMatchObject({
    workflowId: "order-42",
    dueAt: T0 + 90_000,
    firedAt: T0 + 90_000,
    lateMs: 0,
  });
  const waiting = await runner.run(graph, { workflowId: "order-42" });
  expect(waiting.pause).toMatchObject({ reason: "event", nodeName: "await-delivery", responseKey: "delivery" });
  expect(waiting.pause?.wakeAt).toBeUndefined();
  expect(waiting.get("settledAt")).toBe(T0 + 90_000);
  const done = await runner.send("order.delivered", { orderNumber: "N-42", at: "12:05" });
  expect(done).toEqual({ delivered: [{ workflowId: "order-42", status: "completed" }], skipped: [] });
  const result = await runner.run(graph, { workflowId: "order-42" });
  expect(result.status).toBe("completed");
  expect(result.get("outcome")).toBe("delivered by Ada at 12:05");
  expect(calls).toEqual(["place:42", "complete:Ada@12:05"]);
  await runner.close();
}

/** Food delivery, nobody picks up within 1 minute: the timeout refunds, once; a late pickup reaches nobody. */
async function foodRefundedOnTimeout(store: NewCheckpointer): Promise<void> {
  const clock = testClock(T0);
  const { runner, events } = runnerOn(store(), clock);
  const calls: string[] = [];
  const graph = foodDelivery(calls);
  await runner.run(graph, { values: { orderId: "7" }, workflowId: "order-7" });
  await clock.advance(MINUTE);
  await until(() => ended(events, "completed"));
  const result = await runner.run(graph, { workflowId: "order-7" });
  expect(result.status).toBe("completed");
  expect(result.values).toMatchObject({ pickup: null, notPickedUp: true, refunded: true });
  expect(calls).toEqual(["place:7", "refund:N-7"]);
  expect(await runner.send("order.pickedUp", { orderNumber: "N-7", driver: "late" })).toEqual({
    delivered: [],
    skipped: [],
  });
  await clock.advance(10 * MINUTE);
  expect(fired(events)).toHaveLength(1);
  expect(fired(events)[0]).toMatchObject({ workflowId: "order-7", dueAt: T0 + MINUTE, lateMs: 0 });
  await runner.close();
}

/** Support flow: a reply within 4h closes its ticket only; the other ticket still waits with its deadline. */
async function supportReplied(store: NewCheckpointer): Promise<void> {
  const clock = testClock(T0);
  const { runner } = runnerOn(store(), clock);
  const calls: string[] = [];
  const graph = supportFlow(calls);
  await runner.run(graph, { values: { ticketId: "T-1", question: "wifi" }, workflowId: "ticket-1" });
  await runner.run(graph, { values: { ticketId: "T-2", question: "vpn" }, workflowId: "ticket-2" });
  await clock.advance(3 * HOUR);
  const sent = await runner.send("ticket.replied", { ticketId: "T-1", text: "works now" });
  expect(sent).toEqual({ delivered: [{ workflowId: "ticket-1", status: "completed" }], skipped: [] });
  const one = await runner.run(graph, { workflowId: "ticket-1" });
  expect(one.values).toMatchObject({ closed: "closed T-1: works now", noReply: false });
  const two = await runner.run(graph, { workflowId: "ticket-2" });
  expect(two.status).toBe("paused");
  expect(two.pause?.wakeAt).toEqual(new Date(T0 + 4 * HOUR));
  expect(calls).toEqual(["draft:wifi", "notify:T-1:31", "draft:vpn", "notify:T-2:30", "close:T-1:works now"]);
  await runner.close();
}

/**
 * An event sent before anybody waits, kept with `{ buffer }`: the first matching `waitFor` reached within the time
 * takes it at once, and only once; a kept event that expired is not used; bad `buffer` options are refused.
 */
async function bufferedEventUsedOnce(store: NewCheckpointer): Promise<void> {
  const clock = testClock(T0);
  const calls: string[] = [];
  const graph = supportFlow(calls);
  const { runner, events } = runnerOn(store(), clock, { graphs: [graph] });
  const sent = await runner.send("ticket.replied", { ticketId: "T-1", text: "already fixed" }, { buffer: "10m" });
  expect(sent).toEqual({ delivered: [], skipped: [], bufferedUntil: new Date(T0 + 10 * MINUTE) });
  const first = await runner.run(graph, { values: { ticketId: "T-1", question: "wifi" }, workflowId: "ticket-1" });
  expect(first.status).toBe("paused"); // it reached the waitFor; the kept event resumes it right after
  await until(() => ended(events, "completed"));
  const one = await runner.run(graph, { workflowId: "ticket-1" });
  expect(one.values).toMatchObject({ closed: "closed T-1: already fixed", noReply: false });
  // Used up: the next ticket with the same id waits.
  await runner.run(graph, { values: { ticketId: "T-1", question: "vpn" }, workflowId: "ticket-1b" });
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect((await runner.run(graph, { workflowId: "ticket-1b" })).status).toBe("paused");
  // Expired: kept for a minute, and nobody waited before two minutes had passed.
  await runner.send("ticket.replied", { ticketId: "T-2", text: "too late" }, { buffer: "1m" });
  await clock.advance(2 * MINUTE);
  await runner.run(graph, { values: { ticketId: "T-2", question: "dns" }, workflowId: "ticket-2" });
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect((await runner.run(graph, { workflowId: "ticket-2" })).status).toBe("paused");
  expect(calls.filter((c) => c.startsWith("close:"))).toEqual(["close:T-1:already fixed"]);
  for (const [options, message] of [
    [{ buffer: "soon" }, 'is "soon", which is not a duration'],
    [{ buffer: -1 }, "buffer of runner.send"],
    [{ keep: "1m" }, "the options must be { buffer }"],
  ] as const) {
    const refused = await runner.send("ticket.replied", { ticketId: "T-3" }, options as never).catch((e: unknown) => e);
    expect(refused).toMatchObject({ _tag: "InvalidOptionError" });
    expect((refused as Error).message).toContain(message);
  }
  await runner.close();
}

/** Support flow: no reply in 4h escalates (the 4h pass in milliseconds). */
async function supportEscalated(store: NewCheckpointer): Promise<void> {
  const clock = testClock(T0);
  const { runner, events } = runnerOn(store(), clock);
  const calls: string[] = [];
  const graph = supportFlow(calls);
  await runner.run(graph, { values: { ticketId: "T-9", question: "printer" }, workflowId: "ticket-9" });
  await clock.advance(4 * HOUR - 1);
  expect(fired(events)).toEqual([]);
  await clock.advance(1);
  await until(() => ended(events, "completed"));
  const result = await runner.run(graph, { workflowId: "ticket-9" });
  expect(result.values).toMatchObject({ reply: null, noReply: true, escalated: "escalated T-9" });
  expect(calls).toEqual(["draft:printer", "notify:T-9:34", "escalate:T-9"]);
  await runner.close();
}

/** nap (sleep 1h) → after: the smallest graph with a due time; `calls` counts the runs of `after`. */
function napGraph(calls: string[]): Graph {
  const nap = sleep({ name: "nap", input: "job", duration: "1h", output: "napped" });
  const after = node({ name: "after", output: "done" }, async ({ job, napped }: { job: string; napped: number }) => {
    calls.push(`after:${job}:${napped}`);
    return `${job} done`;
  });
  return new Graph([nap, after], { name: "nap" });
}

/** Two runners (two schedulers) on one store, one due time: it fires once; a second wake finds it woken. */
async function twoRunnersFireOnce(store: NewCheckpointer): Promise<void> {
  const shared = store();
  const clock = testClock(T0);
  const calls: string[] = [];
  const graph = napGraph(calls);
  const a = runnerOn(shared, clock, { closeCheckpointer: false, owner: "runner-a" });
  const b = runnerOn(shared, clock, { closeCheckpointer: false, owner: "runner-b", graphs: [graph] });
  await a.runner.run(graph, { values: { job: "j1" }, workflowId: "nap-1" });
  await clock.advance(HOUR);
  await until(() => calls.length > 0 && [a, b].some((r) => ended(r.events, "completed")));
  await clock.advance(HOUR); // a second look by both schedulers finds nothing due
  expect(calls).toEqual([`after:j1:${T0 + HOUR}`]);
  expect([...fired(a.events), ...fired(b.events)]).toHaveLength(1);
  expect(await a.runner.wake("nap-1")).toEqual({ woken: false, workflowId: "nap-1", reason: "not-due" });
  // Two wakes of one due time, at once, from both runners: one resumes it, the other writes nothing.
  await a.runner.run(graph, { values: { job: "j2" }, workflowId: "nap-2" });
  const due = new Date(clock.now() + HOUR);
  await a.runner.close();
  await b.runner.close();
  await clock.advance(HOUR);
  const c = runnerOn(shared, clock, { closeCheckpointer: false, owner: "runner-c", scheduler: false, graphs: [graph] });
  const d = runnerOn(shared, clock, { closeCheckpointer: false, owner: "runner-d", scheduler: false, graphs: [graph] });
  const results = await Promise.all([c.runner.wake("nap-2"), d.runner.wake("nap-2")]);
  const winners = results.filter((r) => r.woken);
  expect(winners).toHaveLength(1);
  expect(winners[0]).toMatchObject({ woken: true, workflowId: "nap-2", dueAt: due, lateMs: 0 });
  const loser = results.find((r) => !r.woken)!;
  expect(["busy", "already-woken", "not-due"]).toContain(loser.woken ? "" : loser.reason);
  expect(calls).toEqual([`after:j1:${T0 + HOUR}`, `after:j2:${due.getTime()}`]);
  await c.runner.close();
  await d.runner.close();
  await shared.close();
}

/**
 * A human answer and the timeout racing at the deadline, from two runners: exactly one wins; the loser is told
 * (a `WorkflowConflictError` or `UnexpectedAnswerError` for the answer; not woken for the timer), and the step
 * after the pause runs once.
 */
async function answerRacesTimeout(store: NewCheckpointer): Promise<void> {
  const shared = store();
  const clock = testClock(T0);
  const calls: string[] = [];
  const ask = interrupt({
    name: "approve",
    input: "draft",
    response: "decision",
    timeout: "2h",
    onTimeout: "auto-rejected",
    timedOut: "expired",
  });
  const publish = node(
    { name: "publish", output: "published" },
    async ({ decision, expired }: { decision: string; expired: boolean }) => {
      calls.push(`publish:${decision}:${expired}`);
      return decision;
    },
  );
  // The workflow is still paused after the race (a later sleep), so a losing answer meets a pause it is not for.
  const cool = sleep({ name: "cool", input: "published", duration: "1h", output: "cooled" });
  const graph = new Graph([ask, publish, cool], { name: "approval" });
  const human = runnerOn(shared, clock, { closeCheckpointer: false, owner: "human", scheduler: false });
  const timer = runnerOn(shared, clock, {
    closeCheckpointer: false,
    owner: "timer",
    scheduler: false,
    graphs: [graph],
  });
  const first = await human.runner.run(graph, { values: { draft: "post" }, workflowId: "post-1" });
  expect(first.pause).toMatchObject({ reason: "human_input", wakeAt: new Date(T0 + 2 * HOUR) });
  await clock.advance(2 * HOUR);
  const [answer, wake] = await Promise.allSettled([
    human.runner.run(graph, { workflowId: "post-1", values: { decision: "approved" } }),
    timer.runner.wake("post-1"),
  ]);
  expect(wake.status).toBe("fulfilled");
  const woken = wake.status === "fulfilled" && wake.value.woken;
  if (woken) {
    expect(answer.status).toBe("rejected");
    const tag = answer.status === "rejected" ? (answer.reason as { _tag: string })._tag : "";
    expect(["WorkflowConflictError", "UnexpectedAnswerError"]).toContain(tag);
    expect(calls).toEqual(["publish:auto-rejected:true"]);
  } else {
    expect(answer.status).toBe("fulfilled");
    expect(calls).toEqual(["publish:approved:false"]);
  }
  const result = await human.runner.run(graph, { workflowId: "post-1" });
  expect(result.pause).toMatchObject({ reason: "sleep", nodeName: "cool" });
  const steps = await shared.getSteps("post-1");
  expect(steps.filter((s) => s.nodeName === "approve" && s.status === "completed")).toHaveLength(1);
  expect(steps.filter((s) => s.nodeName === "publish")).toHaveLength(1);
  await human.runner.close();
  await timer.runner.close();
  await shared.close();
}

/** A runner that was down while a sleep came due catches up when it starts, and reports how late it is. */
async function catchUpReportsLateness(store: NewCheckpointer): Promise<void> {
  const shared = store();
  const clock = testClock(T0);
  const calls: string[] = [];
  const graph = napGraph(calls);
  const before = runnerOn(shared, clock, { closeCheckpointer: false });
  await before.runner.run(graph, { values: { job: "j" }, workflowId: "nap-late" });
  await before.runner.close();
  await clock.advance(3 * HOUR); // nobody is up when it comes due
  expect(calls).toEqual([]);
  const after = runnerOn(shared, clock, { closeCheckpointer: false, graphs: [graph] });
  await until(() => ended(after.events, "completed"));
  expect(fired(after.events)).toEqual([
    expect.objectContaining({ workflowId: "nap-late", dueAt: T0 + HOUR, firedAt: T0 + 3 * HOUR, lateMs: 2 * HOUR }),
  ]);
  expect(calls).toEqual([`after:j:${T0 + HOUR}`]);
  await after.runner.close();
  await shared.close();
}

/** `delay` and `startAt`: the workflow is stored paused with its inputs, no node runs until it is due. */
async function delayedStart(store: NewCheckpointer): Promise<void> {
  const shared = store();
  const clock = testClock(T0);
  const calls: string[] = [];
  const work = node({ name: "work", output: "result" }, async ({ task }: { task: string }) => {
    calls.push(`work:${task}`);
    return task.toUpperCase();
  });
  const graph = new Graph([work], { name: "delayed" });
  const { runner, events } = runnerOn(shared, clock, { closeCheckpointer: false });
  const later = await runner.run(graph, { values: { task: "a" }, workflowId: "later", delay: "2h" });
  expect({ status: later.status, pause: later.pause, values: later.values }).toEqual({
    status: "paused",
    pause: undefined,
    values: {},
  });
  const handle = runner.start(graph, { values: { task: "b" }, workflowId: "at", startAt: new Date(T0 + 3 * HOUR) });
  expect((await handle.result).status).toBe("paused");
  const stored = await shared.getWorkflow("later");
  expect({ status: stored?.status, wakeAt: stored?.wakeAt }).toEqual({
    status: "paused",
    wakeAt: new Date(T0 + 2 * HOUR),
  });
  expect(calls).toEqual([]);
  await clock.advance(2 * HOUR);
  await until(() => calls.length === 1 && ended(events, "completed"));
  expect(calls).toEqual(["work:a"]);
  await clock.advance(HOUR);
  await until(() => calls.length === 2 && ended(events, "completed", 2));
  expect(calls).toEqual(["work:a", "work:b"]);
  expect((await runner.run(graph, { workflowId: "at" })).get("result")).toBe("B");
  expect(fired(events).map((e) => e.type === "TimerFired" && [e.workflowId, e.lateMs])).toEqual([
    ["later", 0],
    ["at", 0],
  ]);
  await runner.close();
  await shared.close();
}

/**
 * Registers every scenario above on one checkpointer: `where` names it in the titles, `shared` is what two runners
 * of one scenario share ("store", "file", "schema", "prefix").
 */
export function describeTimeScenarios(where: string, store: NewCheckpointer, shared: string): void {
  describe(`durable time on ${where} (testClock)`, () => {
    it("food delivery: picked up in time, settles 1 minute, delivered", () => foodDeliveredOnTime(store));
    it("food delivery: not picked up within 1 minute → refund, once", () => foodRefundedOnTimeout(store));
    it("support flow: a reply within 4h closes its own ticket only", () => supportReplied(store));
    it("support flow: no reply in 4h escalates", () => supportEscalated(store));
    it("an event kept with { buffer } goes to the first matching waitFor, once; an expired one is dropped", () =>
      bufferedEventUsedOnce(store));
    it(`two runners on one ${shared}: a due time fires once`, () => twoRunnersFireOnce(store));
    it("a human answer racing the timeout: one winner, the step after runs once", () => answerRacesTimeout(store));
    it("catch-up: a runner started after the due time resumes it and says how late", () =>
      catchUpReportsLateness(store));
    it("delayed start (delay, startAt): stored paused, runs when due", () => delayedStart(store));
  });
}
