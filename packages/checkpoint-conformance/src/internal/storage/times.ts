/**
 * Storage conformance, area "times": due times (`wakeAt`) and event waits (`waitingFor`) — a delayed start, set and
 * clear in the fenced writes (`updateWorkflow`, `finishWorkflow`), a stale fence writing nothing, terminal statuses
 * clearing both, deletion cleaning the indexes. The queries' order and limits are in `timeQueries.ts`.
 */
import type { Checkpointer, Fence } from "@graph/checkpoint";
import { describe, expect, it } from "vitest";
import { assertConflictError, ids, rejection, step } from "../fixtures.js";
import type { StorageContext } from "./helpers.js";
import { create, storedRecords } from "./helpers.js";
import { cleanUp, dueList, parked, timed, timeRange, uniqueWait } from "./timeHelpers.js";
import { describeTimeModel } from "./timeModel.js";
import { describeBadTimes, describeTimeQueries } from "./timeQueries.js";

/** A workflow claimed by "a", released, then claimed by "b": `stale` is a's fence, `current` b's. */
async function takenOver(checkpointer: Checkpointer, id: string) {
  const first = await checkpointer.claimWorkflow(id, { owner: "a", ttlMs: 10_000 });
  await checkpointer.releaseWorkflow(id, first);
  const second = await checkpointer.claimWorkflow(id, { owner: "b", ttlMs: 10_000 });
  return { stale: { epoch: first.epoch } satisfies Fence, current: second };
}

