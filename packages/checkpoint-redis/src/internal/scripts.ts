/**
 * The Lua scripts of the store, registered with ioredis `defineCommand` (EVALSHA, falling back to EVAL after a
 * server restart flushed the script cache). Each script touches the keys of ONE workflow tree (a root and its child
 * workflows share one hash slot) or only the index keys, so everything works on Redis Cluster.
 *
 * Why scripts: Redis runs a script atomically, so the fencing check and the write it guards happen in one step —
 * no other client can claim the workflow between them (validate-then-write would be a race). Times come from the
 * server's clock (`TIME`), so lease expiry never depends on the clocks of the machines running workflows.
 */
import type { Cluster, Redis } from "ioredis";
import { CACHE_SCRIPTS, type CacheScriptCommands } from "./cacheScripts.js";
import { PRELUDE, SAVE_STEPS, TIMES, WRITES } from "./lua.js";
import { STATUS_SCRIPTS, type StatusScriptCommands } from "./statusScripts.js";
import { TIME_SCRIPTS, type TimeScriptCommands } from "./timeScripts.js";

/**
 * KEYS: w, g (the workflow whose lease guards the creation: w itself or an ancestor, same slot). ARGV: graphName,
 * graphHash, parentId, hasParent ("1"/"0"), fence ("" = none), wakeAt ("" = none: a delayed start is created paused
 * with it). → {created 0/1, HGETALL} | conflict | {'missing', 'guard'}. The fence is checked before anything is
 * created: a zombie of a taken-over root creates no child.
 */
const CREATE = `${PRELUDE}${WRITES}
if ARGV[5] ~= '' then
  if redis.call('EXISTS', KEYS[2]) == 0 then return {'missing', 'guard'} end
  if fenced(KEYS[2], ARGV[5]) then return conflict(KEYS[2]) end
end
if redis.call('EXISTS', KEYS[1]) == 1 then return {0, redis.call('HGETALL', KEYS[1])} end
create(KEYS[1], ARGV, 1, ARGV[6])
return {1, redis.call('HGETALL', KEYS[1])}
`;

/**
 * KEYS: all, roots, ids, ttl, then more sets scored by creation (the graph's, the status's). ARGV: id, createdAt,
 * isRoot ("1"/"0"). Idempotent (NX keeps existing scores).
 */
const INDEX_ADD = `
redis.call('ZADD', KEYS[1], 'NX', ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[3], 'NX', 0, ARGV[1])
if ARGV[3] == '1' then
  redis.call('ZADD', KEYS[2], 'NX', ARGV[2], ARGV[1])
  redis.call('ZADD', KEYS[4], 'NX', ARGV[2], ARGV[1])
end
for i = 5, #KEYS do redis.call('ZADD', KEYS[i], 'NX', ARGV[2], ARGV[1]) end
return 1
`;

/** KEYS: all, roots, ids, ttl. ARGV: ids to remove. */
const INDEX_REMOVE = `
for i = 1, 4 do redis.call('ZREM', KEYS[i], unpack(ARGV)) end
return 1
`;

/**
 * KEYS: w. ARGV: owner, ttlMs, ifPausedAt ("" for none). → {'ok', epoch, expiresAt} | {'held', owner, expiresAt}
 * | {'settled', status, lastSuperstep} | {'missing'}
 * A live lease of the same owner is renewed with its epoch kept (even just after expiry: nobody claimed in
 * between, since a claim changes the owner); every other successful claim bumps the epoch. An answer's claim
 * (ifPausedAt) is taken only while the workflow is still paused at that visit, checked before the lease.
 */
const CLAIM = `${PRELUDE}${WRITES}
if redis.call('EXISTS', KEYS[1]) == 0 then return {'missing'} end
if ARGV[3] ~= '' then
  local p = redis.call('HMGET', KEYS[1], 'st', 'ls')
  if p[1] ~= 'paused' or tonumber(p[2]) ~= tonumber(ARGV[3]) then return {'settled', p[1], p[2]} end
end
return claim(KEYS[1], ARGV[1], ARGV[2])
`;

/** KEYS: w. ARGV: owner, epoch. Clears the lease only when both match. */
const RELEASE = `${PRELUDE}${WRITES}
return release(KEYS[1], ARGV[1], ARGV[2])
`;

/**
 * KEYS: w, g (the workflow whose lease guards the write: w itself or its root, same slot). ARGV: fence ("" =
 * none), then the update (number of fields to set n, to delete m, n field/value pairs, m fields).
 * → {'ok', HGETALL, timesChanged 0/1} | conflict | {'missing'} | {'missing', 'guard'}
 */
