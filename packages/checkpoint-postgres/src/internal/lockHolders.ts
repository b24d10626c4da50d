/**
 * Who held the lock a statement timed out on. PostgreSQL keeps row locks on the rows themselves, not in
 * `pg_locks`, and the waiting statement is gone by the time its error arrives (so `pg_blocking_pids` has nothing
 * to ask about). What remains visible is the table-level lock every row locker or writer holds until its
 * transaction ends: the sessions holding one of those on the store's tables, oldest transaction first, are the
 * candidates — named by `application_name`, with their state and for how long.
 */
import type { AnyKysely, SqlTables } from "@graph/checkpoint/kysely";
import { sql } from "kysely";

/** The `application_name` prefix of this package's own connections; the role follows (`runner`, `sweeper`, …). */
export const APPLICATION_NAME = "graph-checkpointer";

/** How many holders a message names at most. */
const MAX_HOLDERS = 3;

interface HolderRow {
  readonly pid: number;
  readonly application_name: string | null;
  readonly state: string | null;
  readonly state_s: string | number | null;
  readonly xact_s: string | number | null;
  readonly query: string | null;
}

function seconds(value: string | number | null): string {
  return `${Number(value ?? 0).toFixed(1)} s`;
}

function describeHolder(row: HolderRow): string {
  const name =
    row.application_name === null || row.application_name === "" ? "an unnamed session" : row.application_name;
  const state = row.state ?? "unknown state";
  const query = (row.query ?? "").replace(/\s+/g, " ").trim();
  return (
    `${name} (pid ${row.pid}), ${state} for ${seconds(row.state_s)} in a transaction open ${seconds(row.xact_s)}` +
    (query === "" ? "" : `, last statement: ${query.length > 60 ? `${query.slice(0, 60)}…` : query}`)
  );
}

/**
 * A sentence naming the sessions that hold write or row locks on the store's tables, for a lock-timeout message.
 * Runs on a fresh pooled connection, only after a lock timeout.
 */
export async function lockHolders(db: AnyKysely, tables: SqlTables): Promise<string> {
  const result = await sql<HolderRow>`
    SELECT a.pid, a.application_name, a.state,
           extract(epoch FROM now() - a.state_change) AS state_s,
           extract(epoch FROM now() - a.xact_start) AS xact_s,
           left(a.query, 200) AS query
      FROM pg_stat_activity a
     WHERE a.pid <> pg_backend_pid()
       AND a.xact_start IS NOT NULL
       AND EXISTS (SELECT 1 FROM pg_locks l
                    WHERE l.pid = a.pid AND l.granted AND l.mode <> 'AccessShareLock'
                      AND l.relation IN (to_regclass(${tables.workflows}), to_regclass(${tables.steps})))
     ORDER BY a.xact_start, a.pid
     LIMIT ${MAX_HOLDERS + 1}`.execute(db);
  const rows = result.rows;
  if (rows.length === 0) {
    return "No session holds a lock on the workflow tables any more: the holder finished or was ended meanwhile.";
  }
  const named = rows.slice(0, MAX_HOLDERS).map(describeHolder);
  const more = rows.length > MAX_HOLDERS ? " (and more)" : "";
  return `Held by ${named.join("; ")}${more}.`;
}
