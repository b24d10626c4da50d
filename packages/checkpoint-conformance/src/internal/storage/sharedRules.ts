/**
 * Storage conformance, area "sharedRules": the input rules every backend takes from `@graph/checkpoint/adapter`, so
 * a call that one backend refuses is refused by all, the same way, before anything is written:
 * - owners, ids, parent ids and node names are text every store keeps verbatim (no NUL, no lone surrogate);
 * - graph names and hashes have no NUL;
 * - an update is checked before its fence and its workflow: a malformed one is a `CheckpointError` naming the field;
 * - `listWorkflows` knows its statuses; read bounds are integers (a fraction reads through its floor), `Infinity`
 *   means none, `NaN` is an error;
 * - the arguments of `startWorkflow` / `finishWorkflow` are checked whole; a release that names no lease is ignored.
 */
import { describe, expect, it } from "vitest";
import { assertCheckpointError, ids, rejection, step } from "../fixtures.js";
import type { StorageContext } from "./helpers.js";
import { create, mergedWrites, storedRecords } from "./helpers.js";

const graph = { graphName: "conformance", graphHash: "hash-1" };

/** Awaits a call that must fail with a `CheckpointError` and returns it. */
async function refused(call: Promise<unknown>) {
  const error = await rejection(call);
  assertCheckpointError(error);
  return error;
}

