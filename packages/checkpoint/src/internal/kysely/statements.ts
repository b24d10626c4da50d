/**
 * The statements of the hot path (`saveStep`), rendered to SQL text once per store instead of being built with
 * the query builder on every call (building and compiling costs more than SQLite takes to run them). Written
 * with `?` placeholders, rendered into the dialect's form (`$1…$n` on Postgres).
 */
import { CompiledQuery } from "kysely";
import type { TableLayout } from "./layout.js";
import type { StepRow } from "./rows.js";

/** The columns of a step row, in insert order. */
export const STEP_COLUMNS = [
  "workflow_id",
  "superstep",
  "node_name",
  "idx",
  "status",
  "input_versions",
  "value_keys",
  "values",
  "decision",
  "child_workflow_id",
  "pause",
  "truncated",
  "error",
  "started_at",
  "completed_at",
] as const satisfies readonly (keyof StepRow)[];

/** The primary key of the steps table. */
export const STEP_KEY = ["workflow_id", "superstep", "node_name"] as const;

/** The standard upsert: `INSERT … ON CONFLICT (key) DO UPDATE SET c = excluded.c` for every other column. */
function standardUpsert(table: string, columns: readonly string[], key: readonly string[]): string {
  const quoted = columns.map((column) => `"${column}"`);
  const updates = columns.filter((c) => !key.includes(c)).map((column) => `"${column}" = excluded."${column}"`);
  return (
    `INSERT INTO ${table} (${quoted.join(", ")}) VALUES (${quoted.map(() => "?").join(", ")}) ` +
    `ON CONFLICT (${key.map((c) => `"${c}"`).join(", ")}) DO UPDATE SET ${updates.join(", ")}`
  );
}

/** Prepared SQL texts of one store. */
export class HotStatements {
  readonly #separateExistence: boolean;
  readonly #lockForStep: string;
  readonly #stepExists: string;
  readonly #upsertStep: string;
  readonly #afterStep: string;
  readonly #claim: string;
  readonly #release: string;
  readonly #lockWorkflow: string;
  readonly #lockCounters: string;
  readonly #renew: string;
  readonly #stopRequest: string;
  readonly #lockMany: (count: number) => string;
  readonly #locksRows: boolean;

