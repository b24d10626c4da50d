/**
 * Table layout and versioned migrations of the SQL store. One definition for every dialect: the only
 * differences are the column types the dialect names (`BIGINT` on Postgres, where ms timestamps overflow
 * `integer`; id columns with a bytewise collation, `"C"` on Postgres, like SQLite's BINARY).
 */
import type { SqlDialect } from "../../SqlDialect.js";

/** Unqualified table names for a prefix. */
export interface TableNames {
  readonly workflows: string;
  readonly steps: string;
  readonly migrations: string;
  /** Graph structures by definition hash (schema version 3, `@graph/upgrade`). */
  readonly graphStructures: string;
  /** Node-result cache entries (schema version 5, the runtime's `checkpointerCache`). */
  readonly nodeCache: string;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** True when `name` can be used as (part of) a SQL identifier without surprises. */
export function isPlainIdentifier(name: string): boolean {
  return IDENTIFIER.test(name) && name.length <= 48;
}

/** Table names for a prefix (validated by the caller). */
export function tableNames(prefix: string): TableNames {
  return {
    workflows: `${prefix}workflows`,
    steps: `${prefix}steps`,
    migrations: `${prefix}migrations`,
    graphStructures: `${prefix}structures`,
    nodeCache: `${prefix}node_cache`,
  };
}

/** Quotes an identifier (both dialects use double quotes). */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** What a migration needs to render its DDL. */
interface DdlContext {
  readonly types: SqlDialect["types"];
  readonly prefix: string;
  /** A quoted, schema-qualified table reference. */
  table(name: keyof TableNames): string;
}

/** One schema change. Statements run in order inside the migration transaction. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  statements(context: DdlContext): readonly string[];
}

/** All migrations, in version order. Never edit a released migration; append a new one. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "workflows and steps",
    statements: (c) => {
      const int = c.types.integer;
      const key = c.types.key;
      const index = (name: string) => quoteIdentifier(`${c.prefix}${name}`);
      return [
        `CREATE TABLE IF NOT EXISTS ${c.table("workflows")} (
          id ${key} NOT NULL PRIMARY KEY,
          status TEXT NOT NULL,
          graph_name TEXT NOT NULL,
          graph_hash TEXT NOT NULL,
          parent_id ${key},
          pause TEXT,
          error TEXT,
          last_superstep ${int} NOT NULL DEFAULT -1,
          step_count ${int} NOT NULL DEFAULT 0,
          lease_owner TEXT,
          lease_epoch ${int} NOT NULL DEFAULT 0,
          lease_expires_at ${int},
          created_at ${int} NOT NULL,
          updated_at ${int} NOT NULL
        )`,
        `CREATE INDEX IF NOT EXISTS ${index("workflows_created")} ON ${c.table("workflows")} (created_at, id)`,
        `CREATE TABLE IF NOT EXISTS ${c.table("steps")} (
          workflow_id ${key} NOT NULL REFERENCES ${c.table("workflows")} (id) ON DELETE CASCADE,
          superstep ${int} NOT NULL,
          node_name ${key} NOT NULL,
          idx ${int} NOT NULL,
          status TEXT NOT NULL,
          input_versions TEXT NOT NULL,
          value_keys TEXT NOT NULL,
          "values" TEXT NOT NULL,
          decision TEXT,
          child_workflow_id TEXT,
          pause TEXT,
          truncated INTEGER NOT NULL DEFAULT 0,
          error TEXT,
          started_at ${int} NOT NULL,
          completed_at ${int} NOT NULL,
          PRIMARY KEY (workflow_id, superstep, node_name)
        )`,
        `CREATE INDEX IF NOT EXISTS ${index("steps_order")} ON ${c.table("steps")} (workflow_id, idx)`,
      ];
    },
  },
  {
    version: 2,
    name: "durable stop requests",
    statements: (c) => [`ALTER TABLE ${c.table("workflows")} ADD COLUMN stop_requested TEXT`],
  },
  {
    version: 3,
    name: "due times and event waits",
    // Partial indexes: only the few workflows that are due or waiting are in them, and listDue / nextDue /
    // listWaiting read them in order (due time then id; event, key, creation then id) without a sort.
    statements: (c) => {
      const index = (name: string) => quoteIdentifier(`${c.prefix}${name}`);
      const workflows = c.table("workflows");
      return [
        `ALTER TABLE ${workflows} ADD COLUMN wake_at ${c.types.integer}`,
        `ALTER TABLE ${workflows} ADD COLUMN waiting_event TEXT`,
        `ALTER TABLE ${workflows} ADD COLUMN waiting_key TEXT`,
        `CREATE INDEX IF NOT EXISTS ${index("workflows_due")} ON ${workflows} (wake_at, id) WHERE wake_at IS NOT NULL`,
        `CREATE INDEX IF NOT EXISTS ${index("workflows_waiting")} ON ${workflows} ` +
          "(waiting_event, waiting_key, created_at, id) WHERE waiting_event IS NOT NULL",
      ];
    },
  },
  {
    version: 4,
    name: "graph structures",
    // Content-addressed and shared by every workflow of one graph version: no change to the workflow rows.
    statements: (c) => [
      `CREATE TABLE IF NOT EXISTS ${c.table("graphStructures")} (
        hash ${c.types.key} NOT NULL PRIMARY KEY,
        structure TEXT NOT NULL,
        created_at ${c.types.integer} NOT NULL
      )`,
    ],
  },
  {
    version: 5,
    name: "node cache",
    // Shared by every workflow and process on the store; the index on last use is what eviction reads in order.
    statements: (c) => [
      `CREATE TABLE IF NOT EXISTS ${c.table("nodeCache")} (
        cache_key ${c.types.key} NOT NULL PRIMARY KEY,
        value TEXT NOT NULL,
        expires_at ${c.types.integer},
        used_at ${c.types.integer} NOT NULL
      )`,
      `CREATE INDEX IF NOT EXISTS ${quoteIdentifier(`${c.prefix}node_cache_used`)} ON ${c.table("nodeCache")} (used_at, cache_key)`,
    ],
  },
  {
    version: 6,
    name: "step usage and budgets",
    // Nullable JSON texts ({ tokens?, costUsd?, calls?, wallMs? }): written by the same upsert as the rest of the
    // step, never queried by column, so no index. Rows written before read back without usage or budget.
    statements: (c) => [
      `ALTER TABLE ${c.table("steps")} ADD COLUMN "usage" TEXT`,
      `ALTER TABLE ${c.table("steps")} ADD COLUMN "budget" TEXT`,
    ],
  },
  {
    version: 7,
    name: "step attempts",
    // A nullable JSON text ({ number, repeats }) on the steps of nodes with `retry`: written by the same upsert as
    // the rest of the step, read back on resume, never queried by column, so no index. Rows written before read back
    // without an attempt.
    statements: (c) => [`ALTER TABLE ${c.table("steps")} ADD COLUMN "attempt" TEXT`],
  },
  {
    version: 8,
    name: "listing and retention indexes",
    // The filters listings and bulk operations page by (status, graph), each ending in the listing order so a filter
    // plus a cursor is one index range; and the last update of root workflows, which the retention sweeper reads
    // oldest first (partial: children are deleted with their root and never looked up by age).
    statements: (c) => {
      const index = (name: string) => quoteIdentifier(`${c.prefix}${name}`);
      const workflows = c.table("workflows");
      return [
        `CREATE INDEX IF NOT EXISTS ${index("workflows_status")} ON ${workflows} (status, created_at, id)`,
        `CREATE INDEX IF NOT EXISTS ${index("workflows_graph")} ON ${workflows} (graph_name, created_at, id)`,
        `CREATE INDEX IF NOT EXISTS ${index("workflows_expiry")} ON ${workflows} (updated_at, id) ` +
          "WHERE parent_id IS NULL",
      ];
    },
  },
];

/** The newest schema version this code knows. */
export const LATEST_VERSION: number = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

/**
 * The ids of the children of `id` (those starting with `id + "/"`) as a half-open range `[low, high)` in
 * bytewise UTF-8 order (SQLite's BINARY collation, Postgres `COLLATE "C"`): "0" is the character after "/".
 * Unlike `LIKE 'id/%'`, `%`, `_` and `\` in ids are ordinary characters, and the range can use the primary key.
 */
export function childIdRange(id: string): readonly [low: string, high: string] {
  return [`${id}/`, `${id}0`];
}

/** A stable 31-bit hash (FNV-1a) of a string: the advisory-lock key of a schema + prefix. */
export function lockKey(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) & 0x7fffffff;
}
