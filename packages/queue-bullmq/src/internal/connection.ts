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

/** The queue's Redis URL: the option, else `REDIS_URL`, else the local default. */
export function redisUrl(option: string | undefined): string {
  const env = process.env["REDIS_URL"];
  return option ?? (env !== undefined && env !== "" ? env : "redis://127.0.0.1:6379");
}
