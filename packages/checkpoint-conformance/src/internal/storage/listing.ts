/** Storage conformance, area "listing": listWorkflows: cursor pages, filters, malformed input. */
import { compareWorkflowPosition } from "@graph/checkpoint/adapter";
import { describe, expect, it } from "vitest";
import { assertCheckpointError, ids, rejection } from "../fixtures.js";
import type { StorageContext } from "./helpers.js";
import { create, listAll, SLOW } from "./helpers.js";

/** Registers the "listing" tests. */
export function describeListing({ run }: StorageContext): void {
  describe("listWorkflows", () => {
    it("cursor pages cover every workflow exactly once, in (createdAt, id) order", { timeout: SLOW }, async () => {
      await run(async (checkpointer) => {
        const id = ids("pages");
        const mine = Array.from({ length: 25 }, (_, i) => id(`w${String(i).padStart(2, "0")}`));
        // Shuffled creation order, so id order and creation order disagree.
        for (const workflowId of [...mine].sort(() => Math.random() - 0.5)) await create(checkpointer, workflowId);
        const all = await listAll(checkpointer, { limit: 7 });
        const seen = all.map((workflow) => workflow.id);
        expect(new Set(seen).size).toBe(seen.length);
        const ours = all.filter((workflow) => workflow.id.startsWith(id()));
        expect(ours.map((workflow) => workflow.id).sort()).toEqual([...mine].sort());
        for (let i = 1; i < ours.length; i++) {
          expect(compareWorkflowPosition(ours[i - 1]!, ours[i]!)).toBeLessThan(0);
        }
      });
    });

    it("filters by status and roots, and honours limit", async () => {
      await run(async (checkpointer) => {
        const id = ids("filters");
        for (let i = 0; i < 6; i++) await create(checkpointer, id(`w${i}`));
        await create(checkpointer, `${id("w0")}/child`, id("w0"));
        for (const i of [1, 3]) await checkpointer.updateWorkflow(id(`w${i}`), { status: "paused" });
        await checkpointer.updateWorkflow(`${id("w0")}/child`, { status: "paused" });

        const paused = (await listAll(checkpointer, { status: "paused", limit: 2 }))
          .filter((workflow) => workflow.id.startsWith(id()))
          .map((workflow) => workflow.id);
        expect(paused.sort()).toEqual([`${id("w0")}/child`, id("w1"), id("w3")].sort());

        const pausedRoots = (await listAll(checkpointer, { status: "paused", rootsOnly: true, limit: 50 }))
          .filter((workflow) => workflow.id.startsWith(id()))
          .map((workflow) => workflow.id);
        expect(pausedRoots.sort()).toEqual([id("w1"), id("w3")].sort());

        const roots = await listAll(checkpointer, { rootsOnly: true, limit: 50 });
        expect(roots.every((workflow) => workflow.parentId === undefined)).toBe(true);
        expect(roots.filter((workflow) => workflow.id.startsWith(id()))).toHaveLength(6);

        const firstPage = await checkpointer.listWorkflows({ limit: 3 });
        expect(firstPage.workflows).toHaveLength(3);
        expect(firstPage.nextCursor).toEqual(expect.any(String));
      });
    });

    it("rejects a malformed cursor or limit with CheckpointError", async () => {
      await run(async (checkpointer) => {
        assertCheckpointError(await rejection(checkpointer.listWorkflows({ cursor: "not-a-cursor!" })));
        assertCheckpointError(await rejection(checkpointer.listWorkflows({ limit: 0 })));
        assertCheckpointError(await rejection(checkpointer.listWorkflows({ limit: -3 })));
      });
    });
  });
}
