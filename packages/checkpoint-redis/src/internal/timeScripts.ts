/**
 * The scripts of the time indexes (all their keys are in the index slot): marking a write in flight, reading the
 * state a reconciliation starts from, applying it when nothing moved since, and removing deleted workflows. See
 * `times.ts` for the protocol.
 */

type Reply = unknown;

/**
 * KEYS: due, pending, sequence, waits, then the wait set of the new wait (if any). ARGV: id, the new due time ("" =
 * none). Counts the write in flight and lowers (or adds) the workflow's entries, so the indexes never miss what
 * the write may store.
 */
const TIME_BEGIN = `
local id = ARGV[1]
redis.call('HINCRBY', KEYS[2], id, 1)
redis.call('HINCRBY', KEYS[3], id, 1)
if ARGV[2] ~= '' then redis.call('ZADD', KEYS[1], 'LT', ARGV[2], id) end
if KEYS[5] then
  redis.call('ZADD', KEYS[5], 'NX', 0, id)
  local sets = redis.call('HGET', KEYS[4], id)
  if not sets then
    redis.call('HSET', KEYS[4], id, KEYS[5])
  elseif string.find('\\0' .. sets .. '\\0', '\\0' .. KEYS[5] .. '\\0', 1, true) == nil then
    redis.call('HSET', KEYS[4], id, sets .. '\\0' .. KEYS[5])
  end
end
return 1
`;

/**
 * KEYS: pending, sequence, waits. ARGV: id, done ("1": a write begun with TIME_BEGIN ended). → {pending, sequence,
 * wait sets (NUL-separated, "" = none)}
 */
const TIME_STATE = `
local id = ARGV[1]
local pending = 0
if ARGV[2] == '1' then
  pending = redis.call('HINCRBY', KEYS[1], id, -1)
  if pending <= 0 then
    redis.call('HDEL', KEYS[1], id)
    pending = 0
  end
else
  pending = tonumber(redis.call('HGET', KEYS[1], id) or '0')
end
return {pending, redis.call('HGET', KEYS[2], id) or '', redis.call('HGET', KEYS[3], id) or ''}
`;

/**
 * KEYS: due, pending, sequence, waits, the current wait set (or the due key again when none), then the wait sets the
 * workflow is in. ARGV: id, the sequence read before the record, wakeAt ("" = none), createdAt, has a wait ("1"/"0").
 * Applies the record's state only when no write is in flight and none began since. → 1 applied | 0 skipped
 */
const TIME_APPLY = `
local id = ARGV[1]
if redis.call('HEXISTS', KEYS[2], id) == 1 then return 0 end
if (redis.call('HGET', KEYS[3], id) or '') ~= ARGV[2] then return 0 end
if ARGV[3] ~= '' then redis.call('ZADD', KEYS[1], ARGV[3], id) else redis.call('ZREM', KEYS[1], id) end
for i = 6, #KEYS do
  if ARGV[5] ~= '1' or KEYS[i] ~= KEYS[5] then redis.call('ZREM', KEYS[i], id) end
end
if ARGV[5] == '1' then
  redis.call('ZADD', KEYS[5], ARGV[4], id)
  redis.call('HSET', KEYS[4], id, KEYS[5])
else
  redis.call('HDEL', KEYS[4], id)
end
return 1
`;

/** KEYS: due, pending, sequence, waits, then wait sets. ARGV: ids of deleted workflows. */
const TIME_REMOVE = `
redis.call('ZREM', KEYS[1], unpack(ARGV))
for i = 2, 4 do redis.call('HDEL', KEYS[i], unpack(ARGV)) end
for i = 5, #KEYS do redis.call('ZREM', KEYS[i], unpack(ARGV)) end
return 1
`;

/** The commands of the time scripts. */
export interface TimeScriptCommands {
  graphTimeBegin(numberOfKeys: number, ...keysThenArgs: string[]): Promise<Reply>;
  graphTimeState(pending: string, sequence: string, waits: string, id: string, done: string): Promise<Reply>;
  graphTimeApply(numberOfKeys: number, ...keysThenArgs: string[]): Promise<Reply>;
  graphTimeRemove(numberOfKeys: number, ...keysThenArgs: string[]): Promise<Reply>;
}

export const TIME_SCRIPTS: Record<keyof TimeScriptCommands, { readonly numberOfKeys?: number; readonly lua: string }> =
  {
    graphTimeBegin: { lua: TIME_BEGIN },
    graphTimeState: { numberOfKeys: 3, lua: TIME_STATE },
    graphTimeApply: { lua: TIME_APPLY },
    graphTimeRemove: { lua: TIME_REMOVE },
  };
