/**
 * The scan behind `stopMany` / `resumeMany` / `deleteMany`: pages of `listWorkflows` (status, graph and id prefix
 * passed down, so the store reads only matching workflows from its indexes), the whole filter applied to each
 * record, the operation applied page by page (so a long scan shows progress and holds one page in memory). Listing
 * pages by `createdAt` then id means deleting what was already listed never skips a later record.
 */
import type { Checkpointer, WorkflowRecord, WorkflowStatus } from "@graph/checkpoint";
import type { BulkOptions, BulkReport, WorkflowFilter } from "../bulk.js";
import { KEPT_EVENT_GRAPH } from "./eventBuffer.js";
import { fail, isRecord } from "./options.js";
import { PERMIT_GRAPH } from "./storePermits.js";

const STATUSES: readonly WorkflowStatus[] = ["running", "completed", "paused", "stopped", "failed"];
const FILTER_KEYS = new Set([
  "status",
  "graph",
  "idPrefix",
  "createdBefore",
  "updatedBefore",
  "includeChildren",
  "where",
]);
const OPTION_KEYS = new Set(["dryRun", "pageSize", "limit", "onProgress"]);

/** What the operation did with one matched record: changed it, or left it with a reason. */
export type BulkVisit = { readonly done: true } | { readonly done: false; readonly reason: string };

function checkFilter(where: string, filter: unknown): asserts filter is WorkflowFilter {
  if (!isRecord(filter)) fail(where, "filter", filter, "a filter object ({ status?, graph?, idPrefix?, … })");
  for (const key of Object.keys(filter))
    if (!FILTER_KEYS.has(key)) fail(where, `filter.${key}`, filter[key], `one of ${[...FILTER_KEYS].join(", ")}`);
  const statuses = filter["status"];
  if (statuses !== undefined) {
    const list = typeof statuses === "string" ? [statuses] : statuses;
    if (!Array.isArray(list) || list.length === 0 || !list.every((s) => STATUSES.includes(s)))
      fail(where, "filter.status", statuses, `a status or a non-empty array of them (${STATUSES.join(", ")})`);
  }
  for (const key of ["graph", "idPrefix"] as const)
    if (filter[key] !== undefined && (typeof filter[key] !== "string" || filter[key] === ""))
      fail(where, `filter.${key}`, filter[key], "a non-empty string");
  for (const key of ["createdBefore", "updatedBefore"] as const) {
    const date = filter[key];
    if (date !== undefined && !(date instanceof Date && !Number.isNaN(date.getTime())))
      fail(where, `filter.${key}`, date, "a valid Date");
  }
  if (filter["includeChildren"] !== undefined && typeof filter["includeChildren"] !== "boolean")
    fail(where, "filter.includeChildren", filter["includeChildren"], "true or false");
  if (filter["where"] !== undefined && typeof filter["where"] !== "function")
    fail(where, "filter.where", filter["where"], "a function (workflow) => boolean");
}

function checkOptions(where: string, options: unknown, extra: readonly string[]): asserts options is BulkOptions {
  if (!isRecord(options)) fail(where, "options", options, "an options object ({ dryRun?, pageSize?, limit? })");
  for (const key of Object.keys(options))
    if (!OPTION_KEYS.has(key) && !extra.includes(key))
      fail(where, key, options[key], `one of ${[...OPTION_KEYS, ...extra].join(", ")}`);
  const { dryRun, pageSize, limit, onProgress } = options;
  if (dryRun !== undefined && typeof dryRun !== "boolean") fail(where, "dryRun", dryRun, "true or false");
  if (
    pageSize !== undefined &&
    !(Number.isInteger(pageSize) && (pageSize as number) >= 1 && (pageSize as number) <= 1_000)
  )
    fail(where, "pageSize", pageSize, "an integer from 1 to 1000");
  if (limit !== undefined && !(Number.isInteger(limit) && (limit as number) >= 1))
    fail(where, "limit", limit, "an integer ≥ 1");
  if (onProgress !== undefined && typeof onProgress !== "function")
    fail(where, "onProgress", onProgress, "a function (progress) => void");
}

function matcher(filter: WorkflowFilter): (w: WorkflowRecord) => boolean {
  const statuses =
    filter.status === undefined
      ? undefined
      : new Set(typeof filter.status === "string" ? [filter.status] : filter.status);
  return (w) =>
    w.graphName !== PERMIT_GRAPH &&
    w.graphName !== KEPT_EVENT_GRAPH &&
    (statuses === undefined || statuses.has(w.status)) &&
    (filter.graph === undefined || w.graphName === filter.graph) &&
    (filter.idPrefix === undefined || w.id.startsWith(filter.idPrefix)) &&
    (filter.createdBefore === undefined || w.createdAt < filter.createdBefore) &&
    (filter.updatedBefore === undefined || w.updatedAt < filter.updatedBefore) &&
    (filter.includeChildren === true || w.parentId === undefined) &&
    (filter.where === undefined || filter.where(w));
}

/**
 * Validates the call, then visits every stored workflow the filter matches (none when `dryRun`), page by page.
 * `visit` errors are collected per workflow, never thrown: one bad record does not stop the rest.
 */
export async function scanWorkflows(
  where: string,
  checkpointer: Checkpointer | undefined,
  filter: unknown,
  options: unknown,
  extraOptions: readonly string[],
  visit: (workflow: WorkflowRecord) => Promise<BulkVisit>,
): Promise<BulkReport> {
  checkFilter(where, filter);
  checkOptions(where, options ?? {}, extraOptions);
  const opts: BulkOptions = options ?? {};
  if (checkpointer === undefined)
    fail(
      where,
      "checkpointer",
      undefined,
      "a Runner created with a checkpointer (bulk operations act on stored workflows)",
    );
  const matches = matcher(filter);
  const single =
    typeof filter.status === "string" ? filter.status : filter.status?.length === 1 ? filter.status[0] : undefined;
  const pageSize = opts.pageSize ?? 100;
  const limit = opts.limit ?? Number.POSITIVE_INFINITY;
  const dryRun = opts.dryRun === true;
  const ids: string[] = [];
  const skipped: { id: string; reason: string }[] = [];
  const failed: { id: string; error: unknown }[] = [];
  let scanned = 0;
  let done = 0;
  let cursor: string | undefined;
  do {
    const page = await checkpointer.listWorkflows({
      limit: pageSize,
      ...(cursor === undefined ? {} : { cursor }),
      // The store reads these filters from its indexes; `matches` still checks every record (an adapter written
      // before they existed ignores them).
      ...(single === undefined ? {} : { status: single }),
      ...(filter.graph === undefined ? {} : { graph: filter.graph }),
      ...(filter.idPrefix === undefined ? {} : { idPrefix: filter.idPrefix }),
      ...(filter.includeChildren === true ? {} : { rootsOnly: true }),
    });
    scanned += page.workflows.length;
    const picked = page.workflows.filter(matches).slice(0, limit - ids.length);
    for (const workflow of picked) ids.push(workflow.id);
    if (!dryRun) {
      for (const workflow of picked) {
        try {
          const outcome = await visit(workflow);
          if (outcome.done) done++;
          else skipped.push({ id: workflow.id, reason: outcome.reason });
        } catch (error) {
          failed.push({ id: workflow.id, error });
        }
      }
    }
    opts.onProgress?.({ scanned, matched: ids.length, done });
    cursor = page.nextCursor;
  } while (cursor !== undefined && ids.length < limit);
  return { dryRun, matched: ids.length, done, ids, skipped, failed };
}
