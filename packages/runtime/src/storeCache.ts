/**
 * The persistent node cache: a {@link NodeCache} on a checkpointer's store (SQLite, PostgreSQL, Redis or memory),
 * shared by every process and worker on that store.
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { Checkpointer, Serializer } from "@graph/checkpoint";
import { defaultSerializer, MemoryCheckpointer } from "@graph/checkpoint";
import { closestName, type Duration, parseDuration } from "@graph/core";
import { type Clock, systemClock } from "./Clock.js";
import type { NodeCache } from "./cache.js";
import { InvalidOptionError } from "./errors.js";

/**
 * `new Runner({ cache })` as options instead of a {@link NodeCache}: where entries live, how long, how many.
 *
 * @example
 * ```ts
 * import { MemoryCheckpointer } from "@graph/checkpoint";
 * import { Runner } from "@graph/runtime";
 * const runner = new Runner({
 *   checkpointer: new MemoryCheckpointer(),
 *   cache: { store: "checkpointer", ttl: "7d", maxEntries: 10_000 },
 * });
 * ```
 */
export interface CacheOptions {
  /**
   * `"checkpointer"`: in the runner's checkpointer's store, shared by every process on it (needs `checkpointer`).
   * `"memory"`: in this runner only, with the same ttl and eviction rules.
   */
  readonly store: "checkpointer" | "memory";
  /** How long an entry is served after it was written (`"7d"`, `"90m"`, or ms). Default: no expiry. */
  readonly ttl?: Duration;
  /**
   * The bound on stored entries: each write removes the least recently used ones beyond it (a hit counts as a
   * use). Counted over the whole store, every node and process on it. Default: no bound.
   */
  readonly maxEntries?: number;
}

/** Options of {@link checkpointerCache}. */
export interface CheckpointerCacheOptions {
  /** How long an entry is served after it was written. Default: no expiry. */
  readonly ttl?: Duration;
  /** The bound on stored entries (least recently used evicted first). Default: no bound. */
  readonly maxEntries?: number;
  /** The clock expiry and last use are read from (the runner passes its own). Default `systemClock`. */
  readonly clock?: Clock;
}

type CacheStore = Checkpointer & Required<Pick<Checkpointer, "readCacheEntry" | "writeCacheEntry">>;

/** The checks of the cache options (Runner's `cache` and `checkpointerCache`), as InvalidOptionError. */
function resolveLimits(where: string, options: { ttl?: unknown; maxEntries?: unknown }) {
  let ttlMs: number | undefined;
  if (options.ttl !== undefined) {
    try {
      ttlMs = parseDuration(options.ttl, `${where}: cache ttl`);
    } catch (e) {
      throw new InvalidOptionError(`${where}: option 'cache.ttl' is not a duration. ${(e as Error).message}`, "cache");
    }
  }
  const max = options.maxEntries;
  if (max !== undefined && !(typeof max === "number" && Number.isSafeInteger(max) && max >= 1))
    throw new InvalidOptionError(
      `${where}: option 'cache.maxEntries' must be an integer ≥ 1, got ${String(max)}.\n  How to fix: maxEntries: 10_000, or leave it out for no bound.`,
      "cache",
    );
  return { ttlMs, maxEntries: max as number | undefined };
}

/**
 * A {@link NodeCache} stored in a checkpointer: values go through the checkpointer's serializer (Dates, Maps, Sets
 * survive), keys are sha256 digests of the node's key. Entries expire `ttl` after they were written; beyond
 * `maxEntries` the least recently used are evicted. Two processes computing one key at the same time both run the
 * node and the last write is kept (see docs/cache.md). The checkpointer must be set up (`setup()`; a Runner does it
 * on its first run).
 *
 * @example
 * ```ts
 * import { MemoryCheckpointer } from "@graph/checkpoint";
 * import { checkpointerCache, Runner } from "@graph/runtime";
 * const checkpointer = new MemoryCheckpointer();
 * const runner = new Runner({ checkpointer, cache: checkpointerCache(checkpointer, { ttl: "1d", maxEntries: 500 }) });
 * ```
 */
