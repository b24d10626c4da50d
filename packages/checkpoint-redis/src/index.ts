/**
 * `@graph/checkpoint-redis` — the Redis checkpointer (ioredis; plain Redis >= 6.2, standalone or Cluster).
 *
 * @module
 */

export type {
  EvictionPolicyCheck,
  RedisCheckpointerOptions,
  RedisClientOptions,
  RedisCommonOptions,
  RedisUrlOptions,
} from "./RedisCheckpointer.js";
export { RedisCheckpointer } from "./RedisCheckpointer.js";