/** Registers the "sharedRules" tests. */
export function describeSharedRules({ run }: StorageContext): void {
  describe("shared input rules (@graph/checkpoint/adapter)", () => {
    it("an owner with a lone surrogate or a NUL, or an empty one, is refused by claim and start: path 'owner'", async () => {
      await run(async (checkpointer) => {
        const adapter = mergedWrites(checkpointer);
        const id = ids("owner")();
        await create(adapter, id);
        const before = await storedRecords(adapter, [id]);
        for (const owner of ["half\uD800", "\uDC00low", "nul\u0000owner", ""]) {
          const claim = await refused(adapter.claimWorkflow(id, { owner, ttlMs: 10_000 }));
          expect(claim).toMatchObject({ path: "owner", workflowId: id });
          expect(claim.message).toContain("without NUL characters or lone surrogates");
          const fresh = ids("owner-start")();
          const start = await refused(adapter.startWorkflow({ id: fresh, ...graph }, { owner, ttlMs: 10_000 }));
          expect(start.path).toBe("owner");
          expect(await adapter.getWorkflow(fresh)).toBeUndefined();
        }
        expect(await storedRecords(adapter, [id])).toStrictEqual(before);
      });
    });

    it("ids, parent ids and node names with a lone surrogate are refused by every write: nothing is created", async () => {
      await run(async (checkpointer) => {
        const id = ids("surrogate")();
        await create(checkpointer, id);
        const before = await storedRecords(checkpointer, [id]);
        const lone = `${id}-\uD800`;
        for (const call of [
          checkpointer.createWorkflow({ id: lone, ...graph }),
          mergedWrites(checkpointer).startWorkflow({ id: lone, ...graph }, { owner: "o", ttlMs: 1000 }),
          checkpointer.claimWorkflow(lone, { owner: "o", ttlMs: 1000 }),
          checkpointer.saveStep(step(lone, { superstep: 0, nodeName: "n", index: 0 })),
          checkpointer.updateWorkflow(lone, { status: "completed" }),
        ]) {
          const error = await refused(call);
          expect(error.path).toBe("workflowId");
          expect(error.message).toContain("lone UTF-16 surrogate");
        }
        const parent = await refused(checkpointer.createWorkflow({ id: `${id}-child`, ...graph, parentId: lone }));
        expect(parent.path).toBe("parentId");
        const node = await refused(checkpointer.saveStep(step(id, { superstep: 0, nodeName: "n\uDC00", index: 0 })));
        expect(node.path).toBe("nodeName");
        expect(await checkpointer.getWorkflow(lone)).toBeUndefined();
        expect(await checkpointer.getWorkflow(`${id}-child`)).toBeUndefined();
        expect(await storedRecords(checkpointer, [id])).toStrictEqual(before);
      });
    });

    it("graph names and hashes with a NUL are refused by create, start and update: path names the field", async () => {
      await run(async (checkpointer) => {
        const adapter = mergedWrites(checkpointer);
        const id = ids("graph-nul")();
        for (const [field, workflow] of [
          ["graphName", { id, graphName: "g\u0000", graphHash: "h" }],
          ["graphHash", { id, graphName: "g", graphHash: "h\u0000" }],
        ] as const) {
          expect((await refused(adapter.createWorkflow(workflow))).path).toBe(field);
          expect((await refused(adapter.startWorkflow(workflow, { owner: "o", ttlMs: 1000 }))).path).toBe(field);
        }
        expect(await adapter.getWorkflow(id)).toBeUndefined();
        await create(adapter, id);
        const before = await storedRecords(adapter, [id]);
        expect((await refused(adapter.updateWorkflow(id, { graphHash: "h\u0000" }))).path).toBe("graphHash");
        expect(await storedRecords(adapter, [id])).toStrictEqual(before);
      });
    });

    it("a malformed update is refused before its fence or its workflow is looked at, by update and finish", async () => {
      await run(async (checkpointer) => {
        const adapter = mergedWrites(checkpointer);
        const id = ids("bad-update")();
        const { lease } = await adapter.startWorkflow({ id, ...graph }, { owner: "a", ttlMs: 10_000 });
        const before = await storedRecords(adapter, [id]);
        const stale = { epoch: lease.epoch + 5 };
        const cases = [
          [null, undefined],
          [{ status: "done" }, "status"],
          [{ graphHash: 42 }, "graphHash"],
        ] as const;
        for (const [update, path] of cases) {
          for (const call of [
            adapter.updateWorkflow(id, update as never, stale),
            adapter.updateWorkflow(`${id}-unknown`, update as never),
            adapter.finishWorkflow({
              workflowId: id,
              steps: [{ steps: [step(id, { superstep: 0, nodeName: "n", index: 0 })], fence: stale }],
              update: update as never,
              fence: stale,
              release: lease,
            }),
          ]) {
            const error = await refused(call);
            expect(error.path).toBe(path);
            expect(error.operation).toMatch(/^(updateWorkflow|finishWorkflow)$/);
          }
        }
        expect(await storedRecords(adapter, [id])).toStrictEqual(before);
      });
    });

    it("startWorkflow with steps of another workflow, finishWorkflow with a malformed release: refused whole", async () => {
      await run(async (checkpointer) => {
        const adapter = mergedWrites(checkpointer);
        const id = ids("run-args")();
        const other = step(`${id}-other`, { superstep: 0, nodeName: "n", index: 0 });
        const start = await refused(adapter.startWorkflow({ id, ...graph }, { owner: "a", ttlMs: 10_000 }, [other]));
        expect(start).toMatchObject({ path: "steps", workflowId: id });
        expect(await adapter.getWorkflow(id)).toBeUndefined();
        const { lease } = await adapter.startWorkflow({ id, ...graph }, { owner: "a", ttlMs: 10_000 });
        const before = await storedRecords(adapter, [id]);
        const finish = await refused(
          adapter.finishWorkflow({
            workflowId: id,
            steps: [{ steps: [step(id, { superstep: 0, nodeName: "n", index: 0 })], fence: lease }],
            update: { status: "completed" },
            fence: lease,
            release: { owner: 7, epoch: "one" } as never,
          }),
        );
        expect(finish.path).toBe("release");
        expect(await storedRecords(adapter, [id])).toStrictEqual(before);
      });
    });

    it("a release that names no lease is ignored: the holder keeps it", async () => {
      await run(async (checkpointer) => {
        const id = ids("release-args")();
        await create(checkpointer, id);
        const lease = await checkpointer.claimWorkflow(id, { owner: "a", ttlMs: 10_000 });
        for (const malformed of [null, "a", { owner: "a" }, { owner: 1, epoch: lease.epoch }, { epoch: lease.epoch }]) {
          await checkpointer.releaseWorkflow(id, malformed as never);
        }
        await checkpointer.releaseWorkflow(`${id}-\uD800`, lease);
        expect((await checkpointer.getWorkflow(id))?.lease).toEqual(lease);
      });
    });

    it("listWorkflows refuses an unknown status (path 'status')", async () => {
      await run(async (checkpointer) => {
        const error = await refused(checkpointer.listWorkflows({ status: "done" as never }));
        expect(error).toMatchObject({ path: "status", operation: "listWorkflows" });
      });
    });

    it("read bounds: a fraction reads through its floor, Infinity is no bound, NaN is a CheckpointError", async () => {
      await run(async (checkpointer) => {
        const id = ids("bounds")();
        await create(checkpointer, id);
        for (const superstep of [0, 1, 2]) {
          await checkpointer.saveStep(
            step(id, { superstep, nodeName: `n${superstep}`, index: superstep, values: { v: superstep } }),
          );
        }
        expect((await checkpointer.getSteps(id, { throughSuperstep: 1.5 })).map((s) => s.index)).toEqual([0, 1]);
        expect(await checkpointer.getState(id, { throughSuperstep: 1.5 })).toEqual({ v: 1 });
        const fraction = await checkpointer.getCheckpoint(id, { superstep: 1.5 });
        expect(fraction).toMatchObject({ superstep: 1, values: { v: 1 }, versions: { v: 1 } });
        expect(fraction?.steps.map((s) => s.index)).toEqual([0, 1]);
        expect((await checkpointer.getCheckpoint(id, { superstep: Number.POSITIVE_INFINITY }))?.superstep).toBe(2);
        expect(await checkpointer.getSteps(id, { throughSuperstep: Number.POSITIVE_INFINITY })).toHaveLength(3);
        for (const call of [
          checkpointer.getSteps(id, { throughSuperstep: Number.NaN }),
          checkpointer.getState(id, { throughSuperstep: Number.NaN }),
          checkpointer.getCheckpoint(id, { superstep: Number.NaN }),
        ]) {
          expect((await refused(call)).message).toContain("the superstep bound must be a number");
        }
      });
    });
  });
}
