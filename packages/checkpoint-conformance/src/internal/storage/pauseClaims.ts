/**
 * Storage conformance, part of area "leases": a claim that answers a pause (`ifPausedAt`) is a compare-and-set on
 * that pause, in the claim's own write. Of several answers to one pause exactly one is claimed; a claim for a pause
 * that was settled (resumed, completed, paused again at another visit) is refused with reason `"pause-settled"` and
 * changes nothing, not even the lease epoch.
 */
import type { Checkpointer, Lease, WorkflowConflictError } from "@graph/checkpoint";
import { isCheckpointError } from "@graph/checkpoint";
import { describe, expect, it } from "vitest";
import { assertConflictError, ids, rejection, step } from "../fixtures.js";
import type { StorageContext } from "./helpers.js";
import { create, storedRecords } from "./helpers.js";

/** A workflow paused at `approve` after supersteps 0..2 (lastSuperstep 2), lease given back; its visit and epoch. */
async function pausedAt(checkpointer: Checkpointer, id: string): Promise<{ visit: number; epoch: number }> {
  await create(checkpointer, id);
  const lease = await checkpointer.claimWorkflow(id, { owner: "first-run", ttlMs: 10_000 });
  const fence = { epoch: lease.epoch };
  for (const superstep of [0, 1, 2])
    await checkpointer.saveStep(step(id, { superstep, nodeName: `n${superstep}`, index: superstep }), fence);
  await checkpointer.updateWorkflow(
    id,
    { status: "paused", pause: { nodeName: "approve", value: "draft", responseKey: "decision" } },
    fence,
  );
  await checkpointer.releaseWorkflow(id, lease);
  const record = await checkpointer.getWorkflow(id);
  expect(record?.status).toBe("paused");
  expect(record?.lastSuperstep).toBe(2);
  return { visit: record!.lastSuperstep, epoch: lease.epoch };
}

/** What a resume writes once it holds the workflow: its input at the next superstep, status running. */
async function resume(checkpointer: Checkpointer, id: string, lease: Lease, superstep: number): Promise<void> {
  const fence = { epoch: lease.epoch };
  await checkpointer.saveStep(
    step(id, { superstep, nodeName: ".input", index: 10 + superstep, values: { decision: "yes" } }),
    fence,
  );
  await checkpointer.updateWorkflow(id, { status: "running", pause: null }, fence);
}

function assertSettled(error: unknown, id: string, visit: number): asserts error is WorkflowConflictError {
  assertConflictError(error);
  expect(error.reason).toBe("pause-settled");
  expect(error.workflowId).toBe(id);
  expect(error.message).toContain(`no longer paused at the pause this claim answers (lastSuperstep ${visit})`);
  expect(error.message).toContain("nothing was written");
}

