/**
 * The scripts of the status and graph listing indexes (all their keys are in the index slot): announcing a status
 * write, ending it, dropping entries a reader found stale, and removing deleted workflows. See `statuses.ts` for
 * the protocol.
 */

type Reply = unknown;

/**
 * KEYS: all, pending, sequence, the status set of the announced status. ARGV: id. Counts the write in flight and
 * adds the workflow to the set (scored by its creation time, read from the `all` index) before the record can say so.
 */
const STATUS_BEGIN = `
local id = ARGV[1]
redis.call('HINCRBY', KEYS[2], id, 1)
redis.call('HINCRBY', KEYS[3], id, 1)
local createdAt = redis.call('ZSCORE', KEYS[1], id)
if createdAt then redis.call('ZADD', KEYS[4], 'NX', createdAt, id) end
return 1
`;

/**
 * KEYS: pending, the status set of the status the record has after the write (or pending again when unknown).
 * ARGV: id, ended ("1": a write begun with STATUS_BEGIN ended), createdAt ("" = unknown). Adds the workflow to the
 * set of its status after the write (a creation whose listing entry was not written yet when the write began).
 */
const STATUS_END = `
local id = ARGV[1]
if ARGV[2] == '1' and redis.call('HINCRBY', KEYS[1], id, -1) <= 0 then redis.call('HDEL', KEYS[1], id) end
if ARGV[3] ~= '' and KEYS[2] ~= KEYS[1] then redis.call('ZADD', KEYS[2], 'NX', ARGV[3], id) end
return 1
`;

/**
 * KEYS: pending, sequence, a status or graph set. ARGV: pairs of id and the sequence a reader read before it found
 * the record not in the set's status. Removes each entry unless a status write is in flight or began since.
 */
const STATUS_DROP = `
local dropped = 0
for i = 1, #ARGV, 2 do
  local id = ARGV[i]
  if redis.call('HEXISTS', KEYS[1], id) == 0 and (redis.call('HGET', KEYS[2], id) or '') == ARGV[i + 1] then
    dropped = dropped + redis.call('ZREM', KEYS[3], id)
  end
end
return dropped
`;

/** KEYS: pending, sequence, then every status set and the graph sets of the ids. ARGV: ids of deleted workflows. */
const STATUS_REMOVE = `
redis.call('HDEL', KEYS[1], unpack(ARGV))
redis.call('HDEL', KEYS[2], unpack(ARGV))
for i = 3, #KEYS do redis.call('ZREM', KEYS[i], unpack(ARGV)) end
return 1
`;

/** The status-index script commands on the client. */
export interface StatusScriptCommands {
  graphStatusBegin(all: string, pending: string, sequence: string, set: string, id: string): Promise<Reply>;
  graphStatusEnd(pending: string, set: string, id: string, ended: string, createdAt: string): Promise<Reply>;
  graphStatusDrop(pending: string, sequence: string, set: string, ...pairs: string[]): Promise<Reply>;
  /** Its keys are as many as the sets: the first argument is their number. */
  graphStatusRemove(numberOfKeys: number, ...keysThenIds: string[]): Promise<Reply>;
}

export const STATUS_SCRIPTS: Record<
  keyof StatusScriptCommands,
  { readonly numberOfKeys?: number; readonly lua: string }
> = {
  graphStatusBegin: { numberOfKeys: 4, lua: STATUS_BEGIN },
  graphStatusEnd: { numberOfKeys: 2, lua: STATUS_END },
  graphStatusDrop: { numberOfKeys: 3, lua: STATUS_DROP },
  graphStatusRemove: { lua: STATUS_REMOVE },
};
