import { Redis } from "ioredis";

/**
 * A connection for the queue's own commands. Commands wait while Redis is unreachable (ioredis reconnects and
 * replays them), so a Redis restart delays runs instead of failing them; connection errors are therefore not
 * fatal and are not re-thrown as unhandled `error` events.
 */
export function connect(url: string): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: null });
  redis.on("error", () => {});
  return redis;
}
