/** Helpers of the storage area "times" (due times and event waits). */
import type { Checkpointer, EventWait, WorkflowRecord } from "@graph/checkpoint";
import { ids } from "../fixtures.js";
import { create, mergedWrites } from "./helpers.js";

/** A checkpointer with the time queries, which the kit holds every backend to. */
export type TimedCheckpointer = Checkpointer & Required<Pick<Checkpointer, "listDue" | "nextDue" | "listWaiting">>;

/** The checkpointer as one with `listDue`, `nextDue` and `listWaiting` (and the merged run writes). */
export function timed(checkpointer: Checkpointer): TimedCheckpointer {
  mergedWrites(checkpointer);
  const missing = (["listDue", "nextDue", "listWaiting"] as const).filter((name) => checkpointer[name] === undefined);
  if (missing.length > 0) {
    throw new Error(
      `This checkpointer has no ${missing.join(" / ")}. The conformance kit holds every backend to the due-time ` +
        "and event-wait queries: store wakeAt and waitingFor with the record (same fenced write) and answer them " +
        "from an index (see docs/adapters.md, 'Due times and event waits').",
    );
  }
  return checkpointer as TimedCheckpointer;
}

let slot = 0;

/**
 * A range of due times no other test of this run uses, below every range handed out before: a test's `listDue`
 * bound (inside its range) then never sees what an earlier test of the same store left behind. Far in the past,
 * so the times of engine tests sharing the store (the real clock) are always later.
 */
export function timeRange(): (offsetMs: number) => Date {
  slot += 1;
  const base = Date.UTC(1990, 0, 1) - slot * 1_000_000_000;
  return (offsetMs) => new Date(base + offsetMs);
}

/** An event wait no other test uses (its key holds a fresh id), so `listWaiting` sees only this test's waiters. */
export function uniqueWait(event = "ticket.replied"): EventWait {
  return { event, key: JSON.stringify({ ticketId: ids("wait")() }) };
}

/** Creates workflow `id` and sets its status and due time / wait (unfenced: nobody holds it). */
export async function parked(
  checkpointer: Checkpointer,
  id: string,
  fields: {
    readonly status?: "paused" | "running";
    readonly wakeAt?: Date;
    readonly waitingFor?: EventWait;
    readonly parentId?: string;
  },
): Promise<WorkflowRecord> {
  await create(checkpointer, id, fields.parentId);
  return checkpointer.updateWorkflow(id, {
    status: fields.status ?? "paused",
    ...(fields.wakeAt === undefined ? {} : { wakeAt: fields.wakeAt }),
    ...(fields.waitingFor === undefined ? {} : { waitingFor: fields.waitingFor }),
  });
}

/** Deletes the given workflows (their due times and waits with them), for the tests that follow on one store. */
export async function cleanUp(checkpointer: Checkpointer, workflowIds: readonly string[]): Promise<void> {
  for (const id of workflowIds) await checkpointer.deleteWorkflow(id);
}

/** `listDue` as `[id, ms]` pairs: one exact value to compare. */
export async function dueList(
  checkpointer: TimedCheckpointer,
  before: Date,
  limit?: number,
): Promise<readonly (readonly [string, number])[]> {
  const due = await checkpointer.listDue(limit === undefined ? { before } : { before, limit });
  return due.map((entry) => [entry.id, entry.wakeAt.getTime()] as const);
}