const UPDATE = `${PRELUDE}${WRITES}
local err = check_write(KEYS[1], KEYS[2], ARGV[1])
if err then return err end
local before = times(KEYS[1])
apply_update(KEYS[1], ARGV, 2)
return {'ok', redis.call('HGETALL', KEYS[1]), before ~= times(KEYS[1]) and 1 or 0}
`;

/**
 * KEYS: w, s, o, g (the guarding workflow: w or its root). ARGV: fence, retention, window, then the steps. Upserts
 * the steps in order, all or none. → {'ok'} | conflict | {'missing'} | {'missing', 'guard'}
 */
const SAVE = `${PRELUDE}${SAVE_STEPS}
local err = check_write(KEYS[1], KEYS[4], ARGV[1])
if err then return err end
save_steps(KEYS[1], KEYS[2], KEYS[3], ARGV, 4, (#ARGV - 3) / 4, ARGV[2], tonumber(ARGV[3]))
return {'ok'}
`;

/**
 * KEYS: w, s, o. ARGV: graphName, graphHash, parentId, hasParent, owner, ttlMs, retention, window, wakeAt ("" =
 * none), then the steps.
 * Creates the workflow unless it exists, claims it, and saves the steps under the lease just taken.
 * → {'ok', created 0/1, epoch, expiresAt, HGETALL (as created, or as it was before the claim)} | {'held', owner,
 * expiresAt} (nothing written: a new workflow has no holder, so only an existing one can be held)
 */
const START = `${PRELUDE}${WRITES}${SAVE_STEPS}
local w = KEYS[1]
local created, record = 0, nil
if redis.call('EXISTS', w) == 0 then
  create(w, ARGV, 1, ARGV[9])
  created = 1
else
  record = redis.call('HGETALL', w)
end
local claimed = claim(w, ARGV[5], ARGV[6])
if claimed[1] ~= 'ok' then return claimed end
record = record or redis.call('HGETALL', w)
if #ARGV > 9 then save_steps(w, KEYS[2], KEYS[3], ARGV, 10, (#ARGV - 9) / 4, ARGV[7], tonumber(ARGV[8])) end
return {'ok', created, claimed[2], claimed[3], record}
`;

/**
 * KEYS: w, g (the guard of the update), then per group of steps: its w, s, o and guard (all in w's slot). ARGV:
 * fence, release owner ("" = none), release epoch, retention, window, the update (as in UPDATE), then per group:
 * fence, number of steps, the steps. Every check runs before the first write: all or none.
 * → {'ok', HGETALL, timesChanged 0/1} | conflict | {'missing'} | {'missing', 'guard'} | {'group', i, <one of those>}
 */
const FINISH = `${PRELUDE}${WRITES}${SAVE_STEPS}
local i = 6 + 2 + tonumber(ARGV[6]) * 2 + tonumber(ARGV[7])
local groups = {}
for k = 1, (#KEYS - 2) / 4 do
  groups[k] = {ARGV[i], i + 2, tonumber(ARGV[i + 1])}
  i = i + 2 + groups[k][3] * 4
end
for k, group in ipairs(groups) do
  local base = 2 + (k - 1) * 4
  local err = check_write(KEYS[base + 1], KEYS[base + 4], group[1])
  if err then return {'group', k, unpack(err)} end
end
local err = check_write(KEYS[1], KEYS[2], ARGV[1])
if err then return err end
local before = times(KEYS[1])
for k, group in ipairs(groups) do
  local base = 2 + (k - 1) * 4
  save_steps(KEYS[base + 1], KEYS[base + 2], KEYS[base + 3], ARGV, group[2], group[3], ARGV[4], tonumber(ARGV[5]))
end
apply_update(KEYS[1], ARGV, 6)
if ARGV[2] ~= '' then release(KEYS[1], ARGV[2], ARGV[3]) end
return {'ok', redis.call('HGETALL', KEYS[1]), before ~= times(KEYS[1]) and 1 or 0}
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
 * and running/paused: stopped, request recorded, lease dropped, epoch + 1, due time and wait dropped. Otherwise
 * nothing. → {'ok', HGETALL, timesChanged 0/1} | {'missing'}
 */
const STOP = `${PRELUDE}${TIMES}
if redis.call('EXISTS', KEYS[1]) == 0 then return {'missing'} end
local now = now_ms()
local v = redis.call('HMGET', KEYS[1], 'st', 'lo', 'le', 'sr', 'ep')
local before = times(KEYS[1])
local live = v[2] and tonumber(v[3]) > now
if live then
  if not v[4] then redis.call('HSET', KEYS[1], 'sr', ARGV[1], 'ua', fmt(now)) end
