/**
 * The PostgreSQL checkpointer: for several machines sharing one database.
 *
 * @module
 */

import type { CheckpointPolicy, Serializer } from "@graph/checkpoint";
import { CheckpointError } from "@graph/checkpoint";
import { KyselyCheckpointer } from "@graph/checkpoint/kysely";
import { Kysely, PostgresDialect } from "kysely";
import type { Pool } from "pg";
import pg from "pg";
import type { ServerAddress } from "./internal/connection.js";
import { addressOf, describePostgresError, guardPool } from "./internal/connection.js";
import { PostgresStoreDialect } from "./internal/dialect.js";
import { DueListener, dueChannel, installDueTriggers } from "./internal/dueNotify.js";
import { APPLICATION_NAME } from "./internal/lockHolders.js";

/**
 * Options every way of connecting shares.
 *
 * @example
 * ```ts
 * const common: PostgresCommonOptions = { schema: "graph", policy: { retention: "latest" } };
 * ```
 */
export interface PostgresCommonOptions {
  /** Schema holding the tables; created by `setup()` if missing. Default `"graph"`. */
  readonly schema?: string;
  /** Prefix of the table names inside the schema. Default `""` (tables `graph.workflows`, `graph.steps`, …). */
  readonly tablePrefix?: string;
  /** Partial policy; defaults filled by `resolvePolicy` (async + full). */
  readonly policy?: Partial<CheckpointPolicy>;
  /** How values become text. Default: `defaultSerializer`. */
  readonly serializer?: Serializer;
}

/**
 * Connect with a connection string; the checkpointer owns the pool and ends it in `close()`.
 *
 * @example
 * ```ts
 * const options: PostgresConnectionStringOptions = { connectionString: "postgres://postgres@127.0.0.1:5432/postgres" };
 * ```
 */
export interface PostgresConnectionStringOptions extends PostgresCommonOptions {
  /** `postgres://user:password@host:port/database`. Default: `process.env.DATABASE_URL`. */
  readonly connectionString?: string;
  /** Maximum pool size. Default 10. */
  readonly max?: number;
  /** How long to wait for a new connection before failing. Default 10000 ms. */
  readonly connectionTimeoutMs?: number;
  /**
   * Server-side timeouts of the pool's sessions, so no call hangs behind a frozen or partitioned process (see
   * {@link PostgresTimeouts}). Defaults: lock 10 s, statement 30 s, idle in transaction 5 s, keepalive after 10 s.
   */
  readonly timeouts?: PostgresTimeouts;
}

/**
 * Timeouts set on every connection of a pool the checkpointer creates (PostgreSQL session settings
 * `lock_timeout`, `statement_timeout`, `idle_in_transaction_session_timeout`, plus TCP keepalive). Why: a holder
 * frozen (SIGSTOP, a long GC pause, a VM migration) or cut off inside a transaction keeps its row lock; without
 * these, the next holder waits for it forever (or ~2 h until the kernel's TCP keepalive gives up).
 * `0` turns one off. For a `{ pool }` or `{ db }` you pass, set them on your pool yourself (the README shows how).
 *
 * @example
 * ```ts
 * const timeouts: PostgresTimeouts = { lockTimeoutMs: 5_000, idleInTransactionTimeoutMs: 2_000 };
 * ```
 */
export interface PostgresTimeouts {
  /**
   * How long a statement waits for a row lock before failing with a `CheckpointError` that names this option.
   * Default 10000 ms.
   */
  readonly lockTimeoutMs?: number;
  /** How long one statement may run (lock waits included). Default 30000 ms. */
  readonly statementTimeoutMs?: number;
  /**
   * How long a session may sit inside an open transaction without sending anything before the SERVER ends the
   * transaction (rolled back) and the session: this is what frees the row lock of a frozen holder. The store's
   * transactions never wait on the application, so a short value is safe. Default 5000 ms.
   */
  readonly idleInTransactionTimeoutMs?: number;
  /** TCP keepalive: probe an idle connection after this long, so a dead peer is noticed. Default 10000 ms. */
  readonly keepAliveDelayMs?: number;
}

/** The defaults of {@link PostgresTimeouts}. */
const DEFAULT_TIMEOUTS: Required<PostgresTimeouts> = {
  lockTimeoutMs: 10_000,
  statementTimeoutMs: 30_000,
  idleInTransactionTimeoutMs: 5_000,
  keepAliveDelayMs: 10_000,
};

