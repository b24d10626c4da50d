// Due times on the queue: a workflow a worker leaves sleeping gets a BullMQ delayed job that wakes it on whichever
// worker takes it, once, on time — also when the worker that paused it was SIGKILLed. RemoteRunner.send resumes the
// workflows waiting for an event.
import { describe, expect, it } from "vitest";
import type { RemoteRunner } from "../src/index.js";
import { foodDelivery, napper, replies } from "./fixtures/graphs.mjs";
import { sharedPool } from "./fixtures/pool.js";
import { logFile, readLog, type WorkerProcess } from "./fixtures/processes.js";

// The SQL stores keep due times (wakeAt).
const shared = sharedPool("postgres");
const { startWorker } = shared;
let workers: WorkerProcess[] = [];

const sleepMs = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitForStatus(workflowId: string, status: string, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end && (await shared.env.checkpointer.getWorkflow(workflowId))?.status !== status)
    await sleepMs(100);
}

describe("sleeping workflows on 3 workers", () => {
  it("each resumes once, on time, on any worker; SIGKILL of the worker that paused one does not lose it", async () => {
    const log = logFile("naps");
    workers = await Promise.all([1, 2, 3].map(() => startWorker({ ...shared.env.workerEnv, LOG_FILE: log })));
    const ids = Array.from({ length: 6 }, (_, i) => `nap-${i}`);
    const paused = await Promise.all(
      ids.map((id, i) => shared.remote.run(napper, { values: { tag: `t${i}` }, workflowId: id })),
    );
    expect(paused.map((r) => r.status)).toEqual(Array(6).fill("paused"));
    const dues = await Promise.all(
      ids.map(async (id) => (await shared.env.checkpointer.getWorkflow(id))?.wakeAt?.getTime()),
    );
    expect(dues.every((d) => typeof d === "number")).toBe(true);
    // The worker that ran nap-0 up to its sleep dies before the wake-up.
    const pausedBy = readLog(log).find((l) => l.node === "beforeNap" && l.tag === "t0")!.pid;
    const doomed = workers.find((w) => w.pid === pausedBy)!;
    await doomed.kill("SIGKILL");
    for (const id of ids) await waitForStatus(id, "completed", 20_000);
    const lines = readLog(log);
    for (let i = 0; i < 6; i++) {
      expect(lines.filter((l) => l.node === "beforeNap" && l.tag === `t${i}`)).toHaveLength(1);
      expect(lines.filter((l) => l.node === "afterNap" && l.tag === `t${i}`)).toHaveLength(1);
      expect((await shared.env.checkpointer.getWorkflow(`nap-${i}`))?.status).toBe("completed");
    }
    expect(lines.filter((l) => l.node === "afterNap").every((l) => l.pid !== pausedBy)).toBe(true);
    const raw = (await import("node:fs")).readFileSync(log, "utf8").split("\n");
    const late = raw
      .filter((l) => l.startsWith("afterNap "))
      .map((l) => Number(l.split(" ")[3]))
      .sort((a, b) => a - b);
    expect(late.every((ms) => ms >= 0)).toBe(true);
    await Promise.all(workers.map((w) => w.close()));
    workers = [];
    console.log(`BullMQ wake-up lateness (ms, node start − due), n=${late.length}: ${late.join(", ")}`);
  }, 60_000);

  it("a worker SIGKILLed while it runs the woken workflow: another worker takes the wake-up job again and finishes it", async () => {
    const log = logFile("nap-crash");
    const lease = { LEASE_TTL_MS: "1500", LOCK_MS: "1500" };
    const doomed = await startWorker({ ...shared.env.workerEnv, ...lease, LOG_FILE: log, CRASH_AT: "afterNap" });
    workers = [doomed];
    const paused = await shared.remote.run(napper, { values: { tag: "k" }, workflowId: "nap-crash" });
    expect(paused.status).toBe("paused");
    await doomed.next((m) => m.type === "node-start" && m.node === "afterNap" && m.tag === "k");
    const rescuer = await startWorker({ ...shared.env.workerEnv, ...lease, LOG_FILE: log });
    workers = [rescuer];
    await doomed.kill("SIGKILL");
    await waitForStatus("nap-crash", "completed", 30_000);
    await rescuer.close();
    workers = [];
    expect((await shared.env.checkpointer.getWorkflow("nap-crash"))?.status).toBe("completed");
    const lines = readLog(log);
    expect(lines.filter((l) => l.node === "beforeNap").map((l) => l.pid)).toEqual([doomed.pid]);
    expect(lines.filter((l) => l.node === "afterNap").map((l) => l.pid)).toEqual([rescuer.pid]);
  }, 60_000);
});

