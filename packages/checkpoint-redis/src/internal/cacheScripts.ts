/**
 * Node-cache entries on Redis: `P{graph-index}:cache` (hash key → serialised entry), `:cacheUsed` (sorted set key →
 * last use, what eviction reads in order; ties are ordered by key, as Redis orders equal scores) and
 * `:cacheExpires` (sorted set key → expiry). All three share the index hash tag, so one script updates them
 * atomically, on Redis Cluster too. Times come from the caller (its clock decides expiry, like every other store).
 */

/** KEYS: cache, used, expires. ARGV: key, now. → the text, or nil (an expired entry is removed). */
const CACHE_READ = `
local value = redis.call('HGET', KEYS[1], ARGV[1])
if not value then return false end
local expires = redis.call('ZSCORE', KEYS[3], ARGV[1])
if expires and tonumber(expires) <= tonumber(ARGV[2]) then
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('ZREM', KEYS[3], ARGV[1])
  return false
end
redis.call('ZADD', KEYS[2], 'GT', ARGV[2], ARGV[1])
return value
`;

/**
 * KEYS: cache, used, expires. ARGV: key, value, now, expiresAt ('' = never), maxEntries ('' = no bound).
 * Upserts, removes expired entries, then the least recently used beyond the bound.
 */
const CACHE_WRITE = `
local function drop(keys)
  for i = 1, #keys do
    redis.call('HDEL', KEYS[1], keys[i])
    redis.call('ZREM', KEYS[2], keys[i])
    redis.call('ZREM', KEYS[3], keys[i])
  end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
if ARGV[4] ~= '' then redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1]) else redis.call('ZREM', KEYS[3], ARGV[1]) end
drop(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', ARGV[3], 'LIMIT', 0, 1000))
if ARGV[5] ~= '' then
  local over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[5])
  if over > 0 then drop(redis.call('ZRANGE', KEYS[2], 0, over - 1)) end
end
return 1
`;

/** The commands of the cache scripts. */
export interface CacheScriptCommands {
  graphCacheRead(cache: string, used: string, expires: string, key: string, now: string): Promise<string | null>;
  graphCacheWrite(
    cache: string,
    used: string,
    expires: string,
    key: string,
    value: string,
    now: string,
    expiresAt: string,
    maxEntries: string,
  ): Promise<unknown>;
}

export const CACHE_SCRIPTS: Record<keyof CacheScriptCommands, { readonly numberOfKeys: number; readonly lua: string }> =
  {
    graphCacheRead: { numberOfKeys: 3, lua: CACHE_READ },
    graphCacheWrite: { numberOfKeys: 3, lua: CACHE_WRITE },
  };
