import { CheckpointError } from "../errors.js";

/**
 * How a node-cache entry is written (`Checkpointer.writeCacheEntry`). Times are epoch milliseconds from the
 * caller's clock, so every backend expires and evicts the same entries for the same calls.
 */
export interface CacheEntryWrite {
  /** The writer's time: the entry's last use. Entries that expired at or before it are removed. */
  readonly now: number;
  /** When the entry stops being read (exclusive: a read at `expiresAt` misses). Absent: never. */
  readonly expiresAt?: number;
  /**
   * The bound on the store's entries after this write: the least recently used ones (oldest last use; ties by key)
   * are removed until at most this many are left. Absent: no bound.
   */
  readonly maxEntries?: number;
}

/** A cache key: a sha256 hex digest (the cache hashes the node's key before it reaches the store). */
const KEY = /^[0-9a-f]{64}$/;

function fail(operation: string, path: string, message: string): never {
  throw new CheckpointError({ message: `${operation}: ${message}`, operation, path });
}

function checkTime(value: unknown, operation: string, path: string): void {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0)
    fail(operation, path, `${path} must be epoch milliseconds (a non-negative integer), got ${String(value)}.`);
}

/**
 * Checks the arguments of `readCacheEntry`: a sha256 hex key and a time. Every backend refuses the same calls.
 *
 * @example
 * ```ts
 * import { checkCacheRead } from "@graph/checkpoint/adapter";
 * checkCacheRead("a".repeat(64), Date.now(), "MyCheckpointer.readCacheEntry");
 * ```
 */
export function checkCacheRead(key: unknown, now: unknown, operation: string): void {
  if (typeof key !== "string" || !KEY.test(key))
    fail(
      operation,
      "key",
      `expects a cache key of 64 lowercase hex digits (a sha256 digest), got ${JSON.stringify(key)}.`,
    );
  checkTime(now, operation, "now");
}

/**
 * Checks the arguments of `writeCacheEntry`: the key, a text value and the write's times and bound.
 *
 * @example
 * ```ts
 * import { checkCacheWrite } from "@graph/checkpoint/adapter";
 * checkCacheWrite("a".repeat(64), "{}", { now: 1, maxEntries: 10 }, "MyCheckpointer.writeCacheEntry");
 * ```
 */
export function checkCacheWrite(key: unknown, value: unknown, write: CacheEntryWrite, operation: string): void {
  checkCacheRead(key, write?.now, operation);
  if (typeof value !== "string") fail(operation, "value", "expects the entry as serialised text.");
  if (write.expiresAt !== undefined) checkTime(write.expiresAt, operation, "expiresAt");
  const max = write.maxEntries;
  if (max !== undefined && (typeof max !== "number" || !Number.isSafeInteger(max) || max < 1))
    fail(operation, "maxEntries", `maxEntries must be a positive integer, got ${String(max)}.`);
}

/** What the memory store keeps per entry. */
export interface HeldCacheEntry {
  readonly value: string;
  readonly expiresAt: number | undefined;
  usedAt: number;
}

/**
 * The eviction rule as a plain function over a map (the memory store uses it; the SQL and Redis stores do the same
 * in their own language): drop expired entries, then the least recently used beyond `maxEntries`.
 */
export function evictCacheEntries(
  entries: Map<string, HeldCacheEntry>,
  now: number,
  maxEntries: number | undefined,
): void {
  for (const [key, entry] of entries) if (entry.expiresAt !== undefined && entry.expiresAt <= now) entries.delete(key);
  if (maxEntries === undefined || entries.size <= maxEntries) return;
  const order = [...entries].sort(([ka, a], [kb, b]) => a.usedAt - b.usedAt || (ka < kb ? -1 : ka > kb ? 1 : 0));
  for (const [key] of order.slice(0, entries.size - maxEntries)) entries.delete(key);
}
