/**
 * A hint that makes cross-process stops fast: the checkpointer's stop request is the stop (durable, seen by the
 * holder's next poll, `stopPollMs`); after recording it, `RemoteRunner.stop` also publishes the workflow id, and a
 * worker holding that run polls at once instead of at its next tick. A lost message only costs that wait.
 */
import type { Checkpointer } from "@graph/checkpoint";
import type { Redis } from "ioredis";
import type { QueueKeys } from "./keys.js";

/** Tells the workers that `workflowId` has a new stop request. */
export function nudgeStop(redis: Redis, keys: QueueKeys, workflowId: string): Promise<unknown> {
  return redis.publish(keys.stopChannel, workflowId);
}

/**
 * Listens for nudges on `subscriber` (a connection of its own): for a run this worker holds, reads the stop request
 * from the checkpointer and, when there is one, calls `stop` with its info. Returns the unsubscribe function.
 */
export async function listenForStops(
  subscriber: Redis,
  keys: QueueKeys,
  checkpointer: Checkpointer,
  held: (workflowId: string) => ((info: unknown) => void) | undefined,
): Promise<() => Promise<void>> {
  subscriber.on("message", (channel: string, workflowId: string) => {
    if (channel !== keys.stopChannel || held(workflowId) === undefined) return;
    checkpointer.getStopRequest(workflowId).then(
      (request) => {
        if (request !== undefined) held(workflowId)?.(request.info);
      },
      () => {}, // the run's own poll retries
    );
  });
  await subscriber.subscribe(keys.stopChannel);
  return async () => {
    await subscriber.unsubscribe(keys.stopChannel).catch(() => {});
  };
}
