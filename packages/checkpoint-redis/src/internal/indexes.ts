/**
 * Operations across workflows — listing, deleting a workflow tree, ttl pruning, measuring — driven by the index
 * sorted sets. Each workflow's keys are written by a script in that workflow's hash slot and the indexes by a
 * script in theirs, so an index entry can briefly outlive its workflow (a crash between the two writes, or a
 * concurrent delete). Readers treat an entry without a workflow as absent and remove it.
 */
import type { Serializer } from "@graph/checkpoint";
import { compareWorkflowPosition } from "@graph/checkpoint/adapter";
import type { Cluster, Redis } from "ioredis";
import { scanNodes } from "./connection.js";
import type { KeySpace } from "./keys.js";
import type { ScriptCommands } from "./scripts.js";
import { StatusIndex } from "./statuses.js";
import { TimeIndex } from "./times.js";

/** What the cross-workflow operations need. */
export interface IndexContext {
  readonly client: Redis | Cluster;
  readonly scripts: ScriptCommands;
  readonly keys: KeySpace;
  readonly serializer: Serializer;
}

/** How many index entries one round trip reads. */
const BATCH = 200;
/** At most this many ids per index-removal script call (Lua's `unpack` has a stack limit). */
const REMOVE_CHUNK = 500;

export interface Entry {
  readonly id: string;
  readonly createdAt: Date;
}

function pairs(reply: string[]): Entry[] {
  const entries: Entry[] = [];
  for (let i = 0; i + 1 < reply.length; i += 2) {
    entries.push({ id: reply[i]!, createdAt: new Date(Number(reply[i + 1])) });
  }
  return entries;
}

/** Removes ids from every index. */
async function removeFromIndexes(context: IndexContext, ids: readonly string[]): Promise<void> {
  const { all, roots, ids: byId, ttl } = context.keys.index;
  for (let i = 0; i < ids.length; i += REMOVE_CHUNK) {
    await context.scripts.graphIndexRemove(all, roots, byId, ttl, ...ids.slice(i, i + REMOVE_CHUNK));
  }
}

/**
 * Walks an index in (createdAt, id) order after `after`, one complete createdAt group at a time (Redis orders
 * equal scores by bytes, the contract by UTF-16 code units, so each group is re-sorted here).
 */
export async function* walk(context: IndexContext, key: string, after: Entry | undefined): AsyncGenerator<Entry> {
  let min = after === undefined ? "-inf" : String(after.createdAt.getTime());
  for (;;) {
    const batch = pairs(await context.client.zrangebyscore(key, min, "+inf", "WITHSCORES", "LIMIT", 0, BATCH));
    if (batch.length === 0) return;
    let complete = batch;
    let lastScore = batch[batch.length - 1]!.createdAt.getTime();
    if (batch.length === BATCH) {
      // The last createdAt group may continue past the batch: read it whole.
      complete = batch.filter((entry) => entry.createdAt.getTime() < lastScore);
      complete.push(...pairs(await context.client.zrangebyscore(key, lastScore, lastScore, "WITHSCORES")));
    }
    complete.sort(compareWorkflowPosition);
    for (const entry of complete) {
      if (after === undefined || compareWorkflowPosition(entry, after) > 0) yield entry;
    }
    if (batch.length < BATCH) return;
    lastScore = complete[complete.length - 1]!.createdAt.getTime();
    min = `(${lastScore}`;
  }
}

/** Ids of the workflows below `id` (`id/…`), from the lexicographic index. */
export async function descendantsOf(context: IndexContext, id: string): Promise<string[]> {
  // Every id starting with "id/" sorts in [id/, id0): "0" is the byte after "/".
  return context.client.zrangebylex(context.keys.index.ids, `[${id}/`, `(${id}0`);
}

/**
 * Deletes the keys of some workflows (each in its own slot) and then their index entries. `graphs`: graph sets to
 * remove them from besides their records' own (a record already gone no longer names its graph).
 */
