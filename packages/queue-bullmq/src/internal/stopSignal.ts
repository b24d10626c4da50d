/**
 * Cross-process stop, the queue's own until the storage contract has a durable stop request: a stop is a key (read
 * before a job starts and polled while it runs) plus a pub/sub message (for a fast reaction). Everything about it
 * lives here, so switching to the checkpointer's stop request changes only this module.
 */
import type { Redis } from "ioredis";
import type { QueueKeys } from "./keys.js";

/** How long an unanswered stop request is kept. */
const STOP_TTL_S = 3600;

/** Requests a stop of `workflowId` (whichever process holds it, or the next one that would start it). */
export async function requestStop(redis: Redis, keys: QueueKeys, workflowId: string, info: unknown): Promise<void> {
  await redis
    .multi()
    .set(keys.stop(workflowId), JSON.stringify({ info: info ?? null }), "EX", STOP_TTL_S)
    .publish(keys.stopChannel, workflowId)
    .exec();
}

/** Forgets a stop request (a fresh submission, or the stop was carried out). */
export function clearStop(redis: Redis, keys: QueueKeys, workflowId: string): Promise<unknown> {
  return redis.del(keys.stop(workflowId));
}

/** The pending stop request of `workflowId`, if any. */
export async function readStop(
  redis: Redis,
  keys: QueueKeys,
  workflowId: string,
): Promise<{ readonly info: unknown } | undefined> {
  const text = await redis.get(keys.stop(workflowId));
  return text === null ? undefined : (JSON.parse(text) as { info: unknown });
}

/**
 * Watches stop requests for the runs a worker holds: `onStop` is called (at most once per request) for a held
 * workflow whose stop arrived by message or was found by the poll. Returns the unsubscribe function.
 */
export async function watchStops(
  subscriber: Redis,
  redis: Redis,
  keys: QueueKeys,
  held: () => Iterable<string>,
  onStop: (workflowId: string, info: unknown) => void,
  pollMs: number,
): Promise<() => Promise<void>> {
  const check = async (ids: readonly string[]): Promise<void> => {
    if (ids.length === 0) return;
    const texts = await redis.mget(...ids.map((id) => keys.stop(id)));
    texts.forEach((text, i) => {
      if (text !== null) onStop(ids[i]!, (JSON.parse(text) as { info: unknown }).info);
    });
  };
  subscriber.on("message", (channel: string, workflowId: string) => {
    if (channel !== keys.stopChannel) return;
    if ([...held()].includes(workflowId)) check([workflowId]).catch(() => {});
  });
  await subscriber.subscribe(keys.stopChannel);
  // A message is lost when it comes between a job's start check and the run being registered, or while the
  // subscriber reconnects: the poll covers both.
  const timer = setInterval(() => {
    check([...held()]).catch(() => {});
  }, pollMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await subscriber.unsubscribe(keys.stopChannel).catch(() => {});
  };
}
