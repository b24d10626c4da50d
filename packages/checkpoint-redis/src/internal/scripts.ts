/**
 * The Lua scripts of the store, registered with ioredis `defineCommand` (EVALSHA, falling back to EVAL after a
 * server restart flushed the script cache). Each script touches the keys of ONE workflow (one hash slot) or only
 * the index keys, so everything works on Redis Cluster.
 *
 * Why scripts: Redis runs a script atomically, so the fencing check and the write it guards happen in one step —
 * no other client can claim the workflow between them (validate-then-write would be a race). Times come from the
 * server's clock (`TIME`), so lease expiry never depends on the clocks of the machines running workflows.
 */
import type { Cluster, Redis } from "ioredis";

/** Helpers every script starts with. */
const PRELUDE = `
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function fmt(n) return string.format('%.0f', n) end
local function fenced(w, fence)
  if fence == '' then return false end
  return tonumber(redis.call('HGET', w, 'ep')) ~= tonumber(fence)
end
local function conflict(w)
  local v = redis.call('HMGET', w, 'ep', 'lo', 'le')
  return {'conflict', v[1] or '0', v[2] or '', v[3] or ''}
end
`;

/**
 * KEYS: w, g (the workflow whose lease guards the creation: w itself or an ancestor, same slot). ARGV: graphName,
 * graphHash, parentId, hasParent ("1"/"0"), fence ("" = none). → {created 0/1, HGETALL} | conflict | {'missing',
 * 'guard'}. The fence is checked before anything is created: a zombie of a taken-over root creates no child.
 */
const CREATE = `${PRELUDE}
if ARGV[5] ~= '' then
  if redis.call('EXISTS', KEYS[2]) == 0 then return {'missing', 'guard'} end
  if fenced(KEYS[2], ARGV[5]) then return conflict(KEYS[2]) end
end
if redis.call('EXISTS', KEYS[1]) == 1 then return {0, redis.call('HGETALL', KEYS[1])} end
local now = fmt(now_ms())
redis.call('HSET', KEYS[1], 'st', 'running', 'gn', ARGV[1], 'gh', ARGV[2], 'ls', '-1', 'sc', '0', 'ep', '0',
  'ca', now, 'ua', now)
if ARGV[4] == '1' then redis.call('HSET', KEYS[1], 'pid', ARGV[3]) end
return {1, redis.call('HGETALL', KEYS[1])}
`;

/** KEYS: all, roots, ids, ttl. ARGV: id, createdAt, isRoot ("1"/"0"). Idempotent (NX keeps existing scores). */
const INDEX_ADD = `
redis.call('ZADD', KEYS[1], 'NX', ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[3], 'NX', 0, ARGV[1])
if ARGV[3] == '1' then
  redis.call('ZADD', KEYS[2], 'NX', ARGV[2], ARGV[1])
  redis.call('ZADD', KEYS[4], 'NX', ARGV[2], ARGV[1])
end
return 1
`;

/** KEYS: all, roots, ids, ttl. ARGV: ids to remove. */
const INDEX_REMOVE = `
for i = 1, 4 do redis.call('ZREM', KEYS[i], unpack(ARGV)) end
return 1
`;

/**
 * KEYS: w. ARGV: owner, ttlMs. → {'ok', epoch, expiresAt} | {'held', owner, expiresAt} | {'missing'}
 * A live lease of the same owner is renewed with its epoch kept (even just after expiry: nobody claimed in
 * between, since a claim changes the owner); every other successful claim bumps the epoch.
 */
const CLAIM = `${PRELUDE}
if redis.call('EXISTS', KEYS[1]) == 0 then return {'missing'} end
local now = now_ms()
local v = redis.call('HMGET', KEYS[1], 'lo', 'le', 'ep')
local owner = ARGV[1]
if v[1] and v[1] ~= owner and tonumber(v[2]) > now then return {'held', v[1], v[2]} end
local epoch = tonumber(v[3])
if v[1] ~= owner then epoch = epoch + 1 end
local expires = fmt(now + math.ceil(tonumber(ARGV[2])))
redis.call('HSET', KEYS[1], 'lo', owner, 'le', expires, 'ep', fmt(epoch))
return {'ok', fmt(epoch), expires}
`;

/** KEYS: w. ARGV: owner, epoch. Clears the lease only when both match. */
const RELEASE = `
local v = redis.call('HMGET', KEYS[1], 'lo', 'ep')
if v[1] and v[1] == ARGV[1] and tonumber(v[2]) == tonumber(ARGV[2]) then
  redis.call('HDEL', KEYS[1], 'lo', 'le')
  return 1
end
return 0
`;

/**
 * KEYS: w, g (the workflow whose lease guards the write: w itself or its root, same slot). ARGV: fence ("" =
 * none), number of fields to set n, n field/value pairs, then fields to delete.
 * → {'ok', HGETALL} | conflict | {'missing'} | {'missing', 'guard'}
 */
