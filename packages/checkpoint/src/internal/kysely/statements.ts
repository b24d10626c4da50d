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
  "usage",
  "budget",
  "attempt",
] as const satisfies readonly (keyof StepRow)[];

/** The primary key of the steps table. */
export const STEP_KEY = ["workflow_id", "superstep", "node_name"] as const;

/** `ON CONFLICT (key) DO UPDATE SET c = excluded.c` for every other column. */
function onConflictReplace(columns: readonly string[], key: readonly string[]): string {
  const updates = columns.filter((c) => !key.includes(c)).map((column) => `"${column}" = excluded."${column}"`);
  return `ON CONFLICT (${key.map((c) => `"${c}"`).join(", ")}) DO UPDATE SET ${updates.join(", ")}`;
}

/** The standard upsert: `INSERT … ON CONFLICT (key) DO UPDATE SET c = excluded.c` for every other column. */
function standardUpsert(table: string, columns: readonly string[], key: readonly string[]): string {
  const quoted = columns.map((column) => `"${column}"`);
  return (
    `INSERT INTO ${table} (${quoted.join(", ")}) VALUES (${quoted.map(() => "?").join(", ")}) ` +
    onConflictReplace(columns, key)
  );
}

/** Step columns stored as integers (the rest are text). */
const INTEGER_COLUMNS: ReadonlySet<string> = new Set(["superstep", "idx", "started_at", "completed_at", "truncated"]);

/** The counters after one step: the highest superstep and the time (the step count is the caller's). */
const BUMP = "last_superstep = CASE WHEN last_superstep < ? THEN ? ELSE last_superstep END, updated_at = ?";