/**
 * Use an existing `pg` pool; `close()` leaves it open (the application owns it).
 *
 * @example
 * ```ts
 * import pg from "pg";
 * const options: PostgresPoolOptions = { pool: new pg.Pool({ connectionString: process.env.DATABASE_URL }) };
 * ```
 */
export interface PostgresPoolOptions extends PostgresCommonOptions {
  readonly pool: Pool;
}

/**
 * Use an existing `Kysely` instance for Postgres; `close()` leaves it open (the application owns it).
 *
 * @example
 * ```ts
 * const options: PostgresKyselyOptions = { db: appDb, schema: "workflows" };
 * ```
 */
export interface PostgresKyselyOptions extends PostgresCommonOptions {
  // The checkpointer only touches its own tables, so any database type is fine.
  readonly db: Kysely<any>;
}

/**
 * Options of {@link PostgresCheckpointer}: one of `connectionString`, `pool` or `db`, plus the common options.
 *
 * @example
 * ```ts
 * const options: PostgresCheckpointerOptions = { connectionString: "postgres://app@db:5432/app", schema: "graph" };
 * ```
 */
export type PostgresCheckpointerOptions = PostgresConnectionStringOptions | PostgresPoolOptions | PostgresKyselyOptions;

function configError(message: string, path: string): CheckpointError {
  return new CheckpointError({ message: `PostgresCheckpointer: ${message}`, operation: "constructor", path });
}

function resolveTimeouts(timeouts: PostgresTimeouts | undefined): Required<PostgresTimeouts> {
  if (timeouts === undefined) return DEFAULT_TIMEOUTS;
  if (typeof timeouts !== "object" || timeouts === null) {
    throw configError(
      "timeouts must be an object { lockTimeoutMs?, statementTimeoutMs?, idleInTransactionTimeoutMs?, keepAliveDelayMs? }.",
      "timeouts",
    );
  }
  const resolved = { ...DEFAULT_TIMEOUTS };
  for (const key of Object.keys(DEFAULT_TIMEOUTS) as (keyof PostgresTimeouts)[]) {
    const value = timeouts[key];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value < 0) {
      throw configError(
        `timeouts.${key} must be a non-negative integer of milliseconds (0 = off), got ${String(value)}.`,
        `timeouts.${key}`,
      );
    }
    resolved[key] = value;
  }
  return resolved;
}

/**
 * A {@link KyselyCheckpointer} on PostgreSQL through `pg`.
 *
 * Leases are taken with one conditional `UPDATE` (row-locked by Postgres), so two processes on two machines
 * never run one workflow at once; writes lock the workflow row (`SELECT … FOR NO KEY UPDATE`) and check the
 * fencing epoch inside their transaction. A connection that dies mid-call rejects that call with a
 * `CheckpointError` (the server rolls the transaction back) and the pool replaces the connection.
 *
 * @example
 * ```ts
 * import { PostgresCheckpointer } from "@graph/checkpoint-postgres";
 * const checkpointer = new PostgresCheckpointer(); // no connectionString: connects to process.env.DATABASE_URL
 * await checkpointer.setup();
 * await checkpointer.createWorkflow({ id: "chat-1", graphName: "chat", graphHash: "abc" });
 * const lease = await checkpointer.claimWorkflow("chat-1", { owner: "worker-1", ttlMs: 30_000 });
 * await checkpointer.close();
 * ```
 */
export class PostgresCheckpointer extends KyselyCheckpointer {
  /** The schema holding the tables. */
  readonly schema: string;
  readonly #db: Kysely<any>;
  readonly #tablePrefix: string;
  readonly #due: DueListener;
  #ready: Promise<void> | undefined;

