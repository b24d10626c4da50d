/**
 * Fairness across keys on the queue: start-time fair queuing on BullMQ priorities. Each group (a tenant) keeps the
 * virtual slot of its last submission; a submission gets slot = max(group's last, served floor) + 1, and a worker
 * raises the floor to a run's slot when it starts it. So a group's runs are spaced one slot apart from wherever the
 * queue stands, and the first waiting run of every group comes before the second of any group: round-robin, and a
 * group that arrives late goes next instead of behind another group's backlog.
 *
 * The slot becomes the job's BullMQ priority as `slot - base`. BullMQ takes priorities up to 2,097,152, and slots grow
 * by one per run forever, so the base moves up: when the floor is more than {@link REBASE_AFTER} above the base, the
 * worker that raises it sets base = floor and gives every waiting fair job (prioritized or delayed) its priority in
 * the new base. A submission that used the old base checks it after adding its job and fixes its own priority (either
 * it or the rebase sees the job; both compute the same number). A backlog wider than the range is clamped to the
 * lowest priority: its tail is taken in submission order.
 */
import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { QueueKeys } from "./keys.js";

/** BullMQ's largest job priority. */
export const MAX_PRIORITY = 2_097_152;
/** How far the floor may get above the base before the base moves (half the range: room for a backlog). */
const REBASE_AFTER = 1_048_576;

/** A fair job's place: its group and virtual slot (in its data, so a rebase can recompute its priority). */
export interface FairPlace {
  readonly group: string;
  readonly slot: number;
}

// KEYS: slots (zset group → last slot), floor, base. ARGV: group. Returns { slot, base }.
const TAKE_SLOT = `
local floor = tonumber(redis.call('GET', KEYS[2]) or '0')
local last = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]) or '0')
local slot = math.max(last, floor) + 1
redis.call('ZADD', KEYS[1], slot, ARGV[1])
return { slot, tonumber(redis.call('GET', KEYS[3]) or '0') }
`;

// KEYS: slots, floor, base. ARGV: the started run's slot, the rebase distance. Returns the new base, or -1.
// Groups whose last slot is at or below the floor are forgotten: max(last, floor) is the floor for them anyway.
const RAISE_FLOOR = `
local floor = tonumber(redis.call('GET', KEYS[2]) or '0')
local slot = tonumber(ARGV[1])
if slot > floor then
  floor = slot
  redis.call('SET', KEYS[2], floor)
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', floor)
end
local base = tonumber(redis.call('GET', KEYS[3]) or '0')
if floor - base > tonumber(ARGV[2]) then
  redis.call('SET', KEYS[3], floor)
  return floor
end
return -1
`;

const fairKeys = (keys: QueueKeys) => [keys.fair("slots"), keys.fair("floor"), keys.fair("base")];

/** The BullMQ priority of `slot` under `base`. */
export const priorityAt = (slot: number, base: number): number => Math.min(MAX_PRIORITY, Math.max(1, slot - base));

/** The next slot of `group` and the base it is to be read against. */
export async function takeSlot(redis: Redis, keys: QueueKeys, group: string): Promise<{ slot: number; base: number }> {
  const [slot, base] = (await redis.eval(TAKE_SLOT, 3, ...fairKeys(keys), group)) as [number, number];
  return { slot, base };
}

/** After adding the job of a slot taken under `base`: when the base moved meanwhile, its priority in the new one. */
export async function settleSlot(
  redis: Redis,
  keys: QueueKeys,
  queue: Queue,
  jobId: string,
  slot: number,
  base: number,
): Promise<void> {
  const now = Number((await redis.get(keys.fair("base"))) ?? "0");
  if (now === base) return;
  const job = await queue.getJob(jobId);
  await job?.changePriority({ priority: priorityAt(slot, now) }).catch(() => {});
}

/**
 * A worker starts the run of a fair job: the floor rises to its slot; when that moves the base, every waiting fair
 * job gets its priority in the new base. `rebaseAfter` is {@link REBASE_AFTER} outside tests.
 */
export async function raiseFloor(
  redis: Redis,
  keys: QueueKeys,
  queue: Queue,
  slot: number,
  rebaseAfter = REBASE_AFTER,
): Promise<void> {
  const base = (await redis.eval(RAISE_FLOOR, 3, ...fairKeys(keys), slot, rebaseAfter)) as number;
  if (base < 0) return;
  // Read every waiting fair job first, then re-prioritise: changing priorities while paging would reorder the pages.
  const waiting: { job: Awaited<ReturnType<Queue["getJobs"]>>[number]; slot: number }[] = [];
  for (const state of ["prioritized", "delayed"] as const) {
    for (let start = 0; ; start += 500) {
      const jobs = await queue.getJobs([state], start, start + 499, true);
      for (const job of jobs) {
        const place = (job?.data as { fair?: FairPlace } | undefined)?.fair;
        if (place !== undefined) waiting.push({ job, slot: place.slot });
      }
      if (jobs.length < 500) break;
    }
  }
  for (const { job, slot } of waiting) await job.changePriority({ priority: priorityAt(slot, base) }).catch(() => {});
}
