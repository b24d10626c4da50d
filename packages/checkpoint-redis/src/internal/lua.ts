/**
 * The Lua functions the scripts share (each script is sent whole, so each one includes the pieces it calls): the
 * clock and the fencing check, the writes of a workflow hash, retention, and the upsert of a run of steps.
 */

/** Helpers every script starts with. */
export const PRELUDE = `
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
local function check_write(w, g, fence)
  if redis.call('EXISTS', w) == 0 then return {'missing'} end
  if fence ~= '' and redis.call('EXISTS', g) == 0 then return {'missing', 'guard'} end
  if fenced(g, fence) then return conflict(g) end
  return nil
end
`;

/**
 * The due time and event wait of a workflow hash (`wa`, `we`, `wk`): a text that changes when any of them changes
 * (NUL separates them: no stored text holds one), and their removal once the status no longer keeps them.
 */
export const TIMES = `
local function times(w)
  local v = redis.call('HMGET', w, 'wa', 'we', 'wk')
  return (v[1] or '') .. '\0' .. (v[2] or '') .. '\0' .. (v[3] or '')
end
local function clear_if_ended(w)
  local st = redis.call('HGET', w, 'st')
  if st ~= 'paused' and st ~= 'running' then redis.call('HDEL', w, 'wa', 'we', 'wk') end
end
`;

/**
 * Writing a workflow: creating its hash (ARGV from `at`: graphName, graphHash, parentId, hasParent "1"/"0"; `wake`:
 * the due time of a delayed start, "" for none), taking its lease, giving it back, and applying an update (ARGV from
 * `at`: n sets, m deletes, n field/value pairs, m fields; returns the index after them). An update that leaves the
 * workflow completed, failed or stopped drops its due time and wait.
 */
export const WRITES = `${TIMES}
local function create(w, a, at, wake)
  local now = fmt(now_ms())
  redis.call('HSET', w, 'st', 'running', 'gn', a[at], 'gh', a[at + 1], 'ls', '-1', 'sc', '0', 'ep', '0',
    'ca', now, 'ua', now)
  if a[at + 3] == '1' then redis.call('HSET', w, 'pid', a[at + 2]) end
  if wake ~= '' then redis.call('HSET', w, 'st', 'paused', 'wa', wake) end
end
local function claim(w, owner, ttl)
  local now = now_ms()
  local v = redis.call('HMGET', w, 'lo', 'le', 'ep')
  if v[1] and v[1] ~= owner and tonumber(v[2]) > now then return {'held', v[1], v[2]} end
  local epoch = tonumber(v[3])
  if v[1] ~= owner then epoch = epoch + 1 end
  local expires = fmt(now + math.ceil(tonumber(ttl)))
  redis.call('HSET', w, 'lo', owner, 'le', expires, 'ep', fmt(epoch))
  return {'ok', fmt(epoch), expires}
end
local function release(w, owner, epoch)
  local v = redis.call('HMGET', w, 'lo', 'ep')
  if v[1] and v[1] == owner and tonumber(v[2]) == tonumber(epoch) then
    redis.call('HDEL', w, 'lo', 'le')
    return 1
  end
  return 0
end
local function apply_update(w, a, at)
  local sets, deletes = tonumber(a[at]), tonumber(a[at + 1])
  local i = at + 2
  for _ = 1, sets do
    redis.call('HSET', w, a[i], a[i + 1])
    i = i + 2
  end
  for _ = 1, deletes do
    redis.call('HDEL', w, a[i])
    i = i + 1
  end
  clear_if_ended(w)
  redis.call('HSET', w, 'ua', fmt(now_ms()))
  return i
end
`;

/**
 * Retention in Lua, the same rule as `compactSteps` of @graph/checkpoint: a step is removed unless it is the
 * newest step of its node, it still holds the last write of some value, or (windowed) it is in the last
 * `window` supersteps. An encoded step starts with its written keys (comma-separated tokens) and a newline.
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
 * Upserts `count` encoded steps given in ARGV from `at` (per step: field, index, superstep, encoded step), applying
 * retention after each, then the counters. Returns the index after them. Nothing in it can fail once the checks
 * passed, so a script that calls it writes all or none.
 */
export const SAVE_STEPS = `${COMPACT}
local function save_steps(w, s, o, a, at, count, retention, window)
  local last = tonumber(redis.call('HGET', w, 'ls'))
  local i = at
  for _ = 1, count do
    local field, superstep = a[i], tonumber(a[i + 2])
    redis.call('HSET', s, field, a[i + 3])
    redis.call('ZADD', o, a[i + 1], field)
    if superstep > last then last = superstep end
    if retention ~= 'full' then compact(s, o, retention, window) end
    i = i + 4
  end
  redis.call('HSET', w, 'ls', fmt(last), 'sc', redis.call('HLEN', s), 'ua', fmt(now_ms()))
  return i
end
`;
