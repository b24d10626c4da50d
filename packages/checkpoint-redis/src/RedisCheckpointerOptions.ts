/**
 * How a `RedisCheckpointer` connects and what it stores with: a URL or an application's client, plus the options
 * both share.
 *
 * @module
 */
import type { CheckpointPolicy, Serializer } from "@graph/checkpoint";
import type { Cluster, Redis } from "ioredis";

/**
 * What happens when the server may evict keys (`maxmemory-policy` other than `noeviction`): an evicted key is a
 * lost workflow. `"warn"` (default) reports it through `onWarning`, `"fail"` makes `setup()` (and the first call)
 * fail, `"ignore"` skips the check.
 *
 * @example
 * ```ts
 * const check: EvictionPolicyCheck = "fail";
 * ```
 */
export type EvictionPolicyCheck = "warn" | "fail" | "ignore";

/**
 * Options every way of connecting shares.
 *
 * @example
 * ```ts
 * const common: RedisCommonOptions = { prefix: "myapp:graph:", policy: { retention: "latest" } };
 * ```
 */
export interface RedisCommonOptions {
  /** Prefix of every key (no `{` or `}`). Default `"graph:"`. Stores with different prefixes are independent. */
  readonly prefix?: string;
  /** Partial policy; defaults filled by `resolvePolicy` (async + full). Retention and `ttlMs` apply here. */
  readonly policy?: Partial<CheckpointPolicy>;
  /** How values become text. Default: `defaultSerializer`. */
  readonly serializer?: Serializer;
  /** The `maxmemory-policy` check of `setup()`. Default `"warn"`. */
  readonly evictionPolicy?: EvictionPolicyCheck;
  /** Receives warnings (the eviction-policy check). Default: `process.emitWarning`. */
  readonly onWarning?: (message: string) => void;
}

/**
 * Connect with a URL; the checkpointer owns the client and closes it in `close()`.
 *
 * @example
 * ```ts
 * const options: RedisUrlOptions = { url: "redis://127.0.0.1:6379/0", commandTimeoutMs: 5000 };
 * ```
 */
export interface RedisUrlOptions extends RedisCommonOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://…`. Default: `process.env.REDIS_URL`, else `redis://127.0.0.1:6379`. */
  readonly url?: string;
  /** How long one connection attempt may take. Default 3000 ms. */
  readonly connectTimeoutMs?: number;
  /** How long a command may wait for its answer. Default 10000 ms. */
  readonly commandTimeoutMs?: number;
  /** Reconnect attempts a command waits through before failing with a `CheckpointError`. Default 2. */
  readonly maxRetriesPerRequest?: number;
}

/**
 * Use an application's ioredis client (`Redis` or `Cluster`); `close()` leaves it open.
 *
 * @example
 * ```ts
 * import { Cluster } from "ioredis";
 * const options: RedisClientOptions = { client: new Cluster([{ host: "10.0.0.1", port: 7000 }]) };
 * ```
 */
export interface RedisClientOptions extends RedisCommonOptions {
  readonly client: Redis | Cluster;
}

/**
 * Options of `RedisCheckpointer`: a `url` or a `client`, plus the common options.
 *
 * @example
 * ```ts
 * const options: RedisCheckpointerOptions = { url: "redis://cache:6379/1", policy: { ttlMs: 7 * 86_400_000 } };
 * ```
 */
export type RedisCheckpointerOptions = RedisUrlOptions | RedisClientOptions;
