/**
 * The reads of the SQL store: steps (in history order), the pieces of a checkpoint, and a page of workflows.
 * Run through the query builder on a connection or read transaction the store provides.
 */

import { type SqlBool, sql } from "kysely";
import type {
  ListWorkflowsOptions,
  SkippedWorkflow,
  StepRecord,
  WorkflowPage,
  WorkflowRecord,
} from "../../Checkpointer.js";
import type { CheckpointError } from "../../errors.js";
import type { Serializer } from "../../Serializer.js";
import { encodeWorkflowCursor } from "../../state.js";
import { prefixRange } from "../listFilters.js";
import type { AnyDb, TableLayout } from "./layout.js";
import type { StepRow, WorkflowRow } from "./rows.js";
import { decodeStep, decodeWorkflow } from "./rows.js";

/** The steps of one workflow through a superstep, in index order. */
export async function readStepsIn(
  db: AnyDb,
  d: TableLayout,
  serializer: Serializer,
  id: string,
  throughSuperstep: number | undefined,
  operation: string,
): Promise<StepRecord[]> {
  let query = d.scoped(db).selectFrom(d.names.steps).selectAll().where("workflow_id", "=", id);
  if (throughSuperstep !== undefined) query = query.where("superstep", "<=", throughSuperstep);
  const rows = (await query.orderBy("idx").orderBy("superstep").execute()) as StepRow[];
  return rows.map((row) => decodeStep(row, serializer, operation));
}

/** The workflow's last superstep and its steps through `bound`, on one snapshot; `undefined` for unknown ids. */
export function readCheckpointIn(
  db: AnyDb,
  d: TableLayout,
  serializer: Serializer,
  id: string,
  bound: number | undefined,
): Promise<{ lastSuperstep: number; steps: StepRecord[] } | undefined> {
  return d.read(db, async (trx) => {
    const workflow = (await d
      .scoped(trx)
      .selectFrom(d.names.workflows)
      .select("last_superstep")
      .where("id", "=", id)
      .executeTakeFirst()) as Pick<WorkflowRow, "last_superstep"> | undefined;
    if (workflow === undefined) return undefined;
    return {
      lastSuperstep: Number(workflow.last_superstep),
      steps: await readStepsIn(trx, d, serializer, id, bound, "getCheckpoint"),
    };
  });
}

/** The rows of one page of workflows (one more than `limit`, to know whether a next page exists). */
export function listQuery(
  db: AnyDb,
  d: TableLayout,
  options: ListWorkflowsOptions,
  limit: number,
  after: { readonly createdAt: Date; readonly id: string } | undefined,
) {
  let query = d.scoped(db).selectFrom(d.names.workflows).selectAll();
  // Each filter users page by has an index ending in (created_at, id), so an equality filter plus the cursor is one
  // bounded range of it: the cost follows the page, not how far into the list it is.
  if (options.status !== undefined) query = query.where("status", "=", options.status);
  if (options.graph !== undefined) query = query.where("graph_name", "=", options.graph);
  if (options.rootsOnly === true) query = query.where("parent_id", "is", null);
  if (options.idPrefix !== undefined) {
    const [low, high] = prefixRange(options.idPrefix);
    query = query.where("id", ">=", low);
    if (high !== undefined) query = query.where("id", "<", high);
  }
  if (after !== undefined) {
    // A row-value comparison is what both planners turn into the start of an index range; the spelled-out
    // `created_at > ? OR (created_at = ? AND id > ?)` is not, and made every deep page read all the rows before it.
    const at = after.createdAt.getTime();
    query = query.where(sql<SqlBool>`(created_at, id) > (${at}, ${after.id})`);
  }
  return query
    .orderBy("created_at")
    .orderBy("id")
    .limit(limit + 1);
}

/** Decodes a page; a corrupt row is left out and reported in `skipped` (it must not hide every other workflow). */
export function pageOf(
  rows: readonly WorkflowRow[],
  limit: number,
  serializer: Serializer,
  classify: (error: unknown, id: string) => CheckpointError,
): WorkflowPage {
  const workflows: WorkflowRecord[] = [];
  const skipped: SkippedWorkflow[] = [];
  for (const row of rows.slice(0, limit)) {
    try {
      workflows.push(decodeWorkflow(row, serializer, "listWorkflows"));
    } catch (error) {
      skipped.push({ id: row.id, error: classify(error, row.id) });
    }
  }
  // The cursor follows the last row read, readable or not, so paging continues past a corrupt one.
  const lastRow = rows.length > limit ? rows[limit - 1] : undefined;
  const createdAt = lastRow === undefined ? Number.NaN : Number(lastRow.created_at);
  return {
    workflows,
    ...(skipped.length === 0 ? {} : { skipped }),
    ...(lastRow !== undefined && Number.isSafeInteger(createdAt)
      ? { nextCursor: encodeWorkflowCursor({ createdAt: new Date(createdAt), id: lastRow.id }) }
      : {}),
  };
}
