/**
 * Storage conformance, area "times" (continued): what `listDue`, `nextDue` and `listWaiting` answer — statuses,
 * order, ties, bounds, limits, exact matching, many workflows — and the inputs they and the writes refuse.
 */
import { expect, it } from "vitest";
import { assertCheckpointError, ids, rejection, sleep } from "../fixtures.js";
import type { StorageContext } from "./helpers.js";
import { create, SLOW, storedRecords } from "./helpers.js";
import { cleanUp, dueList, parked, timed, timeRange, uniqueWait } from "./timeHelpers.js";

/** Registers the query tests of the "times" area. */
export function describeTimeQueries({ run }: StorageContext): void {
  it("listDue: paused and running workflows due at or before `before`, earliest first, ties by id", async () => {
    await run(async (store) => {
      const checkpointer = timed(store);
      const at = timeRange();
      const name = ids("due-order");
      await parked(checkpointer, name("c"), { wakeAt: at(20) });
      await parked(checkpointer, name("b"), { wakeAt: at(10), status: "running" });
      await parked(checkpointer, name("a"), { wakeAt: at(10) });
      await parked(checkpointer, name("d"), { wakeAt: at(30) });
      await parked(checkpointer, name("waiting-only"), { waitingFor: uniqueWait() });
      await parked(checkpointer, name("nothing"), {});
      expect(await dueList(checkpointer, at(9))).toStrictEqual([]);
      // `before` is inclusive.
      expect(await dueList(checkpointer, at(10))).toStrictEqual([
        [name("a"), at(10).getTime()],
        [name("b"), at(10).getTime()],
      ]);
      expect(await dueList(checkpointer, at(29))).toStrictEqual([
        [name("a"), at(10).getTime()],
        [name("b"), at(10).getTime()],
        [name("c"), at(20).getTime()],
      ]);
      expect(await dueList(checkpointer, at(30), 2)).toStrictEqual([
        [name("a"), at(10).getTime()],
        [name("b"), at(10).getTime()],
      ]);
      expect(await dueList(checkpointer, at(30), 1)).toStrictEqual([[name("a"), at(10).getTime()]]);
      const due = await checkpointer.listDue({ before: at(30) });
      expect(due.every((entry) => Object.keys(entry).sort().join() === "id,wakeAt")).toBe(true);
      expect(due.map((entry) => entry.id)).toStrictEqual([name("a"), name("b"), name("c"), name("d")]);
      expect(await checkpointer.nextDue()).toStrictEqual(at(10));
      await cleanUp(checkpointer, ["a", "b", "c", "d", "waiting-only", "nothing"].map(name));
    });
  });

  it("listDue and nextDue: millisecond precision, and times far apart", async () => {
    await run(async (store) => {
      const checkpointer = timed(store);
      const at = timeRange();
      const name = ids("due-precision");
      await parked(checkpointer, name("late"), { wakeAt: at(900_000_001) });
      await parked(checkpointer, name("one"), { wakeAt: at(1) });
      await parked(checkpointer, name("zero"), { wakeAt: at(0) });
      expect(await dueList(checkpointer, at(0))).toStrictEqual([[name("zero"), at(0).getTime()]]);
      expect(await dueList(checkpointer, at(900_000_000))).toStrictEqual([
        [name("zero"), at(0).getTime()],
        [name("one"), at(1).getTime()],
      ]);
      expect(await checkpointer.nextDue()).toStrictEqual(at(0));
      await checkpointer.updateWorkflow(name("zero"), { wakeAt: null });
      await checkpointer.updateWorkflow(name("one"), { status: "completed" });
      expect(await checkpointer.nextDue()).toStrictEqual(at(900_000_001));
      await cleanUp(checkpointer, ["late", "one", "zero"].map(name));
    });
  });

  it("listWaiting: paused workflows with exactly that event and key, oldest first, at most `limit`", async () => {
    await run(async (store) => {
      const checkpointer = timed(store);
      const wait = uniqueWait("order.picked-up");
      const name = ids("waiting");
      // Created in the reverse of id order, so "oldest first" and "by id" differ.
      for (const label of ["3", "2", "1"]) {
        await parked(checkpointer, name(label), { waitingFor: wait });
        await sleep(3);
      }
      const near = [
        { event: wait.event, key: `${wait.key} ` },
        { event: wait.event, key: wait.key.slice(0, -1) },
        { event: wait.event.toUpperCase(), key: wait.key },
        { event: `${wait.event}.x`, key: wait.key },
        { event: "order", key: wait.key },
      ];
      for (const [i, other] of near.entries()) await parked(checkpointer, name(`near-${i}`), { waitingFor: other });
      await parked(checkpointer, name("running"), { waitingFor: wait, status: "running" });
      expect(await checkpointer.listWaiting(wait)).toStrictEqual([name("3"), name("2"), name("1")]);
      expect(await checkpointer.listWaiting(wait, { limit: 2 })).toStrictEqual([name("3"), name("2")]);
      for (const [i, other] of near.entries()) {
        expect(await checkpointer.listWaiting(other)).toStrictEqual([name(`near-${i}`)]);
      }
      expect(await checkpointer.listWaiting({ event: wait.event, key: `${wait.key}-none` })).toStrictEqual([]);
      // A workflow that resumes (status running) is no longer a waiter, even before its wait is cleared.
      await checkpointer.updateWorkflow(name("2"), { status: "running" });
      expect(await checkpointer.listWaiting(wait)).toStrictEqual([name("3"), name("1")]);
      await checkpointer.updateWorkflow(name("2"), { status: "paused" });
      expect(await checkpointer.listWaiting(wait)).toStrictEqual([name("3"), name("2"), name("1")]);
      await checkpointer.updateWorkflow(name("3"), { waitingFor: null });
      expect(await checkpointer.listWaiting(wait)).toStrictEqual([name("2"), name("1")]);
      await cleanUp(checkpointer, ["1", "2", "3", "running", ...near.map((_, i) => `near-${i}`)].map(name));
    });
  });

  it("keys and events are compared verbatim: unicode, quotes, wildcard characters", async () => {
    await run(async (store) => {
      const checkpointer = timed(store);
      const name = ids("wait-text");
      const base = uniqueWait();
      const waits = [
        { event: "ünïcødé.🚀", key: `${base.key}✓` },
        { event: base.event, key: `${base.key}%` },
        { event: base.event, key: `${base.key}_` },
        { event: base.event, key: `${base.key}'"\\` },
        { event: "*", key: "*" },
      ];
      for (const [i, wait] of waits.entries()) {
        const record = await parked(checkpointer, name(String(i)), { waitingFor: wait });
        expect(record.waitingFor).toStrictEqual(wait);
      }
      for (const [i, wait] of waits.entries()) {
        expect(await checkpointer.listWaiting(wait)).toStrictEqual([name(String(i))]);
      }
      await cleanUp(
        checkpointer,
        waits.map((_, i) => name(String(i))),
      );
    });
  });

  it(
    "many workflows: the due list and the waiters match a model, page by page",
    async () => {
      await run(async (store) => {
        const checkpointer = timed(store);
        const at = timeRange();
        const wait = uniqueWait();
        const name = ids("due-many");
        const model: [string, number][] = [];
        let seed = 7;
        const random = () => {
          seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
          return seed;
        };
        for (let i = 0; i < 240; i++) {
          const id = name(String(i).padStart(3, "0"));
          const offset = random() % 60; // many ties
          await parked(checkpointer, id, { wakeAt: at(offset), ...(i % 2 === 0 ? { waitingFor: wait } : {}) });
          model.push([id, at(offset).getTime()]);
        }
        model.sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1));
        expect(await dueList(checkpointer, at(60))).toStrictEqual(model.slice(0, 100));
        expect(await dueList(checkpointer, at(60), 500)).toStrictEqual(model);
        expect(await dueList(checkpointer, at(29), 500)).toStrictEqual(
          model.filter(([, ms]) => ms <= at(29).getTime()),
        );
        expect(await checkpointer.nextDue()).toStrictEqual(new Date(model[0]![1]));
        const waiters = model
          .map(([id]) => id)
          .filter((id) => Number(id.slice(-3)) % 2 === 0)
          .sort();
        const listed = await checkpointer.listWaiting(wait, { limit: 500 });
        expect([...listed].sort()).toStrictEqual(waiters);
        expect(await checkpointer.listWaiting(wait)).toStrictEqual(listed.slice(0, 100));
        await cleanUp(
          checkpointer,
          model.map(([id]) => id),
        );
        expect(await dueList(checkpointer, at(60))).toStrictEqual([]);
        expect(await checkpointer.listWaiting(wait)).toStrictEqual([]);
      });
    },
    SLOW,
  );
}