  constructor(d: TableLayout) {
    const workflows = d.table("workflows");
    const steps = d.table("steps");
    // Whether the step exists decides if step_count grows. SQLite reads it in the same statement: the transaction
    // already holds the write lock, so its snapshot is current. Postgres must read it in a statement that starts
    // after the row lock is granted: a statement that waited for the lock still reads other tables from the
    // snapshot it took before waiting, and would miss a step committed by the previous lock holder.
    this.#separateExistence = d.dialect.readsBeforeLockWait;
    const existence = this.#separateExistence
      ? "NULL"
      : `(SELECT s.idx FROM ${steps} s WHERE s.workflow_id = w.id AND s.superstep = ? AND s.node_name = ?)`;
    this.#lockForStep = d.numbered(
      "SELECT w.lease_epoch, w.lease_owner, w.lease_expires_at, w.last_superstep, w.step_count, " +
        `${existence} AS existing FROM ${workflows} w WHERE w.id = ?${d.dialect.rowLock}`,
    );
    this.#lockWorkflow = d.numbered(
      `SELECT w.lease_epoch, w.lease_owner, w.lease_expires_at FROM ${workflows} w WHERE w.id = ?${d.dialect.rowLock}`,
    );
    this.#lockCounters = d.numbered(
      "SELECT w.lease_epoch, w.lease_owner, w.lease_expires_at, w.last_superstep, w.step_count " +
        `FROM ${workflows} w WHERE w.id = ?${d.dialect.rowLock}`,
    );
    this.#stepExists = d.numbered(
      `SELECT idx AS existing FROM ${steps} WHERE workflow_id = ? AND superstep = ? AND node_name = ?`,
    );
    this.#upsertStep = d.numbered((d.dialect.upsert ?? standardUpsert).call(d.dialect, steps, STEP_COLUMNS, STEP_KEY));
    this.#afterStep = d.numbered(
      `UPDATE ${workflows} SET last_superstep = ?, step_count = ?, updated_at = ? WHERE id = ?`,
    );
    // One conditional UPDATE decides atomically who wins a claim (see KyselyStore.claimWorkflow).
    this.#claim = d.numbered(
      `UPDATE ${workflows} SET lease_epoch = CASE WHEN lease_owner = ? THEN lease_epoch ELSE lease_epoch + 1 END, ` +
        `lease_owner = ?, lease_expires_at = ? ` +
        `WHERE id = ? AND (lease_owner IS NULL OR lease_expires_at <= ? OR lease_owner = ?) RETURNING lease_epoch`,
    );
    this.#renew = d.numbered(
      `UPDATE ${workflows} SET lease_expires_at = ? WHERE id = ? AND lease_owner = ? AND lease_epoch = ? ` +
        "RETURNING lease_epoch, stop_requested",
    );
    this.#stopRequest = d.numbered(`SELECT stop_requested FROM ${workflows} WHERE id = ?`);
    // Locks several workflow rows in id order, so two transactions locking overlapping sets never deadlock.
    const rowLock = d.dialect.rowLock;
    this.#lockMany = (count) =>
      d.numbered(
        `SELECT w.id FROM ${workflows} w WHERE w.id IN (${Array.from({ length: count }, () => "?").join(", ")}) ` +
          `ORDER BY w.id${rowLock}`,
      );
    this.#locksRows = rowLock !== "";
    this.#release = d.numbered(
      `UPDATE ${workflows} SET lease_owner = NULL, lease_expires_at = NULL WHERE id = ? AND lease_owner = ? AND lease_epoch = ?`,
    );
  }

  /** Takes or renews the lease; returns a row `{ lease_epoch }` only when the claim won. */
  claim(workflowId: string, owner: string, expiresAt: number, now: number): CompiledQuery {
    return CompiledQuery.raw(this.#claim, [owner, owner, expiresAt, workflowId, now, owner]);
  }

  /** Locks the workflow row (where the dialect locks rows) and reads its lease, for a read-then-write. */
  lockWorkflow(workflowId: string): CompiledQuery {
    return CompiledQuery.raw(this.#lockWorkflow, [workflowId]);
  }

  /** Locks the workflow row (where the dialect locks rows) and reads its lease and step counters. */
  lockCounters(workflowId: string): CompiledQuery {
    return CompiledQuery.raw(this.#lockCounters, [workflowId]);
  }

  /** Extends the lease of `owner` at `epoch`; returns `{ lease_epoch, stop_requested }` only when it still holds it. */
  renew(workflowId: string, owner: string, epoch: number, expiresAt: number): CompiledQuery {
    return CompiledQuery.raw(this.#renew, [expiresAt, workflowId, owner, epoch]);
  }

  /** Reads the stop request column of one workflow. */
  stopRequest(workflowId: string): CompiledQuery {
    return CompiledQuery.raw(this.#stopRequest, [workflowId]);
  }

  /**
   * Locks the rows of `workflowIds` in id order (dialects with row locks), or `undefined` when there is nothing to
   * order: one row, or a dialect whose write transaction already excludes every other writer.
   */
  lockInOrder(workflowIds: readonly string[]): CompiledQuery | undefined {
    const sorted = [...new Set(workflowIds)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    if (!this.#locksRows || sorted.length < 2) return undefined;
    return CompiledQuery.raw(this.#lockMany(sorted.length), sorted);
  }

  /** Gives the lease up (only for the holder's epoch). */
  release(workflowId: string, owner: string, epoch: number): CompiledQuery {
    return CompiledQuery.raw(this.#release, [workflowId, owner, epoch]);
  }

  /**
   * Locks the workflow row (Postgres) and reads its lease and counters, and on SQLite whether the step exists
   * already (`existing`; on Postgres ask {@link stepExists} next).
   */
  lockForStep(workflowId: string, superstep: number, nodeName: string): CompiledQuery {
    return CompiledQuery.raw(
      this.#lockForStep,
      this.#separateExistence ? [workflowId] : [superstep, nodeName, workflowId],
    );
  }

  /** Postgres: whether the step exists, read after the row lock is held; `undefined` when `lockForStep` told. */
  stepExists(workflowId: string, superstep: number, nodeName: string): CompiledQuery | undefined {
    return this.#separateExistence ? CompiledQuery.raw(this.#stepExists, [workflowId, superstep, nodeName]) : undefined;
  }

  /** Inserts or replaces one step row. */
  upsertStep(row: StepRow): CompiledQuery {
    return CompiledQuery.raw(
      this.#upsertStep,
      STEP_COLUMNS.map((column) => row[column]),
    );
  }

  /** Updates the workflow's counters after a step. */
  afterStep(workflowId: string, lastSuperstep: number, stepCount: number, updatedAt: number): CompiledQuery {
    return CompiledQuery.raw(this.#afterStep, [lastSuperstep, stepCount, updatedAt, workflowId]);
  }
}