  constructor(options: PostgresCheckpointerOptions = {}) {
    if (typeof options !== "object" || options === null) {
      throw configError(
        "options must be an object: { connectionString } | { pool } | { db }, plus schema/policy.",
        "options",
      );
    }
    const schema = options.schema ?? "graph";
    let db: Kysely<any>;
    let ownsDb = true; // for { pool }, destroying our Kysely instance leaves the application's pool open
    let server: ServerAddress | undefined;
    let settings: Required<PostgresTimeouts> | undefined;
    // How the LISTEN connection of watchDue connects (none for an application's own Kysely instance).
    let listen: pg.ClientConfig | undefined;
    if ("db" in options && options.db !== undefined) {
      db = options.db;
      ownsDb = false;
    } else if ("pool" in options && options.pool !== undefined) {
      const pool = options.pool;
      if (typeof pool.connect !== "function") throw configError("pool must be a pg.Pool.", "pool");
      server = addressOf(pool.options.connectionString, pool.options);
      listen = { ...pool.options };
      db = new Kysely<any>({ dialect: new PostgresDialect({ pool: guardPool(pool, false) }) });
    } else {
      const connection = options as PostgresConnectionStringOptions;
      const connectionString = connection.connectionString ?? process.env["DATABASE_URL"];
      if (typeof connectionString !== "string" || connectionString === "") {
        throw configError(
          'no database to connect to. Pass { connectionString: "postgres://user@host:5432/db" }, a pg pool ' +
            "({ pool }), a Kysely instance ({ db }), or set DATABASE_URL.",
          "connectionString",
        );
      }
      server = addressOf(connectionString);
      const max = connection.max ?? 10;
      if (!Number.isSafeInteger(max) || max < 1) {
        throw configError(`max must be a positive integer (the pool size), got ${String(max)}.`, "max");
      }
      const timeout = connection.connectionTimeoutMs ?? 10_000;
      if (!Number.isSafeInteger(timeout) || timeout < 0) {
        throw configError(
          `connectionTimeoutMs must be a non-negative integer of milliseconds, got ${String(timeout)}.`,
          "connectionTimeoutMs",
        );
      }
      settings = resolveTimeouts(connection.timeouts);
      listen = { connectionString, connectionTimeoutMillis: timeout };
      const pool = new pg.Pool({
        connectionString,
        max,
        connectionTimeoutMillis: timeout,
        idleTimeoutMillis: 30_000,
        keepAlive: settings.keepAliveDelayMs > 0,
        keepAliveInitialDelayMillis: settings.keepAliveDelayMs,
        // Sent as startup parameters: no extra round trip. pg skips a 0 (the server default: off).
        lock_timeout: settings.lockTimeoutMs,
        statement_timeout: settings.statementTimeoutMs,
        idle_in_transaction_session_timeout: settings.idleInTransactionTimeoutMs,
        application_name: `${APPLICATION_NAME} runner`,
      });
      db = new Kysely<any>({ dialect: new PostgresDialect({ pool: guardPool(pool, true) }) });
    }
    super({
      db,
      dialect: new PostgresStoreDialect({
        describeError: (error) => describePostgresError(error, server, schema, settings),
      }),
      schema,
      tablePrefix: options.tablePrefix ?? "",
      ...(options.policy === undefined ? {} : { policy: options.policy }),
      ...(options.serializer === undefined ? {} : { serializer: options.serializer }),
      destroyOnClose: ownsDb,
    });
    this.schema = schema;
    this.#db = db;
    this.#tablePrefix = options.tablePrefix ?? "";
    this.#due = new DueListener(listen, dueChannel(schema, this.#tablePrefix));
  }

  /** Creates or migrates the tables, then installs the triggers that announce due times (see `watchDue`). */
  override setup(): Promise<void> {
    this.#ready ??= (async () => {
      await super.setup();
      await installDueTriggers(this.#db, this.schema, this.#tablePrefix);
    })().catch((error: unknown) => {
      this.#ready = undefined; // a failed setup is tried again by the next call
      throw error;
    });
    return this.#ready;
  }

  /**
   * Tells `onDue` of every due time stored in this schema, by any process, as its transaction commits: one
   * dedicated `LISTEN` connection (outside the pool) while someone watches, reconnecting when it is lost. Not
   * available on a checkpointer built on your own Kysely instance (`{ db }`): it rejects, and runners re-read
   * `nextDue` instead. See `Checkpointer.watchDue`.
   */
  async watchDue(onDue: (at: Date) => void): Promise<() => Promise<void>> {
    await this.setup();
    return this.#due.watch(onDue);
  }

  /** Stops listening for due times, then closes the store (see `KyselyCheckpointer.close`). */
  override async close(): Promise<void> {
    await this.#due.close();
    await super.close();
  }
}