/** Registers the bad-input tests of the "times" area. */
export function describeBadTimes({ run }: StorageContext): void {
  it("bad due times and waits are refused with a CheckpointError naming the field; nothing is written", async () => {
    await run(async (store) => {
      const checkpointer = timed(store);
      const id = ids("bad-times")();
      await parked(checkpointer, id, {});
      const before = await storedRecords(checkpointer, [id]);
      const refused = async (call: () => Promise<unknown>, path: string, part: string) => {
        const error = await rejection(call());
        assertCheckpointError(error);
        expect(error.path).toBe(path);
        expect(error.message).toContain(part);
      };
      const bad = checkpointer as unknown as {
        updateWorkflow(id: string, update: unknown): Promise<unknown>;
        createWorkflow(workflow: unknown): Promise<unknown>;
        listDue(options: unknown): Promise<unknown>;
        listWaiting(wait: unknown, options?: unknown): Promise<unknown>;
      };
      await refused(() => bad.updateWorkflow(id, { wakeAt: new Date(Number.NaN) }), "wakeAt", "an invalid Date");
      await refused(() => bad.updateWorkflow(id, { wakeAt: Date.now() }), "wakeAt", "must be a valid Date");
      await refused(() => bad.updateWorkflow(id, { wakeAt: "2030-01-01" }), "wakeAt", "must be a valid Date");
      await refused(() => bad.updateWorkflow(id, { waitingFor: "ticket" }), "waitingFor", "must be { event, key }");
      await refused(() => bad.updateWorkflow(id, { waitingFor: { event: "e" } }), "waitingFor.key", "non-empty string");
      await refused(
        () => bad.updateWorkflow(id, { waitingFor: { event: "", key: "k" } }),
        "waitingFor.event",
        "non-empty",
      );
      await refused(
        () => bad.updateWorkflow(id, { waitingFor: { event: "e", key: "a\u0000b" } }),
        "waitingFor.key",
        "NUL",
      );
      await refused(
        () => bad.updateWorkflow(id, { waitingFor: { event: "e", key: "\uD800" } }),
        "waitingFor.key",
        "surrogate",
      );
      await refused(
        () => bad.updateWorkflow(id, { waitingFor: { event: "e", key: "k".repeat(1025) } }),
        "waitingFor.key",
        "at most 1024 UTF-8 bytes",
      );
      await refused(
        () => bad.updateWorkflow(id, { waitingFor: { event: "é".repeat(129), key: "k" } }),
        "waitingFor.event",
        "at most 256 UTF-8 bytes",
      );
      // A bad wait next to a good status: the whole update is refused.
      await refused(
        () => bad.updateWorkflow(id, { status: "running", wakeAt: new Date(Number.NaN) }),
        "wakeAt",
        "Date",
      );
      expect(await storedRecords(checkpointer, [id])).toStrictEqual(before);
      const unborn = ids("bad-delayed")();
      await refused(
        () => bad.createWorkflow({ id: unborn, graphName: "g", graphHash: "h", wakeAt: 5 }),
        "wakeAt",
        "must be a valid Date",
      );
      expect(await checkpointer.getWorkflow(unborn)).toBeUndefined();
      await refused(() => bad.listDue({}), "before", "must be a valid Date");
      await refused(() => bad.listDue({ before: new Date(), limit: 0 }), "limit", "positive integer");
      await refused(() => bad.listDue({ before: new Date(), limit: 1.5 }), "limit", "positive integer");
      await refused(() => bad.listWaiting({ event: "e" }), "wait.key", "non-empty string");
      await refused(() => bad.listWaiting({ event: "e", key: "k" }, { limit: -1 }), "limit", "positive integer");
      await cleanUp(checkpointer, [id]);
    });
  });

  it("updates to an unknown workflow are refused with a CheckpointError and index nothing", async () => {
    await run(async (store) => {
      const checkpointer = timed(store);
      const at = timeRange();
      const wait = uniqueWait();
      const id = ids("unknown-times")();
      const error = await rejection(checkpointer.updateWorkflow(id, { wakeAt: at(1), waitingFor: wait }));
      assertCheckpointError(error);
      expect(error.workflowId).toBe(id);
      expect(await dueList(checkpointer, at(10))).toStrictEqual([]);
      expect(await checkpointer.listWaiting(wait)).toStrictEqual([]);
      await create(checkpointer, id);
      expect(await dueList(checkpointer, at(10))).toStrictEqual([]);
      await cleanUp(checkpointer, [id]);
    });
  });
}