/** Prepared SQL texts of one store. */
export class HotStatements {
  readonly #separateExistence: boolean;
  readonly #lockForStep: string;
  readonly #stepExists: string;
  readonly #upsertStep: string;
  readonly #afterStep: string;
  readonly #claim: string;
  /** The claim of an answer: also only while the workflow is still paused at the visit it answers. */
  readonly #claimPaused: string;
  readonly #release: string;
  readonly #lockWorkflow: string;
  readonly #lockCounters: string;
  readonly #renew: string;
  readonly #stopRequest: string;
  readonly #lockMany: (count: number) => string;
  readonly #locksRows: boolean;
  /** One-step writes, unfenced and fenced (index 1): the counters UPDATE, and the whole write as one statement. */
  readonly #stepCounters: readonly [string, string];
  readonly #singleStep: readonly [string, string] | undefined;

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
    const claim =
      `UPDATE ${workflows} SET lease_epoch = CASE WHEN lease_owner = ? THEN lease_epoch ELSE lease_epoch + 1 END, ` +
      `lease_owner = ?, lease_expires_at = ? ` +
      `WHERE id = ? AND (lease_owner IS NULL OR lease_expires_at <= ? OR lease_owner = ?)`;
    this.#claim = d.numbered(`${claim} RETURNING lease_epoch`);
    this.#claimPaused = d.numbered(`${claim} AND status = 'paused' AND last_superstep = ? RETURNING lease_epoch`);
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
    // In a write transaction whose reads see every committed row (SQLite's write lock; not Postgres, see above):
    // the fence in the WHERE clause, the step counted when it does not exist yet. No row back: nothing changed.
    const counters = (fenced: boolean) =>
      d.numbered(
        `UPDATE ${workflows} SET step_count = step_count + CASE WHEN EXISTS (SELECT 1 FROM ${steps} s ` +
          `WHERE s.workflow_id = ? AND s.superstep = ? AND s.node_name = ?) THEN 0 ELSE 1 END, ${BUMP} ` +
          `WHERE id = ?${fenced ? " AND lease_epoch = ?" : ""} RETURNING step_count`,
      );
    this.#stepCounters = [counters(false), counters(true)];
    // Postgres, one statement: lock the row if the fence holds (a claim in flight is waited for and
    // the fence rechecked on the row it committed), insert the step from that row (none when the fence failed),
    // then count it from the upsert's own answer, which sees rows committed after the statement's snapshot.
    const inserted = d.dialect.insertedExpression;
    const single = (fenced: boolean) => {
      const quoted = STEP_COLUMNS.map((column) => `"${column}"`);
      const casts = STEP_COLUMNS.map((c) => `CAST(? AS ${INTEGER_COLUMNS.has(c) ? d.dialect.types.integer : "TEXT"})`);
      return d.numbered(
        `WITH fenced AS (SELECT w.id FROM ${workflows} w WHERE w.id = ?${fenced ? " AND w.lease_epoch = ?" : ""}` +
          `${d.dialect.rowLock}), stored AS (INSERT INTO ${steps} (${quoted.join(", ")}) SELECT ${casts.join(", ")} ` +
          `FROM fenced ${onConflictReplace(STEP_COLUMNS, STEP_KEY)} RETURNING ${inserted} AS inserted) ` +
          `UPDATE ${workflows} SET step_count = step_count + (SELECT count(*) FROM stored WHERE inserted), ${BUMP} ` +
          "WHERE id = ? AND EXISTS (SELECT 1 FROM stored) RETURNING step_count",
      );
    };
    this.#singleStep =
      d.dialect.writableCte === true && inserted !== undefined ? [single(false), single(true)] : undefined;
    this.#release = d.numbered(
      `UPDATE ${workflows} SET lease_owner = NULL, lease_expires_at = NULL WHERE id = ? AND lease_owner = ? AND lease_epoch = ?`,
    );
  }

  /** Takes or renews the lease; returns a row `{ lease_epoch }` only when the claim won. */
  claim(workflowId: string, owner: string, expiresAt: number, now: number, ifPausedAt?: number): CompiledQuery {
    return ifPausedAt === undefined
      ? CompiledQuery.raw(this.#claim, [owner, owner, expiresAt, workflowId, now, owner])
      : CompiledQuery.raw(this.#claimPaused, [owner, owner, expiresAt, workflowId, now, owner, ifPausedAt]);
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

  /**
   * The counters of one step's write, fenced by `epoch` when given: a row back when the workflow exists and the
   * fence holds (the step then counts if it is new). Only where reads see every committed row (`readsBeforeLockWait`
   * false); the upsert follows in the same transaction.
   */
  stepCounters(step: StepRow, epoch: number | undefined, now: number): CompiledQuery {
    const id = step.workflow_id;
    const parameters: unknown[] = [id, step.superstep, step.node_name, step.superstep, step.superstep, now, id];
    if (epoch !== undefined) parameters.push(epoch);
    return CompiledQuery.raw(this.#stepCounters[epoch === undefined ? 0 : 1], parameters);
  }

  /** Whether {@link singleStep} has a statement on this dialect. */
  get hasSingleStep(): boolean {
    return this.#singleStep !== undefined;
  }

  /**
   * One step's whole write as one statement (fence, upsert, counters), or `undefined` where the dialect cannot run
   * it (`writableCte`). A row back when it wrote; none when the workflow is unknown or the fence is stale.
   */
  singleStep(step: StepRow, epoch: number | undefined, now: number): CompiledQuery | undefined {
    if (this.#singleStep === undefined) return undefined;
    const id = step.workflow_id;
    const parameters: unknown[] = epoch === undefined ? [id] : [id, epoch];
    for (const column of STEP_COLUMNS) parameters.push(step[column]);
    parameters.push(step.superstep, step.superstep, now, id);
    return CompiledQuery.raw(this.#singleStep[epoch === undefined ? 0 : 1], parameters);
  }

  /** Updates the workflow's counters after a step. */
  afterStep(workflowId: string, lastSuperstep: number, stepCount: number, updatedAt: number): CompiledQuery {
    return CompiledQuery.raw(this.#afterStep, [lastSuperstep, stepCount, updatedAt, workflowId]);
  }
}
