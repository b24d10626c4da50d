/** Storage conformance, area "retention": Retention policies (full, latest, windowed) and ttlMs. */
import type { Checkpointer } from "@graph/checkpoint";
import { describe, expect, it } from "vitest";
import { ids, sleep } from "../fixtures.js";
import type { StorageContext } from "./helpers.js";
import { create, retentionHistory } from "./helpers.js";

/** Registers the "retention" tests. */
export function describeRetention({ run }: StorageContext): void {
  describe("retention", () => {
    async function replay(checkpointer: Checkpointer, id: string) {
      await create(checkpointer, id);
      for (const saved of retentionHistory(id)) await checkpointer.saveStep(saved);
      const checkpoint = await checkpointer.getCheckpoint(id);
      const workflow = await checkpointer.getWorkflow(id);
      return { checkpoint: checkpoint!, workflow: workflow! };
    }

    async function reference(id: string) {
      return run((checkpointer) => replay(checkpointer, id));
    }

    it("full keeps every step", async () => {
      const id = ids("full")();
      const { checkpoint, workflow } = await reference(id);
      expect(checkpoint.steps).toHaveLength(8);
      expect(workflow.stepCount).toBe(8);
      expect(checkpoint.values).toStrictEqual({ q: "hi", a: 3, b: 1, c: 1 });
      expect(checkpoint.versions).toStrictEqual({ q: 0, a: 6, b: 2, c: 5 });
    });

    it("latest keeps the newest step per node plus steps still holding values; state and versions unchanged", async () => {
      const id = ids("latest");
      const full = await reference(id("full"));
      await run(
        async (checkpointer) => {
          const { checkpoint, workflow } = await replay(checkpointer, id("latest"));
          expect(checkpoint.steps.map((s) => s.index)).toEqual([0, 2, 5, 6, 7]);
          expect(workflow.stepCount).toBe(5);
          expect(workflow.lastSuperstep).toBe(5);
          expect(checkpoint.values).toStrictEqual(full.checkpoint.values);
          expect(checkpoint.versions).toStrictEqual(full.checkpoint.versions);
          expect(await checkpointer.getState(id("latest"))).toStrictEqual(full.checkpoint.values);
        },
        { retention: "latest" },
      );
    });

    it("windowed keeps the last `window` supersteps whole and compacts older ones", async () => {
      const id = ids("windowed");
      const full = await reference(id("full"));
      await run(
        async (checkpointer) => {
          const { checkpoint, workflow } = await replay(checkpointer, id("w3"));
          expect(checkpoint.steps.map((s) => s.index)).toEqual([0, 2, 3, 4, 5, 6, 7]);
          expect(workflow.stepCount).toBe(7);
          expect(checkpoint.values).toStrictEqual(full.checkpoint.values);
          expect(checkpoint.versions).toStrictEqual(full.checkpoint.versions);
        },
        { retention: "windowed", window: 3 },
      );
      await run(
        async (checkpointer) => {
          const { checkpoint } = await replay(checkpointer, id("w1"));
          expect(checkpoint.steps.map((s) => s.index)).toEqual([0, 2, 5, 6, 7]);
          expect(checkpoint.versions).toStrictEqual(full.checkpoint.versions);
        },
        { retention: "windowed", window: 1 },
      );
    });

    it("ttlMs deletes idle workflows (and their children) on createWorkflow, but not live running ones", async () => {
      const id = ids("ttl");
      await run(
        async (checkpointer) => {
          await create(checkpointer, id("done"));
          await create(checkpointer, `${id("done")}/child`, id("done"));
          await checkpointer.updateWorkflow(id("done"), { status: "completed" });
          await create(checkpointer, id("live"));
          await checkpointer.claimWorkflow(id("live"), { owner: "runner", ttlMs: 60_000 });
          // Everything above must happen within ttlMs (a loaded CI machine can take 100 ms for it), then expire.
          await sleep(1_100);
          await create(checkpointer, id("new"));
          expect(await checkpointer.getWorkflow(id("done"))).toBeUndefined();
          expect(await checkpointer.getWorkflow(`${id("done")}/child`)).toBeUndefined();
          expect(await checkpointer.getWorkflow(id("live"))).toBeDefined();
          expect(await checkpointer.getWorkflow(id("new"))).toBeDefined();
        },
        { ttlMs: 1_000 },
      );
    });
  });
}
