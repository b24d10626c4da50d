/**
 * Storage conformance, area "nodeCache": node-result cache entries (`readCacheEntry`, `writeCacheEntry`) — values
 * kept verbatim, expiry at the caller's time, least-recently-used eviction beyond a bound, the same refusals.
 */
import { randomBytes } from "node:crypto";
import type { Checkpointer } from "@graph/checkpoint";
import { describe, expect, it } from "vitest";
import { assertCheckpointError, rejection } from "../fixtures.js";
import type { StorageContext } from "./helpers.js";

const key = () => randomBytes(32).toString("hex");

/** Times far past anything another test of the same store writes, so this area's entries are the newest. */
const BASE = Date.UTC(2200, 0, 1);

type CacheStore = Checkpointer & Required<Pick<Checkpointer, "readCacheEntry" | "writeCacheEntry">>;

function cacheStore(checkpointer: Checkpointer): CacheStore {
  expect(typeof checkpointer.readCacheEntry).toBe("function");
  expect(typeof checkpointer.writeCacheEntry).toBe("function");
  return checkpointer as CacheStore;
}

/** Registers the "nodeCache" tests. */
export function describeNodeCache({ run }: StorageContext): void {
  describe("node cache entries", () => {
    it("stores texts verbatim, replaces them, and misses unknown keys", async () => {
      await run(async (checkpointer) => {
        const store = cacheStore(checkpointer);
        const k = key();
        expect(await store.readCacheEntry(k, BASE)).toBeUndefined();
        const text = JSON.stringify({ "é→✓": [1, { $t: "Date", v: "2024-01-01T00:00:00.000Z" }] });
        await store.writeCacheEntry(k, text, { now: BASE });
        expect(await store.readCacheEntry(k, BASE + 1)).toBe(text);
        await store.writeCacheEntry(k, '{"v":2}', { now: BASE + 2 });
        expect(await store.readCacheEntry(k, BASE + 3)).toBe('{"v":2}');
      });
    });

    it("expires an entry at its expiry time exactly, and removes it", async () => {
      await run(async (checkpointer) => {
        const store = cacheStore(checkpointer);
        const k = key();
        await store.writeCacheEntry(k, '"a"', { now: BASE, expiresAt: BASE + 1000 });
        expect(await store.readCacheEntry(k, BASE + 999)).toBe('"a"');
        expect(await store.readCacheEntry(k, BASE + 1000)).toBeUndefined();
        // Removed, not only hidden: a read at an earlier time misses too.
        expect(await store.readCacheEntry(k, BASE + 1)).toBeUndefined();
        // A write without expiry replaces the expiry.
        await store.writeCacheEntry(k, '"b"', { now: BASE + 2000, expiresAt: BASE + 2500 });
        await store.writeCacheEntry(k, '"c"', { now: BASE + 2001 });
        expect(await store.readCacheEntry(k, BASE + 9_999_999)).toBe('"c"');
      });
    });

    it("evicts the least recently used entries beyond maxEntries (a read counts as a use; ties by key)", async () => {
      await run(async (checkpointer) => {
        const store = cacheStore(checkpointer);
        const t = BASE + 10_000_000;
        const [a, b, c, d] = [key(), key(), key(), key()];
        await store.writeCacheEntry(a, '"a"', { now: t + 1, maxEntries: 2 });
        await store.writeCacheEntry(b, '"b"', { now: t + 2, maxEntries: 2 });
        expect(await store.readCacheEntry(a, t + 3)).toBe('"a"'); // a is now the most recently used
        await store.writeCacheEntry(c, '"c"', { now: t + 4, maxEntries: 2 });
        expect(await store.readCacheEntry(b, t + 5)).toBeUndefined();
        expect(await store.readCacheEntry(a, t + 6)).toBe('"a"');
        expect(await store.readCacheEntry(c, t + 7)).toBe('"c"');
        // c and d share their last use; a is written after them: of the tie, the smaller key goes first.
        const [low, high] = [c, d].sort();
        await store.writeCacheEntry(d, '"d"', { now: t + 7, maxEntries: 2 });
        await store.writeCacheEntry(a, '"a2"', { now: t + 8, maxEntries: 2 });
        expect(await store.readCacheEntry(low as string, t + 9)).toBeUndefined();
        expect(await store.readCacheEntry(high as string, t + 9)).toBe(high === c ? '"c"' : '"d"');
        expect(await store.readCacheEntry(a, t + 9)).toBe('"a2"');
      });
    });

    it("drops expired entries on a write before counting the bound", async () => {
      await run(async (checkpointer) => {
        const store = cacheStore(checkpointer);
        const t = BASE + 20_000_000;
        const [a, b, c] = [key(), key(), key()];
        await store.writeCacheEntry(a, '"a"', { now: t + 1, maxEntries: 2 });
        await store.writeCacheEntry(b, '"b"', { now: t + 2, expiresAt: t + 3, maxEntries: 2 });
        await store.writeCacheEntry(c, '"c"', { now: t + 4, maxEntries: 2 });
        expect(await store.readCacheEntry(a, t + 5)).toBe('"a"');
        expect(await store.readCacheEntry(b, t + 2)).toBeUndefined();
        expect(await store.readCacheEntry(c, t + 5)).toBe('"c"');
      });
    });

    it("refuses a key that is not a sha256 digest, a bad time or bound, writing nothing", async () => {
      await run(async (checkpointer) => {
        const store = cacheStore(checkpointer);
        const badKey = await rejection(store.writeCacheEntry("k", "1", { now: BASE }));
        assertCheckpointError(badKey);
        expect(badKey.message).toContain("64 lowercase hex digits");
        const k = key();
        const badTime = await rejection(store.readCacheEntry(k, -1));
        assertCheckpointError(badTime);
        expect(badTime.message).toContain("epoch milliseconds");
        const badBound = await rejection(store.writeCacheEntry(k, "1", { now: BASE, maxEntries: 0 }));
        assertCheckpointError(badBound);
        expect(badBound.message).toContain("maxEntries must be a positive integer");
        expect(await store.readCacheEntry(k, BASE)).toBeUndefined();
      });
    });
  });
}
