/**
 * Operations across workflows — listing, deleting a workflow tree, ttl pruning, measuring — driven by the index
 * sorted sets. Each workflow's keys are written by a script in that workflow's hash slot and the indexes by a
 * script in theirs, so an index entry can briefly outlive its workflow (a crash between the two writes, or a
 * concurrent delete). Readers treat an entry without a workflow as absent and remove it.
 */
import type { ListWorkflowsOptions, Serializer, WorkflowPage, WorkflowRecord } from "@graph/checkpoint";
import {
  compareWorkflowPosition,
  decodeWorkflowCursor,
  encodeWorkflowCursor,
  resolveListLimit,
} from "@graph/checkpoint/adapter";
import type { Cluster, Redis } from "ioredis";
import { scanNodes } from "./connection.js";
import type { KeySpace } from "./keys.js";
import { decodeWorkflow } from "./records.js";
import type { ScriptCommands } from "./scripts.js";
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

interface Entry {
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
async function* walk(context: IndexContext, key: string, after: Entry | undefined): AsyncGenerator<Entry> {
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

/** `listWorkflows`: one page in (createdAt, id) order. */
export async function listWorkflows(context: IndexContext, options: ListWorkflowsOptions): Promise<WorkflowPage> {
  const limit = resolveListLimit(options.limit);
  const after = options.cursor === undefined ? undefined : decodeWorkflowCursor(options.cursor);
  const key = options.rootsOnly === true ? context.keys.index.roots : context.keys.index.all;
  const found: WorkflowRecord[] = [];
  const dangling: string[] = [];
  let pending: Entry[] = [];
  const flush = async (): Promise<void> => {
    const hashes = await Promise.all(
      pending.map((entry) => context.client.hgetall(context.keys.workflow(entry.id).workflow)),
    );
    for (const [i, hash] of hashes.entries()) {
      const entry = pending[i]!;
      if (Object.keys(hash).length === 0) {
        dangling.push(entry.id);
        continue;
      }
      if (options.status !== undefined && hash["st"] !== options.status) continue;
      if (found.length <= limit) found.push(decodeWorkflow(entry.id, hash, context.serializer, "listWorkflows"));
    }
    pending = [];
  };
  for await (const entry of walk(context, key, after)) {
    pending.push(entry);
    if (pending.length >= BATCH) await flush();
    if (found.length > limit) break;
  }
  if (found.length <= limit) await flush();
  if (dangling.length > 0) await removeFromIndexes(context, dangling);
  const page = found.slice(0, limit);
  const last = page[page.length - 1];
  return {
    workflows: page,
    ...(found.length > limit && last !== undefined
      ? { nextCursor: encodeWorkflowCursor({ createdAt: last.createdAt, id: last.id }) }
      : {}),
  };
}

/** Ids of the workflows below `id` (`id/…`), from the lexicographic index. */
export async function descendantsOf(context: IndexContext, id: string): Promise<string[]> {
  // Every id starting with "id/" sorts in [id/, id0): "0" is the byte after "/".
  return context.client.zrangebylex(context.keys.index.ids, `[${id}/`, `(${id}0`);
}

/** Deletes the keys of some workflows (each in its own slot) and then their index entries. */
export async function deleteWorkflows(context: IndexContext, ids: readonly string[]): Promise<void> {
  await Promise.all(
    ids.map((id) => {
      const keys = context.keys.workflow(id);
      return context.client.unlink(keys.workflow, keys.steps, keys.order);
    }),
  );
  await removeFromIndexes(context, ids);
  for (let i = 0; i < ids.length; i += REMOVE_CHUNK)
    await new TimeIndex(context).remove(ids.slice(i, i + REMOVE_CHUNK));
}

/**
 * Deletes root workflows not updated for `ttlMs` (and their children) unless running under a live lease.
 * Candidates come from the ttl index, whose score is a lower bound of the last update; the script decides on
 * the workflow's own data and reports the true score of a workflow it keeps. Returns the number deleted.
 */
export async function pruneExpired(context: IndexContext, ttlMs: number): Promise<number> {
  let deleted = 0;
  const ttlKey = context.keys.index.ttl;
  for (;;) {
    const cutoff = Date.now() - ttlMs;
    const candidates = await context.client.zrangebyscore(ttlKey, "-inf", cutoff, "LIMIT", 0, BATCH);
    if (candidates.length === 0) return deleted;
    let progressed = false;
    for (const id of candidates) {
      const keys = context.keys.workflow(id);
      const reply = (await context.scripts.graphPrune(
        keys.workflow,
        keys.steps,
        keys.order,
        String(ttlMs),
      )) as string[];
      if (reply[0] === "kept") {
        const score = Number(reply[1]);
        if (score > cutoff) progressed = true;
        await context.client.zadd(ttlKey, "XX", score, id);
        continue;
      }
      progressed = true;
      if (reply[0] === "deleted") deleted++;
      await deleteWorkflows(context, [...(await descendantsOf(context, id)), id]);
    }
    // Scores come from the server's clock: with a client clock ahead of it, a kept workflow may still look due.
    if (!progressed) return deleted;
  }
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