elseif v[1] == 'running' or v[1] == 'paused' then
  redis.call('HSET', KEYS[1], 'st', 'stopped', 'sr', v[4] or ARGV[1], 'ep', fmt(tonumber(v[5]) + 1), 'ua', fmt(now))
  redis.call('HDEL', KEYS[1], 'lo', 'le')
  clear_if_ended(KEYS[1])
end
return {'ok', redis.call('HGETALL', KEYS[1]), before ~= times(KEYS[1]) and 1 or 0}
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
 * live lease. → {'deleted', graphName} | {'gone'} | {'kept', score} (score: when its ttl clock started, for the index)
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
  local graph = redis.call('HGET', KEYS[1], 'gn') or ''
  redis.call('UNLINK', KEYS[1], KEYS[2], KEYS[3])
  return {'deleted', graph}
end
local score = updated
if live and tonumber(v[4]) - ttl > score then score = tonumber(v[4]) - ttl end
return {'kept', fmt(score)}
`;

type Reply = unknown;

/** The commands `defineScripts` adds to a client. */
export interface ScriptCommands extends TimeScriptCommands, CacheScriptCommands, StatusScriptCommands {
  graphCreate(
    w: string,
    g: string,
    graphName: string,
    graphHash: string,
    parentId: string,
    hasParent: string,
    fence: string,
    wakeAt: string,
  ): Promise<Reply>;
  /** KEYS: all, roots, ids, ttl, then the graph set and the status set; the first argument is their number. */
  graphIndexAdd(numberOfKeys: number, ...keysThenArgs: string[]): Promise<Reply>;
  graphIndexRemove(all: string, roots: string, ids: string, ttl: string, ...ids_: string[]): Promise<Reply>;
  graphClaim(w: string, owner: string, ttlMs: string, ifPausedAt: string): Promise<Reply>;
  graphRelease(w: string, owner: string, epoch: string): Promise<Reply>;
  graphUpdate(w: string, g: string, ...args: string[]): Promise<Reply>;
  graphSave(w: string, s: string, o: string, g: string, ...args: string[]): Promise<Reply>;
  graphStart(w: string, s: string, o: string, ...args: string[]): Promise<Reply>;
  /** Its keys are as many as its groups need: the first argument is their number. */
  graphFinish(numberOfKeys: number, ...keysThenArgs: string[]): Promise<Reply>;
  graphRenew(w: string, owner: string, epoch: string, ttlMs: string): Promise<Reply>;
  graphStop(w: string, stop: string): Promise<Reply>;
  graphRead(w: string, s: string, o: string, through: string): Promise<Reply>;
  graphPrune(w: string, s: string, o: string, ttlMs: string): Promise<Reply>;
}

const SCRIPTS: Record<keyof ScriptCommands, { readonly numberOfKeys?: number; readonly lua: string }> = {
  graphCreate: { numberOfKeys: 2, lua: CREATE },
  graphIndexAdd: { lua: INDEX_ADD },
  graphIndexRemove: { numberOfKeys: 4, lua: INDEX_REMOVE },
  graphClaim: { numberOfKeys: 1, lua: CLAIM },
  graphRelease: { numberOfKeys: 1, lua: RELEASE },
  graphUpdate: { numberOfKeys: 2, lua: UPDATE },
  graphSave: { numberOfKeys: 4, lua: SAVE },
  graphStart: { numberOfKeys: 3, lua: START },
  graphFinish: { lua: FINISH },
  graphRenew: { numberOfKeys: 1, lua: RENEW },
  graphStop: { numberOfKeys: 1, lua: STOP },
  graphRead: { numberOfKeys: 3, lua: READ },
  graphPrune: { numberOfKeys: 3, lua: PRUNE },
  ...TIME_SCRIPTS,
  ...CACHE_SCRIPTS,
  ...STATUS_SCRIPTS,
};

/** Registers the scripts on a client (idempotent) and returns it typed with the script commands. */
export function defineScripts(client: Redis | Cluster): ScriptCommands {
  const commands = client as unknown as ScriptCommands & Record<string, unknown>;
  const ignored = new Set(client.options.autoPipeliningIgnoredCommands ?? []);
  for (const [name, script] of Object.entries(SCRIPTS)) {
    if (typeof commands[name] !== "function") client.defineCommand(name, script);
    // ioredis groups an auto-pipelined script call by the slot of its first argument. With a key count given per
    // call that argument is the count, not a key: on a Cluster the call can land in another node's pipeline, which
    // then fails as a whole ("All keys in the pipeline should belong to the same slots allocation group"). These
    // scripts are sent on their own instead; every other command keeps the client's auto-pipelining.
    if (script.numberOfKeys === undefined) ignored.add(name);
  }
  // A new array: ioredis may share its default one between clients.
  client.options.autoPipeliningIgnoredCommands = [...ignored];
  return commands;
}
