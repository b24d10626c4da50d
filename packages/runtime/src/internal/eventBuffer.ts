/**
 * Events kept for a `waitFor` reached later (`runner.send(event, payload, { buffer })`). A kept event is a small
 * record in the store — a child of the reserved root `~events`, so listings of root workflows never show it — that
 * "waits" under the event name `~buffered:<event>` with the same match key, so the store's own `listWaiting` index
 * finds it. Taking one is a `claimWorkflow` (exclusive across processes) followed by its deletion: an event is used
 * by one workflow at most.
 */
import { randomUUID } from "node:crypto";
import { type Checkpointer, isCheckpointError, isWorkflowConflictError } from "@graph/checkpoint";

const PARENT = "~events";
const GRAPH = "~event";
/** The graph name of kept-event records: never a workflow of the user's (bulk operations skip them). */
export const KEPT_EVENT_GRAPH = GRAPH;
const BUFFERED = "~buffered:";
/** A buffered event's own event name must fit the store's limit on event names (256 bytes). */
export const MAX_BUFFERED_EVENT_BYTES = 256 - BUFFERED.length;

interface Kept {
  readonly event: string;
  readonly keys: readonly string[];
  readonly payload: Readonly<Record<string, unknown>>;
  readonly expiresAt: number;
}

/** Keeps `payload` until `expiresAt` for the first workflow waiting for `event` with match key `key`. */
export async function keepEvent(
  checkpointer: Checkpointer,
  kept: Kept & { readonly key: string },
  now: number,
): Promise<void> {
  const id = `${PARENT}/${now.toString(36)}-${randomUUID().slice(0, 12)}`;
  await checkpointer.createWorkflow({ id, graphName: GRAPH, graphHash: "-", parentId: PARENT });
  const lease = await checkpointer.claimWorkflow(id, { owner: `send-${randomUUID()}`, ttlMs: 30_000 });
  const value: Kept = { event: kept.event, keys: kept.keys, payload: kept.payload, expiresAt: kept.expiresAt };
  await checkpointer.updateWorkflow(
    id,
    {
      status: "paused",
      pause: { nodeName: GRAPH, value, responseKey: GRAPH },
      waitingFor: { event: `${BUFFERED}${kept.event}`, key: kept.key },
    },
    { epoch: lease.epoch },
  );
  await checkpointer.releaseWorkflow(id, lease);
}

/** A kept event claimed for one workflow: `used()` deletes it once delivered, `giveBack()` leaves it to others. */
export interface TakenEvent extends Kept {
  used(): Promise<void>;
  giveBack(): Promise<void>;
}

/**
 * Claims the oldest unexpired event kept for this wait, or undefined. Expired ones met on the way are deleted. A
 * kept event another process holds or took at the same moment is skipped (its claim or its deletion came first).
 */
export async function takeKeptEvent(
  checkpointer: Checkpointer,
  wait: { readonly event: string; readonly key: string },
  now: number,
): Promise<TakenEvent | undefined> {
  const ids = await checkpointer.listWaiting({ event: `${BUFFERED}${wait.event}`, key: wait.key }, { limit: 10 });
  for (const id of ids) {
    let lease: Awaited<ReturnType<Checkpointer["claimWorkflow"]>>;
    try {
      lease = await checkpointer.claimWorkflow(id, { owner: `take-${randomUUID()}`, ttlMs: 30_000 });
    } catch (error) {
      if (isWorkflowConflictError(error) || isCheckpointError(error)) continue;
      throw error;
    }
    // Read under the claim: a taker that deleted it between our listing and our claim leaves nothing to read.
    const kept = (await checkpointer.getWorkflow(id))?.pause?.value as Kept | undefined;
    if (kept === undefined) continue;
    if (kept.expiresAt <= now) {
      await checkpointer.deleteWorkflow(id);
      continue;
    }
    return {
      ...kept,
      used: () => checkpointer.deleteWorkflow(id),
      giveBack: () => checkpointer.releaseWorkflow(id, lease),
    };
  }
  return undefined;
}