const UPDATE = `${PRELUDE}
if redis.call('EXISTS', KEYS[1]) == 0 then return {'missing'} end
if ARGV[1] ~= '' and redis.call('EXISTS', KEYS[2]) == 0 then return {'missing', 'guard'} end
if fenced(KEYS[2], ARGV[1]) then return conflict(KEYS[2]) end
local i = 3
for _ = 1, tonumber(ARGV[2]) do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  i = i + 2
end
while i <= #ARGV do
  redis.call('HDEL', KEYS[1], ARGV[i])
  i = i + 1
end
redis.call('HSET', KEYS[1], 'ua', fmt(now_ms()))
return {'ok', redis.call('HGETALL', KEYS[1])}
`;

/**
 * Retention in Lua, the same rule as \`compactSteps\` of @graph/checkpoint: a step is removed unless it is the
 * newest step of its node, it still holds the last write of some value, or (windowed) it is in the last
 * \`window\` supersteps. An encoded step starts with its written keys (comma-separated tokens) and a newline.
 */
const COMPACT = `
local function compact(s, o, retention, window)
  local entries = redis.call('ZRANGE', o, 0, -1, 'WITHSCORES')
  local lastWriter, newest, steps = {}, {}, {}
  local maxSuperstep = nil
  for i = 1, #entries, 2 do
    local member, idx = entries[i], tonumber(entries[i + 1])
    local colon = string.find(member, ':', 1, true)
    local superstep = tonumber(string.sub(member, 1, colon - 1))
    local node = string.sub(member, colon + 1)
    local blob = redis.call('HGET', s, member) or ''
    local nl = string.find(blob, '\\n', 1, true) or (#blob + 1)
    local keys = {}
    for key in string.gmatch(string.sub(blob, 1, nl - 1), '[^,]+') do
      keys[#keys + 1] = key
      lastWriter[key] = idx
    end
    newest[node] = idx
    if maxSuperstep == nil or superstep > maxSuperstep then maxSuperstep = superstep end
    steps[#steps + 1] = {member, idx, superstep, node, keys}
  end
  local firstKept = math.huge
  if retention == 'windowed' and maxSuperstep ~= nil then firstKept = maxSuperstep - window + 1 end
  for _, step in ipairs(steps) do
    if step[3] < firstKept and newest[step[4]] ~= step[2] then
      local holds = false
      for _, key in ipairs(step[5]) do
        if lastWriter[key] == step[2] then holds = true break end
      end
      if not holds then
        redis.call('HDEL', s, step[1])
        redis.call('ZREM', o, step[1])
      end
    end
  end
end
`;

/**
 * KEYS: w, s, o, g (the guarding workflow: w or its root). ARGV: fence, retention, window, then per step: field,
 * index, superstep, encoded step. Upserts the steps in order (all or none: checks come first, and nothing after
 * them can fail). → {'ok'} | conflict | {'missing'} | {'missing', 'guard'}
 */
const SAVE = `${PRELUDE}${COMPACT}
local w, s, o = KEYS[1], KEYS[2], KEYS[3]
if redis.call('EXISTS', w) == 0 then return {'missing'} end
if ARGV[1] ~= '' and redis.call('EXISTS', KEYS[4]) == 0 then return {'missing', 'guard'} end
if fenced(KEYS[4], ARGV[1]) then return conflict(KEYS[4]) end
local retention, window = ARGV[2], tonumber(ARGV[3])
local last = tonumber(redis.call('HGET', w, 'ls'))
for i = 4, #ARGV, 4 do
  local field, superstep = ARGV[i], tonumber(ARGV[i + 2])
  redis.call('HSET', s, field, ARGV[i + 3])
  redis.call('ZADD', o, ARGV[i + 1], field)
  if superstep > last then last = superstep end
  if retention ~= 'full' then compact(s, o, retention, window) end
end
redis.call('HSET', w, 'ls', fmt(last), 'sc', redis.call('HLEN', s), 'ua', fmt(now_ms()))
return {'ok'}
`;

/**
 * KEYS: w. ARGV: owner, epoch, ttlMs. Extends the lease only while it has this owner and epoch (never re-takes it).
 * → {'ok', expiresAt, stopRequest or ''} | {'lost', epoch, owner or '', expiresAt or ''} | {'missing'}
 */
const RENEW = `${PRELUDE}
if redis.call('EXISTS', KEYS[1]) == 0 then return {'missing'} end
local v = redis.call('HMGET', KEYS[1], 'lo', 'ep', 'le', 'sr')
if not v[1] or v[1] ~= ARGV[1] or tonumber(v[2]) ~= tonumber(ARGV[2]) then
  return {'lost', v[2] or '0', v[1] or '', v[3] or ''}
end
local expires = fmt(now_ms() + math.ceil(tonumber(ARGV[3])))
redis.call('HSET', KEYS[1], 'le', expires)
return {'ok', expires, v[4] or ''}
`;

/**
 * KEYS: w. ARGV: the encoded stop request. A live lease: record the request (the first one is kept). No live lease
 * and running/paused: stopped, request recorded, lease dropped, epoch + 1. Otherwise nothing.
 * → {'ok', HGETALL} | {'missing'}
 */