/** Registers the "times" tests. */
export function describeTimes(context: StorageContext): void {
  const { run } = context;
  describe("due times and event waits", () => {
    it("a delayed start creates the workflow paused with its due time (createWorkflow and startWorkflow)", async () => {
      await run(async (store) => {
        const checkpointer = timed(store);
        const at = timeRange();
        const id = ids("delayed")();
        const created = await checkpointer.createWorkflow({ id, graphName: "g", graphHash: "h", wakeAt: at(5) });
        expect(created.created).toBe(true);
        expect(created.workflow.status).toBe("paused");
        expect(created.workflow.wakeAt).toStrictEqual(at(5));
        expect(created.workflow.waitingFor).toBeUndefined();
        expect(created.workflow.lease).toBeUndefined();
        expect(await checkpointer.getWorkflow(id)).toStrictEqual(created.workflow);
        // Creating it again changes nothing: the stored due time stays.
        const again = await checkpointer.createWorkflow({ id, graphName: "g", graphHash: "h", wakeAt: at(9) });
        expect(again).toStrictEqual({ workflow: created.workflow, created: false });

        const started = ids("delayed-start")();
        const claim = { owner: "starter", ttlMs: 10_000 };
        const result = await checkpointer.startWorkflow!(
          { id: started, graphName: "g", graphHash: "h", wakeAt: at(3) },
          claim,
          [step(started, { superstep: 0, nodeName: ".input", index: 0, kind: "input", values: { q: 1 } })],
        );
        expect(result.created).toBe(true);
        expect(result.workflow.status).toBe("paused");
        expect(result.workflow.wakeAt).toStrictEqual(at(3));
        expect(result.lease.epoch).toBe(1);
        expect(await checkpointer.getState(started)).toStrictEqual({ q: 1 });
        // Without steps too (the SQL store then inserts the row with its lease in one statement).
        const bare = ids("delayed-bare")();
        const alone = await checkpointer.startWorkflow!(
          { id: bare, graphName: "g", graphHash: "h", wakeAt: at(4) },
          claim,
        );
        expect(alone.workflow.status).toBe("paused");
        expect(alone.workflow.wakeAt).toStrictEqual(at(4));
        expect(alone.workflow.lease).toStrictEqual(alone.lease);
        expect(await dueList(checkpointer, at(10))).toStrictEqual([
          [started, at(3).getTime()],
          [bare, at(4).getTime()],
          [id, at(5).getTime()],
        ]);
        // Without wakeAt a new workflow is running and has no due time.
        const plain = await create(checkpointer, ids("undelayed")());
        expect(plain.status).toBe("running");
        expect("wakeAt" in plain).toBe(false);
        expect("waitingFor" in plain).toBe(false);
        await cleanUp(checkpointer, [id, started, bare, plain.id]);
      });
    });

    it("updateWorkflow sets (a value), keeps (undefined) and clears (null) wakeAt and waitingFor, fenced", async () => {
      await run(async (store) => {
        const checkpointer = timed(store);
        const at = timeRange();
        const wait = uniqueWait();
        const id = ids("set-clear")();
        await create(checkpointer, id);
        const lease = await checkpointer.claimWorkflow(id, { owner: "a", ttlMs: 10_000 });
        const fence = { epoch: lease.epoch };
        const pause = { nodeName: "ask", value: { q: "?" }, responseKey: "answer" };
        const set = await checkpointer.updateWorkflow(
          id,
          { status: "paused", pause, wakeAt: at(7), waitingFor: wait },
          fence,
        );
        expect(set.status).toBe("paused");
        expect(set.wakeAt).toStrictEqual(at(7));
        expect(set.waitingFor).toStrictEqual(wait);
        expect(await checkpointer.getWorkflow(id)).toStrictEqual(set);
        expect(await checkpointer.listWaiting(wait)).toContain(id);
        // An update that says nothing about them keeps them.
        const kept = await checkpointer.updateWorkflow(id, { graphHash: "h2" }, fence);
        expect(kept.wakeAt).toStrictEqual(at(7));
        expect(kept.waitingFor).toStrictEqual(wait);
        // Moving the due time replaces it in the index.
        const moved = await checkpointer.updateWorkflow(id, { wakeAt: at(2) }, fence);
        expect(moved.wakeAt).toStrictEqual(at(2));
        expect(await dueList(checkpointer, at(10))).toStrictEqual([[id, at(2).getTime()]]);
        const cleared = await checkpointer.updateWorkflow(id, { wakeAt: null }, fence);
        expect("wakeAt" in cleared).toBe(false);
        expect(cleared.waitingFor).toStrictEqual(wait);
        expect(await dueList(checkpointer, at(10))).toStrictEqual([]);
        const unwaited = await checkpointer.updateWorkflow(id, { waitingFor: null }, fence);
        expect("waitingFor" in unwaited).toBe(false);
        expect(await checkpointer.listWaiting(wait)).not.toContain(id);
        expect(unwaited.status).toBe("paused");
        expect(unwaited.pause).toStrictEqual(pause);
        await cleanUp(checkpointer, [id]);
      });
    });

    it("a stale fence writes nothing: the record, the due list and the waiters are unchanged", async () => {
      await run(async (store) => {
        const checkpointer = timed(store);
        const at = timeRange();
        const wait = uniqueWait();
        const id = ids("stale-times")();
        const child = `${id}/inner`;
        await create(checkpointer, id);
        await parked(checkpointer, child, { parentId: id, wakeAt: at(4), waitingFor: wait });
        const { stale, current } = await takenOver(checkpointer, id);
        await checkpointer.updateWorkflow(id, { status: "paused", wakeAt: at(1) }, { epoch: current.epoch });
        const before = await storedRecords(checkpointer, [id, child]);
        const due = await dueList(checkpointer, at(10));
        expect(due).toStrictEqual([
          [id, at(1).getTime()],
          [child, at(4).getTime()],
        ]);
        const attempts = [
          () => checkpointer.updateWorkflow(id, { wakeAt: at(0) }, stale),
          () => checkpointer.updateWorkflow(id, { wakeAt: null, status: "running" }, stale),
          () => checkpointer.updateWorkflow(id, { waitingFor: wait }, stale),
          () => checkpointer.updateWorkflow(id, { status: "completed" }, stale),
          () => checkpointer.updateWorkflow(child, { wakeAt: null, waitingFor: null }, { ...stale, workflowId: id }),
          () => checkpointer.updateWorkflow(child, { status: "failed" }, { ...stale, workflowId: id }),
          () =>
            checkpointer.finishWorkflow!({
              workflowId: id,
              update: { status: "completed", wakeAt: null },
              fence: stale,
              release: { owner: "a", epoch: stale.epoch },
            }),
          () =>
            checkpointer.finishWorkflow!({
              workflowId: id,
              steps: [
                {
                  steps: [step(child, { superstep: 0, nodeName: "n", index: 0 })],
                  fence: { ...stale, workflowId: id },
                },
              ],
              update: { wakeAt: at(0) },
              fence: { epoch: current.epoch },
            }),
        ];
        for (const attempt of attempts) {
          const error = await rejection(attempt());
          assertConflictError(error);
          expect(error.reason).toBe("stale-fence");
          expect(error.workflowId).toBe(id);
        }
        expect(await storedRecords(checkpointer, [id, child])).toStrictEqual(before);
        expect(await dueList(checkpointer, at(10))).toStrictEqual(due);
        expect(await checkpointer.listWaiting(wait)).toStrictEqual([child]);
        await cleanUp(checkpointer, [id]);
      });
    });

    it("finishWorkflow sets and clears them with the status in its one write", async () => {
      await run(async (store) => {
        const checkpointer = timed(store);
        const at = timeRange();
        const wait = uniqueWait();
        const id = ids("finish-times")();
        await create(checkpointer, id);
        const lease = await checkpointer.claimWorkflow(id, { owner: "a", ttlMs: 10_000 });
        const sleeping = await checkpointer.finishWorkflow!({
          workflowId: id,
          steps: [{ steps: [step(id, { superstep: 0, nodeName: "nap", index: 0 })], fence: { epoch: lease.epoch } }],
          update: { status: "paused", wakeAt: at(6), waitingFor: wait },
          fence: { epoch: lease.epoch },
          release: lease,
        });
        expect(sleeping.status).toBe("paused");
        expect(sleeping.wakeAt).toStrictEqual(at(6));
        expect(sleeping.waitingFor).toStrictEqual(wait);
        expect(sleeping.lease).toBeUndefined();
        expect(await dueList(checkpointer, at(10))).toStrictEqual([[id, at(6).getTime()]]);
        // The resume: claimed, running with the due time cleared, then paused again without one.
        const again = await checkpointer.claimWorkflow(id, { owner: "b", ttlMs: 10_000 });
        const resumed = await checkpointer.updateWorkflow(
          id,
          { status: "running", wakeAt: null, waitingFor: null },
          { epoch: again.epoch },
        );
        expect(resumed.status).toBe("running");
        expect("wakeAt" in resumed || "waitingFor" in resumed).toBe(false);
        expect(await dueList(checkpointer, at(10))).toStrictEqual([]);
        expect(await checkpointer.listWaiting(wait)).toStrictEqual([]);
        await cleanUp(checkpointer, [id]);
      });
    });

    it("a terminal status clears the due time and the wait, whatever the update says about them", async () => {
      await run(async (store) => {
        const checkpointer = timed(store);
        const at = timeRange();
        const wait = uniqueWait();
        const name = ids("terminal");
        const statuses = ["completed", "failed", "stopped"] as const;
        for (const status of statuses) {
          const id = name(status);
          await parked(checkpointer, id, { wakeAt: at(1), waitingFor: wait });
          const ended = await checkpointer.updateWorkflow(id, { status, wakeAt: at(2), waitingFor: wait });
          expect(ended.status).toBe(status);
          expect("wakeAt" in ended || "waitingFor" in ended).toBe(false);
          // Setting them on a workflow that already ended stores nothing either.
          const later = await checkpointer.updateWorkflow(id, { wakeAt: at(3), waitingFor: wait });
          expect("wakeAt" in later || "waitingFor" in later).toBe(false);
          expect(await checkpointer.getWorkflow(id)).toStrictEqual(later);
        }
        // finishWorkflow to a terminal status, and requestStop of a paused workflow.
        const finished = name("finished");
        await parked(checkpointer, finished, { wakeAt: at(1), waitingFor: wait });
        const lease = await checkpointer.claimWorkflow(finished, { owner: "a", ttlMs: 10_000 });
        const done = await checkpointer.finishWorkflow!({
          workflowId: finished,
          update: { status: "completed", pause: null },
          fence: { epoch: lease.epoch },
          release: lease,
        });
        expect("wakeAt" in done || "waitingFor" in done).toBe(false);
        const cancelled = name("cancelled");
        await parked(checkpointer, cancelled, { wakeAt: at(1), waitingFor: wait });
        const stopped = await checkpointer.requestStop(cancelled, { info: "cancel" });
        expect(stopped?.status).toBe("stopped");
        expect("wakeAt" in (stopped ?? {}) || "waitingFor" in (stopped ?? {})).toBe(false);
        expect(await checkpointer.getWorkflow(cancelled)).toStrictEqual(stopped);
        expect(await dueList(checkpointer, at(10))).toStrictEqual([]);
        expect(await checkpointer.listWaiting(wait)).toStrictEqual([]);
        // A stop requested while a holder runs it only flags it: the due time stays until the holder ends it.
        const held = name("held");
        await create(checkpointer, held);
        const holder = await checkpointer.claimWorkflow(held, { owner: "h", ttlMs: 10_000 });
        await checkpointer.updateWorkflow(held, { wakeAt: at(4) }, { epoch: holder.epoch });
        expect((await checkpointer.requestStop(held))?.wakeAt).toStrictEqual(at(4));
        expect(await dueList(checkpointer, at(10))).toStrictEqual([[held, at(4).getTime()]]);
        await cleanUp(checkpointer, [...statuses.map((status) => name(status)), finished, cancelled, held]);
      });
    });

    it("deleteWorkflow removes the workflow and its children from the due list and the waiters", async () => {
      await run(async (store) => {
        const checkpointer = timed(store);
        const at = timeRange();
        const wait = uniqueWait();
        const root = ids("delete-times")();
        const other = ids("delete-other")();
        await parked(checkpointer, root, { wakeAt: at(3), waitingFor: wait });
        await parked(checkpointer, `${root}/a`, { parentId: root, wakeAt: at(1), waitingFor: wait });
        await parked(checkpointer, `${root}/a/0`, { parentId: `${root}/a`, wakeAt: at(2) });
        await parked(checkpointer, other, { wakeAt: at(5), waitingFor: wait });
        expect((await dueList(checkpointer, at(10))).map(([id]) => id)).toStrictEqual([
          `${root}/a`,
          `${root}/a/0`,
          root,
          other,
        ]);
        expect(await checkpointer.nextDue()).toStrictEqual(at(1));
        await checkpointer.deleteWorkflow(root);
        expect(await dueList(checkpointer, at(10))).toStrictEqual([[other, at(5).getTime()]]);
        expect(await checkpointer.listWaiting(wait)).toStrictEqual([other]);
        expect(await checkpointer.nextDue()).toStrictEqual(at(5));
        // A workflow created again under a deleted id starts without the old due time.
        const fresh = await create(checkpointer, root);
        expect("wakeAt" in fresh || "waitingFor" in fresh).toBe(false);
        expect(await checkpointer.listWaiting(wait)).toStrictEqual([other]);
        await cleanUp(checkpointer, [root, other]);
        const next = await checkpointer.nextDue();
        expect(next === undefined || next.getTime() > at(10).getTime()).toBe(true);
      });
    });

    describeTimeQueries(context);
    describeTimeModel(context);
    describeBadTimes(context);
  });
}
