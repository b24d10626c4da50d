/**
 * The in-memory checkpointer's answers to `listDue`, `nextDue` and `listWaiting`: scans of its workflows (it keeps
 * no index; the SQL and Redis stores answer from one). Only paused and running workflows ever hold a due time or a
 * wait (see `keepsTimes`), so the due list needs no status filter.
 */
import type { DueWorkflow, EventWait } from "../Checkpointer.js";
import { compareWorkflowPosition } from "../state.js";
import type { StoredWorkflow } from "./memoryRecords.js";
import { compareDue } from "./time.js";

/** Workflows with a due time, earliest first (ties by id). */
function dueSorted(workflows: Iterable<StoredWorkflow>): { readonly id: string; readonly wakeAt: number }[] {
  const due: { id: string; wakeAt: number }[] = [];
  for (const workflow of workflows) {
    if (workflow.wakeAt !== undefined) due.push({ id: workflow.id, wakeAt: workflow.wakeAt });
  }
  return due.sort(compareDue);
}

/** `listDue` over checked options (`before` in ms). */
export function listDueOf(workflows: Iterable<StoredWorkflow>, before: number, limit: number): DueWorkflow[] {
  return dueSorted(workflows)
    .filter((due) => due.wakeAt <= before)
    .slice(0, limit)
    .map((due) => ({ id: due.id, wakeAt: new Date(due.wakeAt) }));
}

/** `nextDue`: the earliest due time. */
export function nextDueOf(workflows: Iterable<StoredWorkflow>): Date | undefined {
  const earliest = dueSorted(workflows)[0];
  return earliest === undefined ? undefined : new Date(earliest.wakeAt);
}

/** `listWaiting` over a checked wait: paused workflows with exactly this event and key, oldest first. */
export function listWaitingOf(workflows: Iterable<StoredWorkflow>, wait: EventWait, limit: number): string[] {
  const matching: { createdAt: Date; id: string }[] = [];
  for (const workflow of workflows) {
    const waiting = workflow.waitingFor;
    if (workflow.status === "paused" && waiting?.event === wait.event && waiting.key === wait.key) {
      matching.push({ createdAt: new Date(workflow.createdAt), id: workflow.id });
    }
  }
  return matching
    .sort(compareWorkflowPosition)
    .slice(0, limit)
    .map((position) => position.id);
}