export function checkpointerCache(checkpointer: Checkpointer, options: CheckpointerCacheOptions = {}): NodeCache {
  const where = "checkpointerCache()";
  if (typeof checkpointer?.readCacheEntry !== "function" || typeof checkpointer.writeCacheEntry !== "function")
    throw new InvalidOptionError(
      `${where}: this checkpointer stores no cache entries (it has no readCacheEntry() / writeCacheEntry()).\n` +
        "  How to fix: use a checkpointer of @graph/checkpoint, -sqlite, -postgres or -redis of this version, or pass a NodeCache.",
      "cache",
    );
  refuseUnknownKeys(where, "options", options, ["ttl", "maxEntries", "clock"]);
  const { ttlMs, maxEntries } = resolveLimits(where, options);
  return new StoreCache(
    checkpointer as CacheStore,
    checkpointer.serializer ?? defaultSerializer,
    options.clock ?? systemClock,
    ttlMs,
    maxEntries,
  );
}

/** The Runner's `cache` option as a NodeCache (`undefined`: no cache). */
export function resolveRunnerCache(
  cache: NodeCache | CacheOptions | undefined,
  checkpointer: Checkpointer | undefined,
  clock: Clock,
): NodeCache | undefined {
  const where = "new Runner()";
  if (cache === undefined) return undefined;
  if (typeof cache !== "object" || cache === null || Array.isArray(cache))
    throw new InvalidOptionError(
      `${where}: option 'cache' must be a NodeCache ({ get, set }) or { store: "checkpointer" | "memory", ttl?, maxEntries? }, got ${cache === null ? "null" : Array.isArray(cache) ? "an array" : typeof cache}.\n  How to fix: cache: { store: "checkpointer", ttl: "7d" }, or new MemoryCache().`,
      "cache",
    );
  if (!isCacheOptions(cache)) return cache;
  refuseUnknownKeys(where, "cache", cache, ["store", "ttl", "maxEntries"]);
  const { store: _store, ...limits } = cache;
  if (cache.store === "memory") return checkpointerCache(new MemoryCheckpointer(), { ...limits, clock });
  if (cache.store !== "checkpointer")
    throw new InvalidOptionError(
      `${where}: option 'cache.store' must be "checkpointer" or "memory", got ${JSON.stringify(cache.store)}.`,
      "cache",
    );
  if (checkpointer === undefined)
    throw new InvalidOptionError(
      `${where}: option 'cache' has store "checkpointer" but the runner has no checkpointer.\n  How to fix: pass checkpointer too, or use store: "memory".`,
      "cache",
    );
  return checkpointerCache(checkpointer, { ...limits, clock });
}

/** A misspelled option would be ignored silently (no bound, no expiry): refuse keys the options do not have. */
function refuseUnknownKeys(where: string, label: string, options: object, known: readonly string[]): void {
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const close = closestName(key, known);
    throw new InvalidOptionError(
      `${where}: option '${label}.${key}' is not a cache option${close === undefined ? "" : ` (did you mean '${close}'?)`}.\n  How to fix: use only ${known.map((k) => `'${k}'`).join(", ")}.`,
      "cache",
    );
  }
}

function isCacheOptions(cache: NodeCache | CacheOptions): cache is CacheOptions {
  return typeof (cache as Partial<NodeCache>).get !== "function" && typeof cache === "object" && cache !== null;
}

class StoreCache implements NodeCache {
  constructor(
    private readonly store: CacheStore,
    private readonly serializer: Serializer,
    private readonly clock: Clock,
    private readonly ttlMs: number | undefined,
    private readonly maxEntries: number | undefined,
  ) {}

  async get(key: string): Promise<{ readonly value: Readonly<Record<string, unknown>> } | undefined> {
    const text = await this.store.readCacheEntry(digest(key), Math.floor(this.clock.now()));
    return text === undefined ? undefined : { value: this.serializer.deserialize(text) as Record<string, unknown> };
  }

  async set(key: string, value: Readonly<Record<string, unknown>>): Promise<void> {
    const now = Math.floor(this.clock.now());
    await this.store.writeCacheEntry(digest(key), this.serializer.serialize(value), {
      now,
      ...(this.ttlMs === undefined ? {} : { expiresAt: now + this.ttlMs }),
      ...(this.maxEntries === undefined ? {} : { maxEntries: this.maxEntries }),
    });
  }
}

const digest = (key: string): string => createHash("sha256").update(key).digest("hex");
