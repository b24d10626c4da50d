/**
 * Storage conformance, area "stops": durable stop requests (`requestStop`, `getStopRequest`,
 * `WorkflowRecord.stopRequested`, cleared by `updateWorkflow(id, { stopRequested: null })`).
 */
import { describe, expect, it } from "vitest";
import { assertCheckpointError, assertConflictError, ids, rejection, sleep, step } from "../fixtures.js";
import type { StorageContext } from "./helpers.js";
import { create } from "./helpers.js";

/** Registers the "stops" tests. */
export function describeStops({ run }: StorageContext): void {
  describe("durable stop requests", () => {
    it("a workflow with a live lease gets the flag; the holder sees it in its renewal and getStopRequest", async () => {
      await run(async (checkpointer) => {
        const id = ids("stop-live")();
        await create(checkpointer, id);
        const lease = await checkpointer.claimWorkflow(id, { owner: "a", ttlMs: 10_000 });
        expect(await checkpointer.getStopRequest(id)).toBeUndefined();
        const before = Date.now();
        const record = await checkpointer.requestStop(id, { info: { reason: "deploy", by: ["ops", 7] } });
        expect(record?.status).toBe("running");
        expect(record?.lease).toStrictEqual(lease);
        expect(record?.stopRequested?.info).toStrictEqual({ reason: "deploy", by: ["ops", 7] });
        const at = record?.stopRequested?.requestedAt.getTime() ?? 0;
        expect(at).toBeGreaterThanOrEqual(before - 1000);
        expect(at).toBeLessThanOrEqual(Date.now() + 1000);
        expect(await checkpointer.getStopRequest(id)).toStrictEqual(record?.stopRequested);
        expect((await checkpointer.getWorkflow(id))?.stopRequested).toStrictEqual(record?.stopRequested);
        const renewed = await checkpointer.renewWorkflow(id, lease, { ttlMs: 10_000 });
        expect(renewed.stopRequested).toStrictEqual(record?.stopRequested);
        // The holder keeps writing until it stops (the flag is not a fence).
        await checkpointer.saveStep(step(id, { superstep: 0, nodeName: "n", index: 0, values: { v: 1 } }), {
          epoch: lease.epoch,
        });
        // A second request keeps the first one.
        await sleep(5);
        const again = await checkpointer.requestStop(id, { info: "second" });
        expect(again?.stopRequested).toStrictEqual(record?.stopRequested);
        // The holder ends the run as stopped and clears the flag.
        const ended = await checkpointer.updateWorkflow(
          id,
          { status: "stopped", stopRequested: null },
          {
            epoch: lease.epoch,
          },
        );
        expect(ended.status).toBe("stopped");
        expect(ended.stopRequested).toBeUndefined();
        expect(await checkpointer.getStopRequest(id)).toBeUndefined();
        expect((await checkpointer.renewWorkflow(id, lease, { ttlMs: 10_000 })).stopRequested).toBeUndefined();
      });
    });

    it("without info the request has only requestedAt", async () => {
      await run(async (checkpointer) => {
        const id = ids("stop-plain")();
        await create(checkpointer, id);
        await checkpointer.claimWorkflow(id, { owner: "a", ttlMs: 10_000 });
        const record = await checkpointer.requestStop(id);
        expect(Object.keys(record?.stopRequested ?? {})).toEqual(["requestedAt"]);
      });
    });

    it("a paused workflow, or a running one whose holder died, stops at once: nothing can write afterwards", async () => {
      await run(async (checkpointer) => {
        const paused = ids("stop-paused")();
        await create(checkpointer, paused);
        const held = await checkpointer.claimWorkflow(paused, { owner: "a", ttlMs: 10_000 });
        await checkpointer.updateWorkflow(paused, { status: "paused" }, { epoch: held.epoch });
        await checkpointer.releaseWorkflow(paused, held);
        const stopped = await checkpointer.requestStop(paused, { info: "cancel" });
        expect(stopped?.status).toBe("stopped");
        expect(stopped?.lease).toBeUndefined();
        expect(stopped?.stopRequested?.info).toBe("cancel");

        const dead = ids("stop-dead")();
        await create(checkpointer, dead);
        const zombie = await checkpointer.claimWorkflow(dead, { owner: "z", ttlMs: 30 });
        await sleep(60);
        const ended = await checkpointer.requestStop(dead);
        expect(ended?.status).toBe("stopped");
        expect(ended?.lease).toBeUndefined();
        // The former holder is fenced out and cannot renew: its lease ended with the stop.
        const write = await rejection(
          checkpointer.saveStep(step(dead, { superstep: 0, nodeName: "n", index: 0 }), { epoch: zombie.epoch }),
        );
        assertConflictError(write);
        expect(write.reason).toBe("stale-fence");
        const renewal = await rejection(checkpointer.renewWorkflow(dead, zombie, { ttlMs: 10_000 }));
        assertConflictError(renewal);
        expect(renewal.reason).toBe("lease-lost");
        expect(await checkpointer.getSteps(dead)).toEqual([]);
        expect((await checkpointer.getWorkflow(dead))?.status).toBe("stopped");

        // Created but never claimed (queued): stops without running.
        const queued = ids("stop-queued")();
        await create(checkpointer, queued);
        expect((await checkpointer.requestStop(queued))?.status).toBe("stopped");
        // A resume claims it again (a higher epoch) and clears the old request in its first update.
        const resumed = await checkpointer.claimWorkflow(queued, { owner: "r", ttlMs: 10_000 });
        const running = await checkpointer.updateWorkflow(
          queued,
          { status: "running", stopRequested: null },
          {
            epoch: resumed.epoch,
          },
        );
        expect(running.stopRequested).toBeUndefined();
        expect(running.status).toBe("running");
      });
    });

    it("completed, failed and stopped workflows are left alone; unknown ids give undefined", async () => {
      await run(async (checkpointer) => {
        for (const status of ["completed", "failed", "stopped"] as const) {
          const id = ids(`stop-${status}`)();
          await create(checkpointer, id);
          const lease = await checkpointer.claimWorkflow(id, { owner: "a", ttlMs: 10_000 });
          await checkpointer.updateWorkflow(id, { status }, { epoch: lease.epoch });
          await checkpointer.releaseWorkflow(id, lease);
          const before = await checkpointer.getWorkflow(id);
          expect(await checkpointer.requestStop(id, { info: "late" })).toStrictEqual(before);
          expect(await checkpointer.getWorkflow(id)).toStrictEqual(before);
          expect(await checkpointer.getStopRequest(id)).toBeUndefined();
        }
        const unknown = ids("stop-unknown")();
        expect(await checkpointer.requestStop(unknown)).toBeUndefined();
        expect(await checkpointer.getStopRequest(unknown)).toBeUndefined();
      });
    });

    it("a completed workflow with a live lease (a new turn starting) gets the flag", async () => {
      await run(async (checkpointer) => {
        const id = ids("stop-turn")();
        await create(checkpointer, id);
        const lease = await checkpointer.claimWorkflow(id, { owner: "a", ttlMs: 10_000 });
        await checkpointer.updateWorkflow(id, { status: "completed" }, { epoch: lease.epoch });
        const record = await checkpointer.requestStop(id);
        expect(record?.status).toBe("completed");
        expect(record?.stopRequested).toBeDefined();
      });
    });

    it("info that cannot be stored is a CheckpointError and changes nothing", async () => {
      await run(async (checkpointer) => {
        const id = ids("stop-unsaveable")();
        await create(checkpointer, id);
        await checkpointer.claimWorkflow(id, { owner: "a", ttlMs: 10_000 });
        const error = await rejection(checkpointer.requestStop(id, { info: { callback: () => 1 } }));
        assertCheckpointError(error);
        expect(error.path).toContain("stopRequested.info");
        expect(await checkpointer.getStopRequest(id)).toBeUndefined();
      });
    });
  });
}