const STOP = `${PRELUDE}
if redis.call('EXISTS', KEYS[1]) == 0 then return {'missing'} end
local now = now_ms()
local v = redis.call('HMGET', KEYS[1], 'st', 'lo', 'le', 'sr', 'ep')
local live = v[2] and tonumber(v[3]) > now
if live then
  if not v[4] then redis.call('HSET', KEYS[1], 'sr', ARGV[1], 'ua', fmt(now)) end
elseif v[1] == 'running' or v[1] == 'paused' then
  redis.call('HSET', KEYS[1], 'st', 'stopped', 'sr', v[4] or ARGV[1], 'ep', fmt(tonumber(v[5]) + 1), 'ua', fmt(now))
  redis.call('HDEL', KEYS[1], 'lo', 'le')
end
return {'ok', redis.call('HGETALL', KEYS[1])}
`;

/**
 * KEYS: w, s, o. ARGV: throughSuperstep ("" = all). → nil for an unknown workflow, else
 * {lastSuperstep, field1, step1, field2, step2, …} in index order — one snapshot.
 */
const READ = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local through = tonumber(ARGV[1])
local out = {redis.call('HGET', KEYS[1], 'ls')}
for _, field in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do
  local superstep = tonumber(string.sub(field, 1, string.find(field, ':', 1, true) - 1))
  if through == nil or superstep <= through then
    out[#out + 1] = field
    out[#out + 1] = redis.call('HGET', KEYS[2], field) or ''
  end
end
return out
`;

/**
 * KEYS: w, s, o. ARGV: ttlMs. Deletes the workflow when it was not updated for ttlMs and is not running under a
 * live lease. → {'deleted'} | {'gone'} | {'kept', score} (score: when its ttl clock started, for the index)
 */
const PRUNE = `${PRELUDE}
local v = redis.call('HMGET', KEYS[1], 'ua', 'st', 'lo', 'le')
if not v[1] then
  redis.call('UNLINK', KEYS[2], KEYS[3])
  return {'gone'}
end
local now, ttl = now_ms(), tonumber(ARGV[1])
local updated = tonumber(v[1])
local live = v[2] == 'running' and v[3] ~= false and tonumber(v[4]) > now
if updated <= now - ttl and not live then
  redis.call('UNLINK', KEYS[1], KEYS[2], KEYS[3])
  return {'deleted'}
end
local score = updated
if live and tonumber(v[4]) - ttl > score then score = tonumber(v[4]) - ttl end
return {'kept', fmt(score)}
`;

type Reply = unknown;

/** The commands `defineScripts` adds to a client. */
export interface ScriptCommands {
  graphCreate(
    w: string,
    g: string,
    graphName: string,
    graphHash: string,
    parentId: string,
    hasParent: string,
    fence: string,
  ): Promise<Reply>;
  graphIndexAdd(all: string, roots: string, ids: string, ttl: string, ...args: string[]): Promise<Reply>;
  graphIndexRemove(all: string, roots: string, ids: string, ttl: string, ...ids_: string[]): Promise<Reply>;
  graphClaim(w: string, owner: string, ttlMs: string): Promise<Reply>;
  graphRelease(w: string, owner: string, epoch: string): Promise<Reply>;
  graphUpdate(w: string, g: string, ...args: string[]): Promise<Reply>;
  graphSave(w: string, s: string, o: string, g: string, ...args: string[]): Promise<Reply>;
  graphRenew(w: string, owner: string, epoch: string, ttlMs: string): Promise<Reply>;
  graphStop(w: string, stop: string): Promise<Reply>;
  graphRead(w: string, s: string, o: string, through: string): Promise<Reply>;
  graphPrune(w: string, s: string, o: string, ttlMs: string): Promise<Reply>;
}

const SCRIPTS: Record<keyof ScriptCommands, { readonly numberOfKeys: number; readonly lua: string }> = {
  graphCreate: { numberOfKeys: 2, lua: CREATE },
  graphIndexAdd: { numberOfKeys: 4, lua: INDEX_ADD },
  graphIndexRemove: { numberOfKeys: 4, lua: INDEX_REMOVE },
  graphClaim: { numberOfKeys: 1, lua: CLAIM },
  graphRelease: { numberOfKeys: 1, lua: RELEASE },
  graphUpdate: { numberOfKeys: 2, lua: UPDATE },
  graphSave: { numberOfKeys: 4, lua: SAVE },
  graphRenew: { numberOfKeys: 1, lua: RENEW },
  graphStop: { numberOfKeys: 1, lua: STOP },
  graphRead: { numberOfKeys: 3, lua: READ },
  graphPrune: { numberOfKeys: 3, lua: PRUNE },
};

/** Registers the scripts on a client (idempotent) and returns it typed with the script commands. */
export function defineScripts(client: Redis | Cluster): ScriptCommands {
  const commands = client as unknown as ScriptCommands & Record<string, unknown>;
  for (const [name, script] of Object.entries(SCRIPTS)) {
    if (typeof commands[name] !== "function") client.defineCommand(name, script);
  }
  return commands;
}