export async function deleteWorkflows(
  context: IndexContext,
  ids: readonly string[],
  graphs: readonly string[] = [],
): Promise<void> {
  const names = await Promise.all(
    ids.map(async (id) => {
      const keys = context.keys.workflow(id);
      const graph = await context.client.hget(keys.workflow, "gn");
      await context.client.unlink(keys.workflow, keys.steps, keys.order);
      return graph;
    }),
  );
  await removeIndexEntries(context, ids, [
    ...graphs,
    ...names.filter((name): name is string => typeof name === "string"),
  ]);
}

/** Removes deleted workflows from every index: listing, time, status and the given graphs' sets. */
async function removeIndexEntries(context: IndexContext, ids: readonly string[], graphs: readonly string[]) {
  await removeFromIndexes(context, ids);
  const statuses = new StatusIndex(context);
  const times = new TimeIndex(context);
  for (let i = 0; i < ids.length; i += REMOVE_CHUNK) {
    const chunk = ids.slice(i, i + REMOVE_CHUNK);
    await times.remove(chunk);
    await statuses.remove(chunk, graphs);
  }
}

/**
 * One batch of retention housekeeping: up to `limit` root workflows not updated for `ttlMs` (and their children),
 * unless running under a live lease. Candidates come from the ttl index, whose score is a lower bound of the last
 * update; the script decides on the workflow's own data and reports the true score of a workflow it keeps. The
 * candidates are pruned concurrently (each in its own slot), then their index entries go in one pass. Returns the
 * number deleted.
 */
export async function sweepExpired(context: IndexContext, ttlMs: number, limit: number): Promise<number> {
  const ttlKey = context.keys.index.ttl;
  const cutoff = Date.now() - ttlMs;
  const candidates = await context.client.zrangebyscore(ttlKey, "-inf", cutoff, "LIMIT", 0, limit);
  const gone: string[] = [];
  const graphs = new Set<string>();
  let deleted = 0;
  await Promise.all(
    candidates.map(async (id) => {
      const keys = context.keys.workflow(id);
      const reply = (await context.scripts.graphPrune(
        keys.workflow,
        keys.steps,
        keys.order,
        String(ttlMs),
      )) as string[];
      if (reply[0] === "kept") {
        await context.client.zadd(ttlKey, "XX", Number(reply[1]), id);
        return;
      }
      if (reply[0] === "deleted") {
        deleted++;
        if (reply[1] !== undefined && reply[1] !== "") graphs.add(reply[1]);
      }
      gone.push(id);
      const children = await descendantsOf(context, id);
      if (children.length > 0) await deleteWorkflows(context, children);
    }),
  );
  await removeIndexEntries(context, gone, [...graphs]);
  return deleted;
}

/** Bytes of every key of this store (`MEMORY USAGE … SAMPLES 0`, found with `SCAN`). */
export async function storageBytes(context: IndexContext): Promise<number> {
  let total = 0;
  for (const node of await scanNodes(context.client)) {
    let cursor = "0";
    do {
      const [next, keys] = await node.scan(cursor, "MATCH", context.keys.pattern, "COUNT", 1000);
      cursor = next;
      const sizes = await Promise.all(keys.map((key) => node.memory("USAGE", key, "SAMPLES", 0)));
      for (const size of sizes) total += Number(size ?? 0);
    } while (cursor !== "0");
  }
  return total;
}

/** Deletes every key of this store (tests, and tearing down a prefix). */
export async function clearAll(context: IndexContext): Promise<number> {
  let count = 0;
  for (const node of await scanNodes(context.client)) {
    let cursor = "0";
    do {
      const [next, keys] = await node.scan(cursor, "MATCH", context.keys.pattern, "COUNT", 1000);
      cursor = next;
      if (keys.length > 0)
        count += await Promise.all(keys.map((key) => node.unlink(key))).then((n) => n.reduce((a, b) => a + b, 0));
    } while (cursor !== "0");
  }
  return count;
}
