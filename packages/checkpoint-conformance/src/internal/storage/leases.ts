/** Storage conformance, area "leases": Leases: claims, renewals, conflicts, races, expiry, fences, release. */
import { describe, expect, it } from "vitest";
import { assertConflictError, ids, rejection, sleep, step } from "../fixtures.js";
import type { StorageContext } from "./helpers.js";
import { create } from "./helpers.js";
import { describePauseClaims } from "./pauseClaims.js";

/** Registers the "leases" tests. */
export function describeLeases(context: StorageContext): void {
  const { run } = context;
  describe("leases", () => {
    describePauseClaims(context);
    it("claim grants a lease with an epoch; the same owner renews and keeps the epoch", async () => {
      await run(async (checkpointer) => {
        const id = ids("claim")();
        await create(checkpointer, id);
        const before = Date.now();
        const lease = await checkpointer.claimWorkflow(id, { owner: "a", ttlMs: 10_000 });
        expect(lease).toMatchObject({ workflowId: id, owner: "a" });
        expect(Number.isInteger(lease.epoch)).toBe(true);
        expect(lease.expiresAt.getTime()).toBeGreaterThanOrEqual(before + 10_000 - 1000);
        expect((await checkpointer.getWorkflow(id))?.lease).toEqual(lease);

        await sleep(5);
        const renewed = await checkpointer.claimWorkflow(id, { owner: "a", ttlMs: 20_000 });
        expect(renewed.epoch).toBe(lease.epoch);
        expect(renewed.expiresAt.getTime()).toBeGreaterThan(lease.expiresAt.getTime());
      });
    });

    it("another owner gets WorkflowConflictError while the lease is live", async () => {
      await run(async (checkpointer) => {
        const id = ids("conflict")();
        await create(checkpointer, id);
        const lease = await checkpointer.claimWorkflow(id, { owner: "a", ttlMs: 10_000 });
        const error = await rejection(checkpointer.claimWorkflow(id, { owner: "b", ttlMs: 10_000 }));
        assertConflictError(error);
        expect(error._tag).toBe("WorkflowConflictError");
        expect(error.workflowId).toBe(id);
        expect(error.heldBy).toBe("a");
        expect(error.expiresAt?.getTime()).toBe(lease.expiresAt.getTime());
        expect((await checkpointer.getWorkflow(id))?.lease?.owner).toBe("a");
      });
    });

    it("exactly one of two concurrent claims wins", async () => {
      await run(async (checkpointer) => {
        const id = ids("race")();
        await create(checkpointer, id);
        const results = await Promise.allSettled(
          ["a", "b", "c"].map((owner) => checkpointer.claimWorkflow(id, { owner, ttlMs: 10_000 })),
        );
        const won = results.filter((result) => result.status === "fulfilled");
        expect(won).toHaveLength(1);
        for (const result of results) if (result.status === "rejected") assertConflictError(result.reason);
      });
    });

    it("an expired lease can be claimed by another owner with a higher epoch", async () => {
      await run(async (checkpointer) => {
        const id = ids("expired")();
        await create(checkpointer, id);
        const first = await checkpointer.claimWorkflow(id, { owner: "a", ttlMs: 50 });
        await sleep(80);
        const second = await checkpointer.claimWorkflow(id, { owner: "b", ttlMs: 10_000 });
        expect(second.owner).toBe("b");
        expect(second.epoch).toBeGreaterThan(first.epoch);
      });
    });

    it("the holder re-claiming just after expiry (nobody claimed in between) keeps its epoch", async () => {
      await run(async (checkpointer) => {
        const id = ids("lapsed")();
        await create(checkpointer, id);
        const first = await checkpointer.claimWorkflow(id, { owner: "a", ttlMs: 30 });
        await sleep(60);
        const again = await checkpointer.claimWorkflow(id, { owner: "a", ttlMs: 10_000 });
        expect(again.epoch).toBe(first.epoch);
        await checkpointer.saveStep(step(id, { superstep: 0, nodeName: "n", index: 0, values: { v: 1 } }), {
          epoch: first.epoch,
        });
        expect((await checkpointer.getSteps(id)).length).toBe(1);
      });
    });

    it("writes with a stale fence are rejected with WorkflowConflictError and write nothing", async () => {
      await run(async (checkpointer) => {
        const id = ids("fence")();
        await create(checkpointer, id);
        const first = await checkpointer.claimWorkflow(id, { owner: "a", ttlMs: 50 });
        await checkpointer.saveStep(step(id, { superstep: 0, nodeName: "n", index: 0, values: { v: 1 } }), {
          epoch: first.epoch,
        });
        await sleep(80);
        const second = await checkpointer.claimWorkflow(id, { owner: "b", ttlMs: 10_000 });
        const before = await checkpointer.getWorkflow(id);

        const stale = { epoch: first.epoch };
        assertConflictError(
          await rejection(
            checkpointer.saveStep(step(id, { superstep: 1, nodeName: "n", index: 1, values: { v: 2 } }), stale),
          ),
        );
        assertConflictError(
          await rejection(
            checkpointer.saveStep(step(id, { superstep: 0, nodeName: "n", index: 0, values: { v: 9 } }), stale),
          ),
        );
        assertConflictError(await rejection(checkpointer.updateWorkflow(id, { status: "completed" }, stale)));
        expect(await checkpointer.getState(id)).toEqual({ v: 1 });
        expect(await checkpointer.getWorkflow(id)).toStrictEqual(before);

        // The current holder's fence works.
        await checkpointer.saveStep(step(id, { superstep: 1, nodeName: "n", index: 1, values: { v: 2 } }), {
          epoch: second.epoch,
        });
        const updated = await checkpointer.updateWorkflow(id, { status: "completed" }, { epoch: second.epoch });
        expect(updated.status).toBe("completed");
        expect(await checkpointer.getState(id)).toEqual({ v: 2 });
      });
    });

    it("release by a stale epoch is ignored; release by the holder frees the workflow", async () => {
      await run(async (checkpointer) => {
        const id = ids("release")();
        await create(checkpointer, id);
        const first = await checkpointer.claimWorkflow(id, { owner: "a", ttlMs: 50 });
        await sleep(80);
        const second = await checkpointer.claimWorkflow(id, { owner: "b", ttlMs: 10_000 });

        await checkpointer.releaseWorkflow(id, { owner: "a", epoch: first.epoch });
        await checkpointer.releaseWorkflow(id, { owner: "c", epoch: second.epoch });
        expect((await checkpointer.getWorkflow(id))?.lease).toMatchObject({ owner: "b", epoch: second.epoch });
        assertConflictError(await rejection(checkpointer.claimWorkflow(id, { owner: "c", ttlMs: 10_000 })));

        await checkpointer.releaseWorkflow(id, { owner: "b", epoch: second.epoch });
        expect((await checkpointer.getWorkflow(id))?.lease).toBeUndefined();
        const third = await checkpointer.claimWorkflow(id, { owner: "c", ttlMs: 10_000 });
        expect(third.epoch).toBeGreaterThan(second.epoch);
        // b's fence is stale now.
        assertConflictError(
          await rejection(
            checkpointer.saveStep(step(id, { superstep: 0, nodeName: "n", index: 0 }), { epoch: second.epoch }),
          ),
        );
      });
    });
  });
}
