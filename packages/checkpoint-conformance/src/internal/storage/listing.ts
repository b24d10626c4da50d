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

    it("filters by graph and id prefix (verbatim, over cursor pages), alone and with status and roots", async () => {
      await run(async (checkpointer) => {
        const id = ids("scoped");
        const graph = `g-${id()}`;
        // The prefix `t%_1` must not match `t%x1…` nor `tA_1…` (no LIKE wildcards), and must match its children.
        const names = ["t%_1a", "t%_1b", "t%_10", "t%x1a", "tA_1a", "t%_", "u1"];
        for (const [i, name] of names.entries()) {
          await checkpointer.createWorkflow({
            id: id(name),
            graphName: i % 2 === 0 ? graph : `${graph}-other`,
            graphHash: "h",
          });
        }
        await checkpointer.createWorkflow({
          id: `${id("t%_1a")}/child`,
          graphName: graph,
          graphHash: "h",
          parentId: id("t%_1a"),
        });
        await checkpointer.updateWorkflow(id("t%_1b"), { status: "paused" });
        const listed = async (options: Parameters<typeof checkpointer.listWorkflows>[0]) =>
          (await listAll(checkpointer, { limit: 2, ...options })).map((workflow) => workflow.id);
        // In listing order: the same sequence as the full listing keeps for these ids.
        expect(await listed({ idPrefix: id("t%_1") })).toEqual(
          (await listed({ limit: 50 })).filter((workflowId) => workflowId.startsWith(id("t%_1"))),
        );
        expect((await listed({ idPrefix: id("t%_1") })).sort()).toEqual(
          [id("t%_1a"), id("t%_1b"), id("t%_10"), `${id("t%_1a")}/child`].sort(),
        );
        expect((await listed({ idPrefix: id("t%_1"), rootsOnly: true })).sort()).toEqual(
          [id("t%_1a"), id("t%_1b"), id("t%_10")].sort(),
        );
        expect(await listed({ idPrefix: id("t%_1"), status: "paused" })).toEqual([id("t%_1b")]);
        expect((await listed({ graph })).sort()).toEqual(
          [id("t%_1a"), id("t%_10"), id("tA_1a"), id("u1"), `${id("t%_1a")}/child`].sort(),
        );
        expect((await listed({ graph, idPrefix: id("t"), rootsOnly: true })).sort()).toEqual(
          [id("t%_1a"), id("t%_10"), id("tA_1a")].sort(),
        );
        expect(await listed({ graph: `${graph}-other`, status: "paused" })).toEqual([id("t%_1b")]);
        expect(await listed({ graph: `${graph}-none` })).toEqual([]);
        for (const bad of [{ graph: "" }, { idPrefix: "" }, { graph: 7 }]) {
          const error = await rejection(checkpointer.listWorkflows(bad as never));
          assertCheckpointError(error);
          expect(error.message).toContain("listWorkflows");
        }
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
