/**
 * Statements that write several rows, or several things, at once: the steps of one workflow in one multi-row
 * upsert, the creation of a workflow with its lease taken, and the final update of a run with its lease given back.
 * Their SQL text depends on a row count or on the changed columns; each shape is rendered once and kept.
 */
import { CompiledQuery } from "kysely";
import type { TableLayout } from "./layout.js";
import type { StepRow } from "./rows.js";
import { STEP_COLUMNS, STEP_KEY } from "./statements.js";

/** Rows per multi-row statement: 18 columns × 200 rows stays far below every driver's parameter limit. */
export const ROWS_PER_STATEMENT = 200;

/** The columns a final update may set, in a fixed order (the cache key of a rendered shape). */
const UPDATABLE = [
  "status",
  "graph_hash",
  "pause",
  "error",
  "stop_requested",
  "wake_at",
  "waiting_event",
  "waiting_key",
] as const;
type UpdatableColumn = (typeof UPDATABLE)[number];

/** The due-time and wait columns: only a paused or running workflow keeps them (see `keepsTimes`). */
const TIME_COLUMNS: ReadonlySet<UpdatableColumn> = new Set(["wake_at", "waiting_event", "waiting_key"]);

/** What a run's final write sets besides the changed columns. */
export interface FinalUpdate {
  readonly changes: Partial<Record<UpdatableColumn, string | number | null>>;
  /** New counters, when the same transaction wrote steps of the workflow. */
  readonly counters?: { readonly lastSuperstep: number; readonly stepCount: number } | undefined;
  /** Gives the lease up when it is still this owner's at this epoch. */
  readonly release?: { readonly owner: string; readonly epoch: number } | undefined;
  readonly updatedAt: number;
}

/** Multi-row and merged statements of one store. */
export class BulkStatements {
  readonly #layout: TableLayout;
  readonly #shapes = new Map<string, string>();
  readonly #insertClaimed: string;
  readonly #selectWorkflow: string;

