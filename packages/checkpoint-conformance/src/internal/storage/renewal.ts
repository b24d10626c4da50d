/**
 * Storage conformance, area "renewal": `renewWorkflow` extends only the lease it was given (same owner, same epoch;
 * expired but untaken is fine), never takes a released or re-claimed lease back, and reports the stop request.
 */
import { describe, expect, it } from "vitest";
import { assertCheckpointError, assertConflictError, ids, rejection, sleep, step } from "../fixtures.js";
import type { StorageContext } from "./helpers.js";
import { create } from "./helpers.js";

/** Registers the "renewal" tests. */
export function describeRenewal({ run }: StorageContext): void {
  describe("lease renewal", () => {
    it("renews the holder's lease: same epoch, later expiry, no stop request", async () => {
      await run(async (checkpointer) => {
        const id = ids("renew")();
        await create(checkpointer, id);
        const lease = await checkpointer.claimWorkflow(id, { owner: "a", ttlMs: 5_000 });
        await sleep(5);
        const renewed = await checkpointer.renewWorkflow(id, lease, { ttlMs: 20_000 });
        expect(renewed).toStrictEqual({
          workflowId: id,
          owner: "a",
          epoch: lease.epoch,
          expiresAt: renewed.expiresAt,
        });
        expect(renewed.expiresAt.getTime()).toBeGreaterThan(lease.expiresAt.getTime());
        expect((await checkpointer.getWorkflow(id))?.lease).toStrictEqual({
          workflowId: id,
          owner: "a",
          epoch: lease.epoch,
          expiresAt: renewed.expiresAt,
        });
        // Its fence still works.
        await checkpointer.saveStep(step(id, { superstep: 0, nodeName: "n", index: 0, values: { v: 1 } }), {
          epoch: lease.epoch,
        });
      });
    });

    it("an expired lease nobody took since can be renewed (the epoch is unchanged)", async () => {
      await run(async (checkpointer) => {
        const id = ids("renew-expired")();
        await create(checkpointer, id);
        const lease = await checkpointer.claimWorkflow(id, { owner: "a", ttlMs: 30 });
        await sleep(60);
        const renewed = await checkpointer.renewWorkflow(id, lease, { ttlMs: 10_000 });
        expect(renewed.epoch).toBe(lease.epoch);
        assertConflictError(await rejection(checkpointer.claimWorkflow(id, { owner: "b", ttlMs: 10_000 })));
      });
    });

    it("after a release the renewal fails with reason lease-lost and the workflow stays free", async () => {
      await run(async (checkpointer) => {
        const id = ids("renew-released")();
        await create(checkpointer, id);
        const lease = await checkpointer.claimWorkflow(id, { owner: "a", ttlMs: 10_000 });
        await checkpointer.releaseWorkflow(id, lease);
        const error = await rejection(checkpointer.renewWorkflow(id, lease, { ttlMs: 10_000 }));
        assertConflictError(error);
        expect(error.reason).toBe("lease-lost");
        expect(error.workflowId).toBe(id);
        expect(error.message).toContain("was released");
        expect((await checkpointer.getWorkflow(id))?.lease).toBeUndefined();
        // Nobody is locked out: another owner claims at once.
        const other = await checkpointer.claimWorkflow(id, { owner: "b", ttlMs: 10_000 });
        expect(other.epoch).toBeGreaterThan(lease.epoch);
      });
    });

    it("after a takeover the renewal fails with reason lease-lost naming the new owner, and changes nothing", async () => {
      await run(async (checkpointer) => {
        const id = ids("renew-taken")();
        await create(checkpointer, id);
        const lease = await checkpointer.claimWorkflow(id, { owner: "a", ttlMs: 30 });
        await sleep(60);
        const taken = await checkpointer.claimWorkflow(id, { owner: "b", ttlMs: 10_000 });
        const error = await rejection(checkpointer.renewWorkflow(id, lease, { ttlMs: 60_000 }));
        assertConflictError(error);
        expect(error.reason).toBe("lease-lost");
        expect(error.heldBy).toBe("b");
        expect(error.expiresAt?.getTime()).toBe(taken.expiresAt.getTime());
        expect((await checkpointer.getWorkflow(id))?.lease).toStrictEqual(taken);
        // The same owner name with the old epoch is not the holder either (a restarted process reusing a name).
        await checkpointer.releaseWorkflow(id, taken);
        const again = await checkpointer.claimWorkflow(id, { owner: "a", ttlMs: 10_000 });
        const stale = await rejection(checkpointer.renewWorkflow(id, lease, { ttlMs: 10_000 }));
        assertConflictError(stale);
        expect(stale.reason).toBe("lease-lost");
        expect((await checkpointer.getWorkflow(id))?.lease).toStrictEqual(again);
      });
    });

    it("claim conflicts say lease-held, stale fences stale-fence", async () => {
      await run(async (checkpointer) => {
        const id = ids("reasons")();
        await create(checkpointer, id);
        // Long enough that the second claim comes while the lease holds, even on a loaded machine.
        const lease = await checkpointer.claimWorkflow(id, { owner: "a", ttlMs: 1500 });
        const held = await rejection(checkpointer.claimWorkflow(id, { owner: "b", ttlMs: 10_000 }));
        assertConflictError(held);
        expect(held.reason).toBe("lease-held");
        await sleep(1600);
        await checkpointer.claimWorkflow(id, { owner: "b", ttlMs: 10_000 });
        const fenced = await rejection(
          checkpointer.saveStep(step(id, { superstep: 0, nodeName: "n", index: 0 }), { epoch: lease.epoch }),
        );
        assertConflictError(fenced);
        expect(fenced.reason).toBe("stale-fence");
      });
    });

    it("renewing an unknown workflow or with bad arguments is a CheckpointError", async () => {
      await run(async (checkpointer) => {
        const id = ids("renew-bad")();
        assertCheckpointError(
          await rejection(checkpointer.renewWorkflow(id, { owner: "a", epoch: 1 }, { ttlMs: 1000 })),
        );
        await create(checkpointer, id);
        const lease = await checkpointer.claimWorkflow(id, { owner: "a", ttlMs: 10_000 });
        const badTtl = await rejection(checkpointer.renewWorkflow(id, lease, { ttlMs: -1 }));
        assertCheckpointError(badTtl);
        expect(badTtl.path).toBe("ttlMs");
        const badEpoch = await rejection(checkpointer.renewWorkflow(id, { owner: "a", epoch: 1.5 }, { ttlMs: 1000 }));
        assertCheckpointError(badEpoch);
        expect(badEpoch.path).toBe("lease.epoch");
      });
    });
  });
}
