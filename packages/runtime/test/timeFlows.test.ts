import { MemoryCheckpointer } from "@graph/checkpoint";
import { describe, expect, it } from "vitest";
import { type GraphEvent, Runner, testClock } from "../src/index.js";
import { foodDelivery, supportFlow } from "./support/timeGraphs.js";

const T0 = Date.parse("2026-03-01T12:00:00Z");
const MINUTE = 60_000;

function setup() {
  const clock = testClock(T0);
  const events: GraphEvent[] = [];
  const runner = new Runner({
    checkpointer: new MemoryCheckpointer(),
    clock,
    eventProcessors: [{ onEvent: (e) => void events.push(e) }],
  });
  return { clock, runner, events };
}

describe("food delivery (Temporal sample) on the memory checkpointer", () => {
  it("picked up in time: settles 1 minute, then waits for delivered", async () => {
    const { clock, runner, events } = setup();
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
    });
    await clock.advance(30_000);
    const sent = await runner.send("order.pickedUp", { orderNumber: "N-42", driver: "Ada" });
    expect(sent).toEqual({ delivered: [{ workflowId: "order-42", status: "paused" }], skipped: [] });
    const settling = await runner.run(graph, { workflowId: "order-42" });
    expect(settling.pause).toMatchObject({ reason: "sleep", nodeName: "settle", wakeAt: new Date(T0 + 30_000 + MINUTE) });
    expect(settling.get("notPickedUp")).toBe(false);
    // The pickup's timeout is gone: only the settle's wake-up is due.
    await clock.advance(MINUTE - 1);
    expect(events.filter((e) => e.type === "TimerFired")).toEqual([]);
    await clock.advance(1);
    await until(() => events.some((e) => e.type === "TimerFired"));
    const fired = events.filter((e) => e.type === "TimerFired");
    expect(fired).toHaveLength(1);
    expect(fired[0]).toMatchObject({ workflowId: "order-42", dueAt: T0 + 90_000, firedAt: T0 + 90_000, lateMs: 0 });
    const waiting = await runner.run(graph, { workflowId: "order-42" });
    expect(waiting.pause).toMatchObject({ reason: "event", nodeName: "await-delivery", responseKey: "delivery" });
    expect(waiting.pause?.wakeAt).toBeUndefined();
    expect(waiting.get("settledAt")).toBe(T0 + 90_000);
    const done = await runner.send("order.delivered", { orderNumber: "N-42", at: "12:05" });
    expect(done.delivered).toEqual([{ workflowId: "order-42", status: "completed" }]);
    const result = await runner.run(graph, { workflowId: "order-42" });
    expect(result.status).toBe("completed");
    expect(result.get("outcome")).toBe("delivered by Ada at 12:05");
    expect(calls).toEqual(["place:42", "complete:Ada@12:05"]);
    await runner.close();
  });

  it("not picked up within 1 minute: refunds, exactly once", async () => {
    const { clock, runner, events } = setup();
    const calls: string[] = [];
    const graph = foodDelivery(calls);
    await runner.run(graph, { values: { orderId: "7" }, workflowId: "order-7" });
    await clock.advance(MINUTE);
    await until(() => events.some((e) => e.type === "RunEnd" && e.status === "completed"));
    const result = await runner.run(graph, { workflowId: "order-7" });
    expect(result.status).toBe("completed");
    expect(result.values).toMatchObject({ pickup: null, notPickedUp: true, refunded: true });
    expect(calls).toEqual(["place:7", "refund:N-7"]);
    // A pickup after the refund finds nobody waiting.
    expect(await runner.send("order.pickedUp", { orderNumber: "N-7", driver: "late" })).toEqual({
      delivered: [],
      skipped: [],
    });
    await clock.advance(10 * MINUTE);
    expect(events.filter((e) => e.type === "TimerFired")).toHaveLength(1);
    await runner.close();
  });
});

describe("support flow (Inngest AgentKit) on the memory checkpointer", () => {
  it("a reply within 4h closes the ticket; the event reaches only the matching ticket", async () => {
    const { clock, runner } = setup();
    const calls: string[] = [];
    const graph = supportFlow(calls);
    await runner.run(graph, { values: { ticketId: "T-1", question: "wifi" }, workflowId: "ticket-1" });
    await runner.run(graph, { values: { ticketId: "T-2", question: "vpn" }, workflowId: "ticket-2" });
    await clock.advance(3 * 3_600_000);
    const sent = await runner.send("ticket.replied", { ticketId: "T-1", text: "works now" });
    expect(sent.delivered).toEqual([{ workflowId: "ticket-1", status: "completed" }]);
    const one = await runner.run(graph, { workflowId: "ticket-1" });
    expect(one.values).toMatchObject({ closed: "closed T-1: works now", noReply: false });
    const two = await runner.run(graph, { workflowId: "ticket-2" });
    expect(two.status).toBe("paused");
    expect(two.pause?.wakeAt).toEqual(new Date(T0 + 4 * 3_600_000));
    await runner.close();
  });

  it("no reply in 4h escalates", async () => {
    const { clock, runner, events } = setup();
    const calls: string[] = [];
    const graph = supportFlow(calls);
    await runner.run(graph, { values: { ticketId: "T-9", question: "printer" }, workflowId: "ticket-9" });
    await clock.advance(4 * 3_600_000);
    await until(() => events.some((e) => e.type === "RunEnd" && e.status === "completed"));
    const result = await runner.run(graph, { workflowId: "ticket-9" });
    expect(result.values).toMatchObject({ reply: null, noReply: true, escalated: "escalated T-9" });
    expect(calls).toEqual(["draft:printer", "notify:T-9:34", "escalate:T-9"]);
    await runner.close();
  });
});

/** Waits (real time, a few event-loop turns at a time) for work a fired timer started. */
async function until(check: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
