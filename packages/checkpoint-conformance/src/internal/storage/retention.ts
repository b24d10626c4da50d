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

    it("ttlMs: sweepExpired deletes idle workflows (and their children) in batches, never live running ones; a create never prunes", async () => {
      const id = ids("ttl");
      await run(
        async (checkpointer) => {
          expect(typeof checkpointer.sweepExpired).toBe("function");
          const sweep = (limit?: number) => checkpointer.sweepExpired!(limit === undefined ? undefined : { limit });
          await create(checkpointer, id("done"));
          await create(checkpointer, `${id("done")}/child`, id("done"));
          await checkpointer.updateWorkflow(id("done"), { status: "completed" });
          await create(checkpointer, id("stopped"));
          await checkpointer.updateWorkflow(id("stopped"), { status: "stopped" });
          await create(checkpointer, id("live"));
          await checkpointer.claimWorkflow(id("live"), { owner: "runner", ttlMs: 60_000 });
          // Everything above must happen within ttlMs (a loaded CI machine can take 100 ms for it), then expire.
          await sleep(1_100);
          await create(checkpointer, id("new"));
          // A write (a run's start) leaves housekeeping to the sweeper.
          expect(await checkpointer.getWorkflow(id("done"))).toBeDefined();
          expect(await checkpointer.getWorkflow(id("stopped"))).toBeDefined();
          // At most `limit` roots per call (other tests' expired workflows may share the storage: no exact totals).
          expect(await sweep(1)).toBe(1);
          for (let round = 0; (await sweep(50)) > 0; round++) expect(round).toBeLessThan(1_000);
          expect(await checkpointer.getWorkflow(id("done"))).toBeUndefined();
          expect(await checkpointer.getWorkflow(`${id("done")}/child`)).toBeUndefined();
          expect(await checkpointer.getWorkflow(id("stopped"))).toBeUndefined();
          expect(await checkpointer.getWorkflow(id("live"))).toBeDefined();
          expect(await checkpointer.getWorkflow(id("new"))).toBeDefined();
          await expect(checkpointer.sweepExpired!({ limit: 0 })).rejects.toMatchObject({
            _tag: "CheckpointError",
            operation: "sweepExpired",
          });
        },
        { ttlMs: 1_000 },
      );
    });

    it("without ttlMs, sweepExpired deletes nothing", async () => {
      const id = ids("nottl");
      await run(async (checkpointer) => {
        await create(checkpointer, id("done"));
        await checkpointer.updateWorkflow(id("done"), { status: "completed" });
        expect(await checkpointer.sweepExpired!()).toBe(0);
        expect(await checkpointer.getWorkflow(id("done"))).toBeDefined();
      });
    });
  });
}
