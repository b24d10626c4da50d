/**
 * Operations on many stored workflows at once, chosen by a filter: stop, resume, delete. They page through the
 * checkpointer's `listWorkflows` (any adapter), so they work on every backend; a dry run only counts.
 *
 * @module
 */
import type { WorkflowRecord, WorkflowStatus } from "@graph/checkpoint";

/**
 * Which stored workflows a bulk operation touches. Every given field must match; an empty filter matches every
 * root workflow (child workflows of nested graphs and map items go with their root).
 *
 * @example
 * ```ts
 * const stale: WorkflowFilter = {
 *   status: ["paused", "failed"],
 *   graph: "support-agent",
 *   idPrefix: "tenant-7/",
 *   updatedBefore: new Date(Date.now() - 7 * 24 * 3_600_000),
 * };
 * ```
 */
export interface WorkflowFilter {
  /** One status or several. */
  readonly status?: WorkflowStatus | readonly WorkflowStatus[];
  /** The graph's name (`new Graph(nodes, { name })`). */
  readonly graph?: string;
  /** Workflow ids starting with this. */
  readonly idPrefix?: string;
  /** Created before this time. */
  readonly createdBefore?: Date;
  /** Last written before this time (how long it has sat untouched). */
  readonly updatedBefore?: Date;
  /** Child workflows too (default `false`: roots only; deleting or stopping a root covers its children). */
  readonly includeChildren?: boolean;
  /** Any other test on the stored record (for example a prefix of the pause's `responseKey`). */
  readonly where?: (workflow: WorkflowRecord) => boolean;
}

/**
 * Options of every bulk operation.
 *
 * @example
 * ```ts
 * const options: BulkOptions = { dryRun: true, pageSize: 200, onProgress: (p) => console.log(p.scanned, p.matched) };
 * ```
 */
export interface BulkOptions {
  /** Count (and list) what would be touched, touching nothing. */
  readonly dryRun?: boolean;
  /** Records read per page (default 100, at most 1,000). */
  readonly pageSize?: number;
  /** Stop after this many matches. */
  readonly limit?: number;
  /** Called after every page: progress on long scans. */
  readonly onProgress?: (progress: BulkProgress) => void;
}

/**
 * Where a bulk operation is: records read, matched, and done so far.
 *
 * @example
 * ```ts
 * const show = (p: BulkProgress) => `${p.done}/${p.matched} done (${p.scanned} read)`;
 * ```
 */
export interface BulkProgress {
  readonly scanned: number;
  readonly matched: number;
  readonly done: number;
}

/**
 * What a bulk operation did. `ids` are the matched workflows (all of them, in listing order); `done` counts those
 * the operation changed; `skipped` and `failed` say which it left and why.
 *
 * @example
 * ```ts
 * declare const report: BulkReport;
 * if (report.failed.length > 0) console.error(report.failed.map((f) => `${f.id}: ${String(f.error)}`));
 * ```
 */
export interface BulkReport {
  readonly dryRun: boolean;
  readonly matched: number;
  readonly done: number;
  readonly ids: readonly string[];
  readonly skipped: readonly { readonly id: string; readonly reason: string }[];
  readonly failed: readonly { readonly id: string; readonly error: unknown }[];
}