describe("RemoteRunner.send", () => {
  it("resumes the workflow waiting for the event with a matching value, once; nobody waits → nothing delivered", async () => {
    const log = logFile("send");
    workers.push(await startWorker({ ...shared.env.workerEnv, LOG_FILE: log }));
    const waiting = await shared.remote.run(replies, {
      values: { ticketId: "T-1", tag: "r1" },
      workflowId: "ticket-1",
    });
    const other = await shared.remote.run(replies, { values: { ticketId: "T-2", tag: "r2" }, workflowId: "ticket-2" });
    expect([waiting.status, other.status]).toEqual(["paused", "paused"]);
    const sent = await shared.remote.send("ticket.replied", { ticketId: "T-1", text: "fixed, thanks" });
    expect(sent).toEqual({ delivered: [{ workflowId: "ticket-1", status: "completed" }], skipped: [] });
    expect(await shared.remote.send("ticket.replied", { ticketId: "T-1", text: "again" })).toEqual({
      delivered: [],
      skipped: [],
    });
    expect(await shared.remote.send("ticket.closed", { ticketId: "T-2" })).toEqual({ delivered: [], skipped: [] });
    expect((await shared.env.checkpointer.getWorkflow("ticket-1"))?.status).toBe("completed");
    expect((await shared.env.checkpointer.getWorkflow("ticket-2"))?.status).toBe("paused");
    expect(
      readLog(log)
        .filter((l) => l.node === "close")
        .map((l) => l.tag),
    ).toEqual(["r1"]);
  }, 60_000);

  it("4 sends of one event at once, on 2 workers, 3 trials: one delivery each, the others skipped already-resumed", async () => {
    // Only this test's workers take its jobs (their log is the one counted).
    await Promise.all(workers.map((w) => w.close()));
    workers = [];
    const log = logFile("send-race");
    workers.push(await startWorker({ ...shared.env.workerEnv, LOG_FILE: log }));
    workers.push(await startWorker({ ...shared.env.workerEnv, LOG_FILE: log }));
    for (let trial = 0; trial < 3; trial++) {
      const id = `race-ticket-${trial}`;
      const paused = await shared.remote.run(replies, { values: { ticketId: id, tag: id }, workflowId: id });
      expect(paused.status).toBe("paused");
      const sent = await Promise.all(
        [0, 1, 2, 3].map((i) => shared.remote.send("ticket.replied", { ticketId: id, text: `p${i}` })),
      );
      const delivered = sent.flatMap((r) => r.delivered);
      expect(delivered, `trial ${trial}: ${JSON.stringify(sent)}`).toEqual([{ workflowId: id, status: "completed" }]);
      for (const s of sent.flatMap((r) => r.skipped)) expect(s).toEqual({ workflowId: id, reason: "already-resumed" });
      expect(readLog(log).filter((l) => l.node === "close" && l.tag === id)).toHaveLength(1);
    }
  }, 90_000);

  it("an answer naming its pause is refused by RemoteRunner (InvalidOptionError): the workers could not check it", async () => {
    const refused = await shared.remote
      .run(replies, {
        values: { ticketId: "T-9", tag: "r9" },
        workflowId: "ticket-9",
        answering: { nodeName: "await-reply", visit: 2 },
      })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ _tag: "InvalidOptionError", option: "answering" });
    expect((refused as Error).message).toContain("option 'answering' is not carried to the workers");
    expect(await shared.env.checkpointer.getWorkflow("ticket-9")).toBeUndefined();
  }, 30_000);
});

describe("the food-delivery sample on 3 workers", () => {
  it("picked up in time → travels (a sleep) → delivered; never picked up → refunded when the wait times out; each step once", async () => {
    const log = logFile("food");
    // Workers of the earlier tests log elsewhere: only this test's pool may take these jobs.
    await shared.killWorkers();
    const pool = await Promise.all([1, 2, 3].map(() => startWorker({ ...shared.env.workerEnv, LOG_FILE: log })));
    workers.push(...pool);
    const first = await shared.remote.run(foodDelivery, { values: { orderId: "o-1" }, workflowId: "order-1" });
    const second = await shared.remote.run(foodDelivery, { values: { orderId: "o-2" }, workflowId: "order-2" });
    expect([first.status, second.status]).toEqual(["paused", "paused"]);
    expect(first.pause?.wakeAt).toBeInstanceOf(Date); // the pickup wait has a deadline
    // The driver picks order 1 up in time: it travels (a durable sleep on whichever worker), then waits for delivery.
    expect(await shared.remote.send("order.pickedUp", { orderId: "o-1", driver: "d-7" })).toMatchObject({
      delivered: [{ workflowId: "order-1", status: "paused" }],
    });
    await waitForStatus("order-2", "completed", 30_000); // order 2's pickup wait timed out: refunded
    // Order 1 wakes from its sleep and waits for the delivery event: deliver it once it waits.
    const end = Date.now() + 30_000;
    let delivered: Awaited<ReturnType<RemoteRunner["send"]>> | undefined;
    while (Date.now() < end) {
      delivered = await shared.remote.send("order.delivered", { orderId: "o-1", signedBy: "Ada" });
      if (delivered.delivered.length > 0) break;
      await sleepMs(200);
    }
    expect(delivered?.delivered).toEqual([{ workflowId: "order-1", status: "completed" }]);
    expect(await shared.env.checkpointer.getState("order-1")).toMatchObject({ delivered: "Ada", notPickedUp: false });
    expect(await shared.env.checkpointer.getState("order-2")).toMatchObject({ refunded: true, notPickedUp: true });
    const byNode = (name: string) =>
      readLog(log)
        .filter((l) => l.node === name)
        .map((l) => l.tag)
        .sort();
    expect(byNode("charge")).toEqual(["o-1", "o-2"]);
    expect(byNode("refund")).toEqual(["o-2"]);
    expect(byNode("deliver")).toEqual(["o-1"]);
  }, 90_000);
});
