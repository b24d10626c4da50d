/**
 * The stop signal of a distributed map (`RemoteRunner.map`): a map is no workflow of the checkpointer (its items
 * are), so its stop is a Redis key the chunk jobs read before each item. Runs stop through the checkpointer's durable
 * stop request instead (`RemoteRunner.stop`).
 */
import type { Redis } from "ioredis";
import type { QueueKeys } from "./keys.js";

/** How long an unanswered stop request is kept. */
const STOP_TTL_S = 3600;

/** Marks the map `mapId` stopped: its chunks run no more items. */
export async function requestStop(redis: Redis, keys: QueueKeys, mapId: string, info: unknown): Promise<void> {
  await redis.set(keys.stop(mapId), JSON.stringify({ info: info ?? null }), "EX", STOP_TTL_S);
}

/** Forgets a map's stop (the map ended). */
export function clearStop(redis: Redis, keys: QueueKeys, mapId: string): Promise<unknown> {
  return redis.del(keys.stop(mapId));
}

/** The pending stop of map `mapId`, if any. */
export async function readStop(
  redis: Redis,
  keys: QueueKeys,
  mapId: string,
): Promise<{ readonly info: unknown } | undefined> {
  const text = await redis.get(keys.stop(mapId));
  return text === null ? undefined : (JSON.parse(text) as { info: unknown });
}
