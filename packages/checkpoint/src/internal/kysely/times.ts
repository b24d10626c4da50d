/**
 * The time queries of the SQL store — `listDue`, `nextDue`, `listWaiting` — each one range read of a partial index
 * of schema version 3 (`workflows_due` on due time then id, `workflows_waiting` on event, key, creation then id).
 * The status filter restates the contract: only paused and running workflows ever keep a due time or a wait. It is
 * written as an expression (`status || ''`) so that no planner reads the status index for it instead of the due-time
 * or wait index (most workflows are paused or running: that would read them all).
 */
import { sql } from "kysely";
import type { DueWorkflow, EventWait } from "../../Checkpointer.js";
import { corruptRecordError } from "../recordGuards.js";
import type { AnyDb, TableLayout } from "./layout.js";

type Int = number | string | bigint;

function dueAt(id: string, value: Int, operation: string): number {
  const ms = Number(value);
  if (Number.isSafeInteger(ms)) return ms;
  throw corruptRecordError({ workflowId: id, field: "workflow column wake_at", operation, backup: "the database" });
}

/** Paused or running workflows due at or before `before` (ms), earliest first, ties by id. */
export async function listDueIn(db: AnyDb, d: TableLayout, before: number, limit: number): Promise<DueWorkflow[]> {
  const rows = (await d
    .scoped(db)
    .selectFrom(d.names.workflows)
    .select(["id", "wake_at"])
    .where("wake_at", "is not", null)
    .where("wake_at", "<=", before)
    .where(sql<string>`status || ''`, "in", ["paused", "running"])
    .orderBy("wake_at")
    .orderBy("id")
    .limit(limit)
    .execute()) as { id: string; wake_at: Int }[];
  return rows.map((row) => ({ id: row.id, wakeAt: new Date(dueAt(row.id, row.wake_at, "listDue")) }));
}

/** The earliest due time of a paused or running workflow. */
export async function nextDueIn(db: AnyDb, d: TableLayout): Promise<Date | undefined> {
  const row = (await d
    .scoped(db)
    .selectFrom(d.names.workflows)
    .select(["id", "wake_at"])
    .where("wake_at", "is not", null)
    .where(sql<string>`status || ''`, "in", ["paused", "running"])
    .orderBy("wake_at")
    .orderBy("id")
    .limit(1)
    .executeTakeFirst()) as { id: string; wake_at: Int } | undefined;
  return row === undefined ? undefined : new Date(dueAt(row.id, row.wake_at, "nextDue"));
}

/** Ids of the paused workflows waiting for exactly `wait`, oldest first (creation time, then id). */
export async function listWaitingIn(db: AnyDb, d: TableLayout, wait: EventWait, limit: number): Promise<string[]> {
  const rows = (await d
    .scoped(db)
    .selectFrom(d.names.workflows)
    .select("id")
    .where("waiting_event", "=", wait.event)
    .where("waiting_key", "=", wait.key)
    .where(sql<string>`status || ''`, "=", "paused")
    .orderBy("created_at")
    .orderBy("id")
    .limit(limit)
    .execute()) as { id: string }[];
  return rows.map((row) => row.id);
}
