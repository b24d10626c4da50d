/** Storage conformance, area "workflows": createWorkflow (once, concurrently), parents, updateWorkflow. */
import { describe, expect, it } from "vitest";
import { ids, sleep } from "../fixtures.js";
import type { StorageContext } from "./helpers.js";
import { create } from "./helpers.js";

/** Registers the "workflows" tests. */
export function describeWorkflows({ run }: StorageContext): void {
  describe("workflows", () => {
    it("createWorkflow creates once, then returns the stored record unchanged", async () => {
      await run(async (checkpointer) => {
        const id = ids("create")();
        const before = Date.now();
        const first = await checkpointer.createWorkflow({ id, graphName: "g", graphHash: "h1" });
        expect(first.created).toBe(true);
        expect(first.workflow).toMatchObject({
          id,
          graphName: "g",
          graphHash: "h1",
          status: "running",
          lastSuperstep: -1,
          stepCount: 0,
        });
        expect(first.workflow.parentId).toBeUndefined();
        expect(first.workflow.lease).toBeUndefined();
        expect(first.workflow.createdAt).toBeInstanceOf(Date);
        expect(first.workflow.createdAt.getTime()).toBeGreaterThanOrEqual(before - 1000);
        expect(first.workflow.updatedAt.getTime()).toBeGreaterThanOrEqual(first.workflow.createdAt.getTime());

        const second = await checkpointer.createWorkflow({ id, graphName: "other", graphHash: "h2" });
        expect(second.created).toBe(false);
        expect(second.workflow.graphHash).toBe("h1");
        expect(second.workflow.graphName).toBe("g");
        expect(await checkpointer.getWorkflow(id)).toEqual(second.workflow);
      });
    });

    it("concurrent createWorkflow calls create exactly once", async () => {
      await run(async (checkpointer) => {
        const id = ids("create-race")();
        const results = await Promise.all(
          Array.from({ length: 5 }, () => checkpointer.createWorkflow({ id, graphName: "g", graphHash: "h" })),
        );
        expect(results.filter((result) => result.created)).toHaveLength(1);
      });
    });

    it("records the parent of a child workflow", async () => {
      await run(async (checkpointer) => {
        const id = ids("parent");
        await create(checkpointer, id());
        const child = await create(checkpointer, `${id()}/child`, id());
        expect(child.parentId).toBe(id());
        expect((await checkpointer.getWorkflow(`${id()}/child`))?.parentId).toBe(id());
      });
    });

    it("updateWorkflow sets and clears status, graph hash, pause and error", async () => {
      await run(async (checkpointer) => {
        const id = ids("update")();
        const created = await create(checkpointer, id);
        await sleep(5);
        const pause = {
          nodeName: "approve",
          value: { draft: "text", at: new Date(1), tags: new Set(["a"]) },
          responseKey: "approved",
        };
        const paused = await checkpointer.updateWorkflow(id, { status: "paused", graphHash: "hash-2", pause });
        expect(paused).toMatchObject({ status: "paused", graphHash: "hash-2" });
        expect(paused.pause).toStrictEqual(pause);
        expect(paused.updatedAt.getTime()).toBeGreaterThan(created.updatedAt.getTime() - 1);
        expect(await checkpointer.getWorkflow(id)).toStrictEqual(paused);

        const error = { name: "NodeExecutionError", message: "boom", tag: "NodeExecutionError", stack: "at x" };
        const failed = await checkpointer.updateWorkflow(id, { status: "failed", pause: null, error });
        expect(failed.status).toBe("failed");
        expect(failed.pause).toBeUndefined();
        expect(failed.error).toStrictEqual(error);

        const cleared = await checkpointer.updateWorkflow(id, { status: "completed", error: null });
        expect(cleared.error).toBeUndefined();
        expect(cleared.graphHash).toBe("hash-2");
        expect(await checkpointer.getWorkflow(id)).toStrictEqual(cleared);

        const unchanged = await checkpointer.updateWorkflow(id, {});
        expect(unchanged.status).toBe("completed");
      });
    });
  });
}