  constructor(layout: TableLayout) {
    this.#layout = layout;
    const workflows = layout.table("workflows");
    // A new workflow inserted with its lease taken: epoch 1, as a claim right after the creation would give.
    this.#insertClaimed = layout.numbered(
      `INSERT INTO ${workflows} (id, status, graph_name, graph_hash, parent_id, last_superstep, step_count, ` +
        "lease_epoch, lease_owner, lease_expires_at, created_at, updated_at, wake_at) " +
        "VALUES (?, ?, ?, ?, ?, -1, 0, 1, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING RETURNING *",
    );
    this.#selectWorkflow = layout.numbered(`SELECT * FROM ${workflows} WHERE id = ?`);
  }

  /** The column type a parameter is cast to where the database cannot infer it (inside a CASE). */
  #castType(column: UpdatableColumn): string {
    return column === "wake_at" ? this.#layout.dialect.types.integer : "TEXT";
  }

  /** Whether the dialect renders steps with the standard upsert (a custom `upsert` hook is one row at a time). */
  get multiRow(): boolean {
    return this.#layout.dialect.upsert === undefined;
  }

  #shape(key: string, render: () => string): string {
    let text = this.#shapes.get(key);
    if (text === undefined) {
      text = this.#layout.numbered(render());
      this.#shapes.set(key, text);
    }
    return text;
  }

  /** Inserts the workflow with the lease of `owner`; returns the row, or no row when the id exists. */
  insertClaimed(
    workflow: {
      readonly id: string;
      readonly graphName: string;
      readonly graphHash: string;
      readonly parentId?: string;
      readonly wakeAt?: Date;
    },
    owner: string,
    expiresAt: number,
    now: number,
  ): CompiledQuery {
    return CompiledQuery.raw(this.#insertClaimed, [
      workflow.id,
      // A delayed start waits, paused, for its due time.
      workflow.wakeAt === undefined ? "running" : "paused",
      workflow.graphName,
      workflow.graphHash,
      workflow.parentId ?? null,
      owner,
      expiresAt,
      now,
      now,
      workflow.wakeAt?.getTime() ?? null,
    ]);
  }

  /** The whole workflow row. */
  selectWorkflow(id: string): CompiledQuery {
    return CompiledQuery.raw(this.#selectWorkflow, [id]);
  }

  /** Which of the given step keys of one workflow exist (rows `{ superstep, node_name }`). */
  existingSteps(workflowId: string, keys: readonly { readonly superstep: number; readonly nodeName: string }[]) {
    const text = this.#shape(
      `exists:${keys.length}`,
      () =>
        `SELECT superstep, node_name FROM ${this.#layout.table("steps")} WHERE workflow_id = ? AND (` +
        keys.map(() => "(superstep = ? AND node_name = ?)").join(" OR ") +
        ")",
    );
    const parameters: unknown[] = [workflowId];
    for (const key of keys) parameters.push(key.superstep, key.nodeName);
    return CompiledQuery.raw(text, parameters);
  }

  /**
   * Upserts several step rows (distinct keys) in one statement; with the dialect's `insertedExpression` it returns
   * one row `{ inserted }` per step.
   */
  upsertSteps(rows: readonly StepRow[]): CompiledQuery {
    const inserted = this.#layout.dialect.insertedExpression;
    const text = this.#shape(`upsert:${rows.length}`, () => {
      const quoted = STEP_COLUMNS.map((column) => `"${column}"`);
      const tuple = `(${quoted.map(() => "?").join(", ")})`;
      const updates = STEP_COLUMNS.filter((c) => !(STEP_KEY as readonly string[]).includes(c)).map(
        (column) => `"${column}" = excluded."${column}"`,
      );
      return (
        `INSERT INTO ${this.#layout.table("steps")} (${quoted.join(", ")}) VALUES ${rows.map(() => tuple).join(", ")} ` +
        `ON CONFLICT (${STEP_KEY.map((c) => `"${c}"`).join(", ")}) DO UPDATE SET ${updates.join(", ")}` +
        (inserted === undefined ? "" : ` RETURNING ${inserted} AS inserted`)
      );
    });
    const parameters: unknown[] = [];
    for (const row of rows) for (const column of STEP_COLUMNS) parameters.push(row[column]);
    return CompiledQuery.raw(text, parameters);
  }

  /** The final update of a run: changed columns, counters, lease release; returns the row after it. */
  finalUpdate(id: string, update: FinalUpdate): CompiledQuery {
    const columns = UPDATABLE.filter((column) => column in update.changes);
    const counters = update.counters !== undefined;
    const release = update.release !== undefined;
    const text = this.#shape(`final:${columns.join(",")}:${counters}:${release}`, () => {
      // Without a new status, a due time or wait is stored only while the stored status keeps it; a new terminal
      // status arrives with them cleared already (encodeWorkflowUpdate).
      const sets = columns.map((column) =>
        TIME_COLUMNS.has(column) && !columns.includes("status")
          ? `${column} = CASE WHEN status IN ('paused', 'running') THEN CAST(? AS ${this.#castType(column)}) ELSE NULL END`
          : `${column} = ?`,
      );
      if (counters) sets.push("last_superstep = ?", "step_count = ?");
      sets.push("updated_at = ?");
      if (release) {
        const mine = "lease_owner = ? AND lease_epoch = ?";
        sets.push(
          `lease_expires_at = CASE WHEN ${mine} THEN NULL ELSE lease_expires_at END`,
          `lease_owner = CASE WHEN ${mine} THEN NULL ELSE lease_owner END`,
        );
      }
      return `UPDATE ${this.#layout.table("workflows")} SET ${sets.join(", ")} WHERE id = ? RETURNING *`;
    });
    const parameters: unknown[] = columns.map((column) => update.changes[column] ?? null);
    if (update.counters !== undefined) parameters.push(update.counters.lastSuperstep, update.counters.stepCount);
    parameters.push(update.updatedAt);
    if (update.release !== undefined) {
      const { owner, epoch } = update.release;
      parameters.push(owner, epoch, owner, epoch);
    }
    parameters.push(id);
    return CompiledQuery.raw(text, parameters);
  }
}
