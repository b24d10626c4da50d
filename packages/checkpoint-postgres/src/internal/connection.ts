/**
 * Pool handling and error messages for the Postgres adapter.
 */
import type { PostgresPool } from "kysely";
import type { Pool, PoolClient } from "pg";

/** Where the server is, for error messages. */
export interface ServerAddress {
  readonly host: string;
  readonly port: number;
}

/** Host and port from a connection URL (`postgres://user@host:port/db`), when it is one. */
export function addressOf(
  connectionString: string | undefined,
  fallback?: { host?: unknown; port?: unknown },
): ServerAddress {
  if (connectionString !== undefined) {
    try {
      const url = new URL(connectionString);
      if (url.hostname !== "") return { host: decodeURIComponent(url.hostname), port: Number(url.port || 5432) };
      const host = url.searchParams.get("host");
      if (host !== null) return { host, port: Number(url.searchParams.get("port") ?? url.port ?? 5432) || 5432 };
    } catch {
      // keyword/value strings ("host=… port=…"): fall through
      const host = /(?:^|\s)host=(\S+)/.exec(connectionString)?.[1];
      const port = /(?:^|\s)port=(\d+)/.exec(connectionString)?.[1];
      if (host !== undefined) return { host, port: Number(port ?? 5432) };
    }
  }
  return {
    host: typeof fallback?.host === "string" && fallback.host !== "" ? fallback.host : "localhost",
    port: typeof fallback?.port === "number" ? fallback.port : Number(fallback?.port ?? 5432) || 5432,
  };
}

/**
 * Wraps a `pg` pool for kysely so that a connection dying while it is checked out (a terminated backend, a
 * dropped network) can never crash the process: `pg` clients emit `error` events and an unhandled one throws.
 * The dead client is then dropped by the pool on release (pg-pool discards clients that are not queryable).
 */
export function guardPool(pool: Pool, owned: boolean): PostgresPool {
  const guarded = new WeakSet<PoolClient>();
  const ignore = (): void => undefined;
  const guard = (client: PoolClient): void => {
    if (guarded.has(client)) return;
    guarded.add(client);
    client.on("error", ignore);
  };
  // An idle client that loses its connection is reported on the pool; without a listener that is a crash.
  if (owned || pool.listenerCount("error") === 0) pool.on("error", ignore);
  // pg-pool removes its own (idle) listener from a client right before handing it over, and the hand-over resolves
  // `connect()` a microtask later: a fatal message parsed in the same chunk as the connection's ReadyForQuery (a
  // backend terminated as it started: failovers, restarts, pg_terminate_backend) would hit a client with no
  // listener at all. "acquire" is emitted synchronously before that removal, so the client is never unguarded.
  pool.on("acquire", guard);
  return {
    connect: async () => {
      for (let attempt = 0; ; attempt++) {
        const client = await pool.connect();
        // A client whose connection already failed while idle: drop it (release with an error) and take another.
        const state = client as unknown as { _queryable?: boolean; _ending?: boolean };
        if ((state._queryable === false || state._ending === true) && attempt < 3) {
          client.release(true);
          continue;
        }
        guard(client); // a client acquired before this wrapper existed (an application's pool)
        return client;
      }
    },
    end: () => (owned ? pool.end() : Promise.resolve()),
  };
}

const UNREACHABLE = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ETIMEDOUT",
  "EADDRNOTAVAIL",
]);
const LOST = new Set(["57P01", "57P02", "57P03", "08000", "08003", "08006", "ECONNRESET", "EPIPE"]);

function fieldOf(error: unknown, field: string): unknown {
  return typeof error === "object" && error !== null ? (error as Record<string, unknown>)[field] : undefined;
}

/** Did the connection die (server restart, terminated backend, network)? */
export function isConnectionLost(error: unknown): boolean {
  const code = String(fieldOf(error, "code") ?? "");
  const message = error instanceof Error ? error.message : String(error);
  return LOST.has(code) || /Connection terminated|not queryable|server closed the connection/i.test(message);
}

