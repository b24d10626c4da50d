/**
 * The filters of `listWorkflows` every adapter applies the same way: the id-prefix range an index can read, and the
 * check of a record against all the filters (for adapters that filter what an index returned).
 */
import type { ListWorkflowsOptions, WorkflowRecord } from "../Checkpointer.js";

/**
 * The ids starting with `prefix` as a half-open range `[low, high)` in code point order (which is bytewise UTF-8
 * order): `high` is the prefix with its last code point incremented (trailing U+10FFFF dropped first; the surrogate
 * block skipped), `undefined` when every id from `low` on starts with it.
 */
export function prefixRange(prefix: string): readonly [low: string, high: string | undefined] {
  const points = Array.from(prefix);
  while (points.length > 0 && points[points.length - 1] === "\u{10FFFF}") points.pop();
  const last = points.pop();
  if (last === undefined) return [prefix, undefined];
  const code = last.codePointAt(0)!;
  const next = code === 0xd7ff ? 0xe000 : code + 1;
  return [prefix, points.join("") + String.fromCodePoint(next)];
}

/** Whether a record passes the filters of a listing (status, graph, id prefix, roots only). */
export function matchesListFilters(workflow: WorkflowRecord, options: ListWorkflowsOptions): boolean {
  return (
    (options.status === undefined || workflow.status === options.status) &&
    (options.graph === undefined || workflow.graphName === options.graph) &&
    (options.idPrefix === undefined || workflow.id.startsWith(options.idPrefix)) &&
    (options.rootsOnly !== true || workflow.parentId === undefined)
  );
}
