import type { RedisCheckpointer } from "@graph/checkpoint-redis";
import { afterAll, inject } from "vitest";
import { redisBytes } from "./support/rawStores.js";
import { redisPrefixes } from "./support/services.js";
import { describeUpgradeUnderLease } from "./support/underLease.js";

const prefixes = redisPrefixes();
afterAll(() => prefixes.clear());
describeUpgradeUnderLease("Redis, holder in another process", {
  open: () => prefixes.open(),
  location: (checkpointer) => ({ store: inject("redisUrl"), prefix: (checkpointer as RedisCheckpointer).prefix }),
  raw: (checkpointer) => redisBytes(checkpointer, inject("redisUrl")),
});
