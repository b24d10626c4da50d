/**
 * The stored workflows of the scale area, written the way runs write them: a start with its lease, one step, and
 * the final update with the lease given back — in the mix 40% completed, 20% paused for an answer, 15% sleeping,
 * 15% waiting for an event, 10% failed; every hundredth (from the 8th) belongs to the graph "rare" and is paused.
 */
import type { Checkpointer, StepRecord, WorkflowUpdate } from "@graph/checkpoint";

const DAY = 86_400_000;

/** The graph of 1% of the workflows (what a bulk operation over 1% filters on). */
export const RARE_GRAPH = "rare";

/** The id of the i-th stored workflow: ids sort like their numbers, so a prefix selects a known range. */
export function scaleId(base: string, i: number): string {
  return `${base}-${String(i).padStart(8, "0")}`;
}

/** Whether the i-th workflow is of the rare graph. */
export function isRare(i: number): boolean {
  return i % 100 === 7;
}

/** How many of the first `count` workflows are of the rare graph. */
export function rareCount(count: number): number {
  return count <= 7 ? 0 : Math.floor((count - 8) / 100) + 1;
}

function ending(i: number): WorkflowUpdate {
  const slot = isRare(i) ? 8 : i % 20;
  if (slot < 8) return { status: "completed" };
  if (slot < 12) return { status: "paused", pause: { nodeName: "ask", value: "ok?", responseKey: "answer" } };
  if (slot < 15) return { status: "paused", wakeAt: new Date(Date.now() + 30 * DAY) };
  if (slot < 18) return { status: "paused", waitingFor: { event: "order.paid", key: `order-${i}` } };
  return { status: "failed", error: { name: "Error", message: "boom" } };
}

/** Writes workflow `i` as a run would: start, one step, the final update and release. */
async function writeOne(checkpointer: Checkpointer, base: string, i: number): Promise<void> {
  const id = scaleId(base, i);
  const { lease } = await checkpointer.startWorkflow!(
    { id, graphName: isRare(i) ? RARE_GRAPH : "app", graphHash: "h1" },
    { owner: "filler", ttlMs: 60_000 },
  );
  const now = new Date();
  const step: StepRecord = {
    workflowId: id,
    superstep: 0,
    nodeName: "work",
    index: 1,
    status: "completed",
    inputVersions: { input: 0 },
    values: { out: i },
    truncated: false,
    startedAt: now,
    completedAt: now,
  };
  await checkpointer.finishWorkflow!({
    workflowId: id,
    steps: [{ steps: [step], fence: { epoch: lease.epoch } }],
    update: ending(i),
    fence: { epoch: lease.epoch },
    release: { owner: "filler", epoch: lease.epoch },
  });
}

/** Writes workflows `from` to `to - 1`, `concurrency` at a time. */
export async function fillWorkflows(
  checkpointer: Checkpointer,
  base: string,
  from: number,
  to: number,
  concurrency: number,
): Promise<void> {
  let next = from;
  const worker = async () => {
    for (let i = next++; i < to; i = next++) await writeOne(checkpointer, base, i);
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
}
