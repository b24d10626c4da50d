/**
 * Storage conformance, area "times" (continued): random sequences of due-time and wait writes — set, clear, status
 * changes, stale fences, deletes — checked after every step against a model of the contract. Seeded, so a failure
 * names the seed and the step and replays the same way.
 */
import type { EventWait, Lease, WorkflowStatus } from "@graph/checkpoint";
import { expect, it } from "vitest";
import { assertConflictError, ids, rejection } from "../fixtures.js";
import type { StorageContext } from "./helpers.js";
import { SLOW } from "./helpers.js";
import { cleanUp, dueList, type TimedCheckpointer, timed, timeRange, uniqueWait } from "./timeHelpers.js";

interface Modelled {
  status: WorkflowStatus;
  wakeAt: number | undefined;
  wait: EventWait | undefined;
  createdAt: number;
  lease: Lease;
}

const STATUSES: readonly WorkflowStatus[] = ["paused", "running", "completed", "failed", "stopped"];
const WORKFLOWS = 6;
const STEPS = 40;

/** A small seeded generator (a linear congruential one): the same seed, the same sequence. */
function generator(seed: number): (below: number) => number {
  let state = seed;
  return (below) => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return Math.floor((state / 2_147_483_648) * below);
  };
}

/** Runs one seeded sequence on `checkpointer`, comparing the three queries with the model after every step. */
async function runSequence(checkpointer: TimedCheckpointer, seed: number): Promise<void> {
  const at = timeRange();
  const waits = [uniqueWait("order.picked-up"), uniqueWait("order.delivered")];
  const name = ids(`model-${seed}`);
  const idOf = (i: number) => name(`w${i}`);
  const model = new Map<string, Modelled>();
  const random = generator(seed);
  const born = async (id: string): Promise<void> => {
    const { workflow } = await checkpointer.createWorkflow({ id, graphName: "g", graphHash: "h" });
    const lease = await checkpointer.claimWorkflow(id, { owner: "model", ttlMs: 60_000 });
    model.set(id, {
      status: "running",
      wakeAt: undefined,
      wait: undefined,
      createdAt: workflow.createdAt.getTime(),
      lease,
    });
  };
  for (let i = 0; i < WORKFLOWS; i++) await born(idOf(i));
  const expectMatches = async (step: string) => {
    const keeps = (m: Modelled) => m.status === "paused" || m.status === "running";
    const due = [...model.entries()]
      .filter(([, m]) => m.wakeAt !== undefined && keeps(m))
      .map(([id, m]) => [id, m.wakeAt!] as const)
      .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1));
    expect(await dueList(checkpointer, at(1000), 500), step).toStrictEqual(due);
    const next = await checkpointer.nextDue();
    if (due.length > 0) expect(next, step).toStrictEqual(new Date(due[0]![1]));
    // Nothing of this sequence is due: whatever else the store holds is later than its range.
    else expect(next === undefined || next.getTime() > at(1000).getTime(), step).toBe(true);
    for (const wait of waits) {
      const waiting = [...model.entries()]
        .filter(([, m]) => m.status === "paused" && m.wait?.event === wait.event && m.wait.key === wait.key)
        .sort((a, b) => a[1].createdAt - b[1].createdAt || (a[0] < b[0] ? -1 : 1))
        .map(([id]) => id);
      expect(await checkpointer.listWaiting(wait), step).toStrictEqual(waiting);
    }
  };
  for (let n = 0; n < STEPS; n++) {
    const id = idOf(random(WORKFLOWS));
    const current = model.get(id);
    const step = `seed ${seed}, step ${n} on ${id}`;
    if (current === undefined) {
      await born(id);
    } else {
      const fence = { epoch: current.lease.epoch };
      const kind = random(7);
      if (kind === 0) {
        const wakeAt = at(random(1000));
        await checkpointer.updateWorkflow(id, { wakeAt }, fence);
        if (current.status === "paused" || current.status === "running") current.wakeAt = wakeAt.getTime();
      } else if (kind === 1) {
        const wait = waits[random(2)]!;
        await checkpointer.updateWorkflow(id, { waitingFor: wait }, fence);
        if (current.status === "paused" || current.status === "running") current.wait = wait;
      } else if (kind === 2) {
        const clearsWake = random(2) === 0;
        await checkpointer.updateWorkflow(id, clearsWake ? { wakeAt: null } : { waitingFor: null }, fence);
        if (clearsWake) current.wakeAt = undefined;
        else current.wait = undefined;
      } else if (kind === 3) {
        const status = STATUSES[random(STATUSES.length)]!;
        await checkpointer.updateWorkflow(id, { status }, fence);
        current.status = status;
        if (status !== "paused" && status !== "running") {
          current.wakeAt = undefined;
          current.wait = undefined;
        }
      } else if (kind === 4) {
        // A stale fence changes nothing.
        const error = await rejection(
          checkpointer.updateWorkflow(
            id,
            { status: "paused", wakeAt: at(random(1000)), waitingFor: waits[0]! },
            {
              epoch: fence.epoch + 1,
            },
          ),
        );
        assertConflictError(error);
        expect(error.reason, step).toBe("stale-fence");
      } else if (kind === 5) {
        const status = random(2) === 0 ? "paused" : "completed";
        const wakeAt = at(random(1000));
        const wait = waits[random(2)]!;
        await checkpointer.finishWorkflow!({ workflowId: id, update: { status, wakeAt, waitingFor: wait }, fence });
        current.status = status;
        current.wakeAt = status === "paused" ? wakeAt.getTime() : undefined;
        current.wait = status === "paused" ? wait : undefined;
      } else {
        await checkpointer.deleteWorkflow(id);
        model.delete(id);
      }
    }
    await expectMatches(step);
  }
  await cleanUp(checkpointer, [...model.keys()]);
}

/** Registers the model test of the "times" area. */
export function describeTimeModel({ run }: StorageContext): void {
  it(
    "random sequences of writes, stale fences and deletes: the queries always match a model of the contract",
    async () => {
      await run(async (store) => {
        const checkpointer = timed(store);
        for (const seed of [1, 2, 3]) await runSequence(checkpointer, seed);
      });
    },
    SLOW,
  );
}