/** Registers the pause-claim tests (inside the "leases" area). */
export function describePauseClaims({ run }: StorageContext): void {
  describe("claims that answer a pause (ifPausedAt)", () => {
    it("taken while paused at that visit; refused (pause-settled, nothing written) at another visit", async () => {
      await run(async (checkpointer) => {
        const id = ids("pause-claim")();
        const { visit, epoch } = await pausedAt(checkpointer, id);
        const before = await storedRecords(checkpointer, [id]);
        for (const other of [visit - 1, visit + 1]) {
          assertSettled(
            await rejection(checkpointer.claimWorkflow(id, { owner: "b", ttlMs: 10_000, ifPausedAt: other })),
            id,
            other,
          );
          expect(await storedRecords(checkpointer, [id]), "a refused claim writes nothing").toStrictEqual(before);
        }
        const lease = await checkpointer.claimWorkflow(id, { owner: "b", ttlMs: 10_000, ifPausedAt: visit });
        // The refused claims moved nothing: this one is the first claim since the paused run's.
        expect(lease.epoch).toBe(epoch + 1);
        expect((await checkpointer.getWorkflow(id))?.lease?.owner).toBe("b");
      });
    });

    it("held while still paused there: lease-held; once the holder resumed it: pause-settled, even under its lease", async () => {
      await run(async (checkpointer) => {
        const id = ids("pause-held")();
        const { visit } = await pausedAt(checkpointer, id);
        const lease = await checkpointer.claimWorkflow(id, { owner: "winner", ttlMs: 10_000, ifPausedAt: visit });
        const held = await rejection(
          checkpointer.claimWorkflow(id, { owner: "late", ttlMs: 10_000, ifPausedAt: visit }),
        );
        assertConflictError(held);
        expect(held.reason).toBe("lease-held");
        expect(held.heldBy).toBe("winner");
        await resume(checkpointer, id, lease, visit + 1);
        const running = await storedRecords(checkpointer, [id]);
        assertSettled(
          await rejection(checkpointer.claimWorkflow(id, { owner: "late", ttlMs: 10_000, ifPausedAt: visit })),
          id,
          visit,
        );
        expect(await storedRecords(checkpointer, [id])).toStrictEqual(running);
        await checkpointer.updateWorkflow(id, { status: "completed" }, { epoch: lease.epoch });
        await checkpointer.releaseWorkflow(id, lease);
        const completed = await storedRecords(checkpointer, [id]);
        for (const owner of ["late", "winner"]) {
          assertSettled(
            await rejection(checkpointer.claimWorkflow(id, { owner, ttlMs: 10_000, ifPausedAt: visit })),
            id,
            visit,
          );
          expect(await storedRecords(checkpointer, [id]), "nothing written, not even the epoch").toStrictEqual(
            completed,
          );
        }
      });
    });

    it("of 5 answers to one pause racing claim-then-resume, exactly one is claimed", async () => {
      await run(async (checkpointer) => {
        const id = ids("pause-race")();
        const { visit } = await pausedAt(checkpointer, id);
        const outcomes = await Promise.allSettled(
          ["a", "b", "c", "d", "e"].map(async (owner) => {
            const lease = await checkpointer.claimWorkflow(id, { owner, ttlMs: 10_000, ifPausedAt: visit });
            await resume(checkpointer, id, lease, visit + 1);
            await checkpointer.releaseWorkflow(id, lease);
            return owner;
          }),
        );
        const won = outcomes.filter((o) => o.status === "fulfilled");
        expect(won).toHaveLength(1);
        for (const o of outcomes) {
          if (o.status === "fulfilled") continue;
          assertConflictError(o.reason);
          expect(["lease-held", "pause-settled"]).toContain(o.reason.reason);
        }
        // Every later answer to that pause is refused.
        assertSettled(
          await rejection(checkpointer.claimWorkflow(id, { owner: "f", ttlMs: 10_000, ifPausedAt: visit })),
          id,
          visit,
        );
        const inputs = (await checkpointer.getSteps(id, { includeInputs: true })).filter(
          (s) => s.nodeName === ".input",
        );
        expect(inputs).toHaveLength(1);
      });
    });

    it("ifPausedAt must be an integer ≥ -1: a CheckpointError naming the path, nothing written", async () => {
      await run(async (checkpointer) => {
        const id = ids("pause-bad")();
        const { visit } = await pausedAt(checkpointer, id);
        const before = await storedRecords(checkpointer, [id]);
        for (const bad of [1.5, -2, Number.NaN, "2"]) {
          const error = await rejection(
            checkpointer.claimWorkflow(id, { owner: "b", ttlMs: 10_000, ifPausedAt: bad as number }),
          );
          expect(isCheckpointError(error), `ifPausedAt ${String(bad)}`).toBe(true);
          expect((error as { path?: string }).path).toBe("ifPausedAt");
        }
        expect(await storedRecords(checkpointer, [id])).toStrictEqual(before);
        expect(visit).toBe(2);
      });
    });
  });
}
