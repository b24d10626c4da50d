/**
 * `listWorkflows` on Redis: the candidates come from the one sorted set that serves the most selective filter (a
 * status's, a graph's, the roots', or every workflow's; an id prefix reads a range of the lexicographic id index),
 * in (createdAt, id) order from the cursor on, read a page at a time; each candidate's record is read once, and
 * the filters are checked on it (entries of a status set can lag behind their records; see `statuses.ts`).
 */
import type { ListWorkflowsOptions, WorkflowPage, WorkflowRecord } from "@graph/checkpoint";
import {
  compareWorkflowPosition,
  decodeWorkflowCursor,
  encodeWorkflowCursor,
  matchesListFilters,
  prefixRange,
  resolveListLimit,
} from "@graph/checkpoint/adapter";
import type { IndexContext } from "./indexes.js";
import { deleteWorkflows, type Entry, walk } from "./indexes.js";
import { decodeWorkflow } from "./records.js";
import { StatusIndex } from "./statuses.js";

/** Candidates read beyond what the page needs (entries that fail their record's check are rare). */
const SLACK = 4;

/** Every workflow whose id starts with `prefix`, after `after`, in listing order (an id range, then its scores). */
async function* prefixEntries(context: IndexContext, prefix: string, after: Entry | undefined): AsyncGenerator<Entry> {
  const [low, high] = prefixRange(prefix);
  const ids = await context.client.zrangebylex(
    context.keys.index.ids,
    `[${low}`,
    high === undefined ? "+" : `(${high}`,
  );
  if (ids.length === 0) return;
  const scores = await context.client.zmscore(context.keys.index.all, ...ids);
  const entries: Entry[] = [];
  for (const [i, id] of ids.entries()) {
    const score = scores[i];
    if (score === null || score === undefined) continue;
    const entry = { id, createdAt: new Date(Number(score)) };
    if (after === undefined || compareWorkflowPosition(entry, after) > 0) entries.push(entry);
  }
  entries.sort(compareWorkflowPosition);
  yield* entries;
}

/** The candidates of a listing: from the set that serves its most selective filter. */
function candidates(context: IndexContext, options: ListWorkflowsOptions, after: Entry | undefined) {
  const { keys } = context;
  if (options.status !== undefined) return walk(context, keys.status(options.status), after);
  if (options.graph !== undefined) return walk(context, keys.graph(options.graph), after);
  if (options.idPrefix !== undefined) return prefixEntries(context, options.idPrefix, after);
  return walk(context, options.rootsOnly === true ? keys.index.roots : keys.index.all, after);
}

/** `listWorkflows`: one page in (createdAt, id) order. */
export async function listWorkflows(context: IndexContext, options: ListWorkflowsOptions): Promise<WorkflowPage> {
  const limit = resolveListLimit(options.limit);
  const after = options.cursor === undefined ? undefined : decodeWorkflowCursor(options.cursor);
  const statuses = new StatusIndex(context);
  const found: WorkflowRecord[] = [];
  const dangling: string[] = [];
  const stale: { id: string; sequence: string }[] = [];
  let pending: Entry[] = [];
  const flush = async (): Promise<void> => {
    const batch = pending;
    pending = [];
    // The sequence is read before the record: a status write that begins after it makes the drop a no-op.
    const sequences = options.status === undefined ? [] : await statuses.sequences(batch.map((entry) => entry.id));
    const hashes = await Promise.all(
      batch.map((entry) => context.client.hgetall(context.keys.workflow(entry.id).workflow)),
    );
    for (const [i, hash] of hashes.entries()) {
      const entry = batch[i]!;
      if (Object.keys(hash).length === 0) {
        dangling.push(entry.id);
        continue;
      }
      if (options.status !== undefined && hash["st"] !== options.status) {
        stale.push({ id: entry.id, sequence: sequences[i] ?? "" });
        continue;
      }
      const workflow = decodeWorkflow(entry.id, hash, context.serializer, "listWorkflows");
      if (found.length <= limit && matchesListFilters(workflow, options)) found.push(workflow);
    }
  };
  for await (const entry of candidates(context, options, after)) {
    pending.push(entry);
    if (pending.length >= limit + 1 - found.length + SLACK) await flush();
    if (found.length > limit) break;
  }
  if (found.length <= limit && pending.length > 0) await flush();
  if (dangling.length > 0) await deleteWorkflows(context, dangling);
  if (options.status !== undefined) await statuses.drop(options.status, stale);
  const page = found.slice(0, limit);
  const last = page[page.length - 1];
  return {
    workflows: page,
    ...(found.length > limit && last !== undefined
      ? { nextCursor: encodeWorkflowCursor({ createdAt: last.createdAt, id: last.id }) }
      : {}),
  };
}