/**
 * An actionable sentence for a `pg` error, or `undefined` for anything else. `server` is where the
 * configuration points (unknown for an application's own Kysely instance: then the error's address is used).
 */
export function describePostgresError(
  error: unknown,
  server: ServerAddress | undefined,
  schema: string,
  timeouts?: {
    readonly lockTimeoutMs: number;
    readonly statementTimeoutMs: number;
    readonly idleInTransactionTimeoutMs: number;
  },
): string | undefined {
  const code = String(fieldOf(error, "code") ?? "");
  const inner = fieldOf(error, "errors");
  const first = Array.isArray(inner) ? (inner[0] as unknown) : undefined;
  const address = fieldOf(error, "address") ?? fieldOf(first, "address");
  const port = fieldOf(error, "port") ?? fieldOf(first, "port");
  const at =
    server !== undefined
      ? `${server.host}:${server.port}`
      : `${typeof address === "string" ? address : "the configured host"}:${typeof port === "number" ? port : 5432}`;
  const message = error instanceof Error ? error.message : String(error);
  const setting = (value: number | undefined, option: string) =>
    value === undefined ? `the pool's ${option.replace(/Ms$/, "")} setting` : `timeouts.${option} (${value} ms)`;
  if (code === "55P03") {
    return (
      `waited longer than ${setting(timeouts?.lockTimeoutMs, "lockTimeoutMs")} for a workflow row lock at ` +
      `PostgreSQL ${at}: another session holds it inside a transaction (the server ends a transaction left idle ` +
      `after ${setting(timeouts?.idleInTransactionTimeoutMs, "idleInTransactionTimeoutMs")}). Nothing was written; ` +
      "retry the call. Raise timeouts.lockTimeoutMs if your transactions are legitimately slow."
    );
  }
  if (code === "25P03") {
    return (
      `PostgreSQL at ${at} ended this process's transaction: it sat idle longer than ` +
      `${setting(timeouts?.idleInTransactionTimeoutMs, "idleInTransactionTimeoutMs")} (the process was paused or ` +
      "cut off mid-write). It was rolled back, so nothing of it was written; another process may hold the workflow now."
    );
  }
  if (code === "57014" && /statement timeout/i.test(message)) {
    return (
      `a statement ran longer than ${setting(timeouts?.statementTimeoutMs, "statementTimeoutMs")} at PostgreSQL ` +
      `${at} and was cancelled; nothing was written. Raise timeouts.statementTimeoutMs for very large steps or a slow server.`
    );
  }
  if (UNREACHABLE.has(code)) {
    return `Cannot connect to PostgreSQL at ${at} (${code}). Is the server running? Set DATABASE_URL or pass connectionString.`;
  }
  if (/timeout exceeded when trying to connect/i.test(message)) {
    return (
      `Cannot connect to PostgreSQL at ${at} (timed out). Is the server running and reachable from here? ` +
      "Set DATABASE_URL or pass connectionString (raise connectionTimeoutMs for slow networks)."
    );
  }
  if (isConnectionLost(error)) {
    return (
      `the connection to PostgreSQL at ${at} was lost during the call (${code === "" ? message : `${code}: ${message}`}). ` +
      "The transaction was rolled back by the server, so nothing was half-written. Retry the call; the pool " +
      "replaces the dead connection."
    );
  }
  if (code === "28P01" || code === "28000") {
    return `PostgreSQL at ${at} rejected the login (${code}: ${message}). Check the user and password in the connection string.`;
  }
  if (code === "3D000") {
    return `${message} (PostgreSQL at ${at}). Create the database (createdb) or fix the database name in the connection string.`;
  }
  if (code === "42501") {
    return (
      `permission denied at PostgreSQL ${at} (${message}). The user needs CREATE on the database (to create schema ` +
      `"${schema}") and on that schema, or run setup() once as a user that has them.`
    );
  }
  if (code === "53300") {
    return `PostgreSQL at ${at} has no free connection slots (${message}). Lower the pool size (max) or raise max_connections.`;
  }
  return undefined;
}
