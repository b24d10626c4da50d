/**
 * `@graph/checkpoint-redis` — the Redis checkpointer (ioredis; plain Redis >= 6.2, standalone or Cluster).
 *
 * @module
 */

export { RedisCheckpointer } from "./RedisCheckpointer.js";
export type {
  EvictionPolicyCheck,
  RedisCheckpointerOptions,
  RedisClientOptions,
  RedisCommonOptions,
  RedisUrlOptions,
} from "./RedisCheckpointerOptions.js";
