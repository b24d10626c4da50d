/**
 * Due times pushed between processes with PostgreSQL `LISTEN/NOTIFY`:
 * - `setup()` installs two row triggers on the workflows table: a row inserted with a `wake_at`, or updated to a
 *   different one, sends `pg_notify(<channel>, wake_at)`. PostgreSQL delivers it when (and only if) the writing
 *   transaction commits, so a due time is announced exactly when it became visible, by whatever process wrote it;
 * - `DueListener` keeps one dedicated connection (not a pool slot) that `LISTEN`s while runners watch, tells them
 *   each due time, and reconnects after a lost connection (runners' re-reads of `nextDue` cover the gap).
 */
import crypto from "node:crypto";
import { CheckpointError } from "@graph/checkpoint";
import { DuePush } from "@graph/checkpoint/adapter";
import { type Kysely, sql } from "kysely";
import pg from "pg";
import { APPLICATION_NAME } from "./lockHolders.js";

/** The channel of one store (schema and table prefix): an identifier of at most 63 bytes. */
export function dueChannel(schema: string, prefix: string): string {
  const hash = crypto.createHash("sha256").update(`${schema}\0${prefix}`).digest("hex").slice(0, 24);
  return `graph_due_${hash}`;
}

const quote = (name: string): string => `"${name.replaceAll('"', '""')}"`;
const literal = (text: string): string => `'${text.replaceAll("'", "''")}'`;

/**
 * Installs the notifying triggers once (idempotent; concurrent `setup()` calls serialise on an advisory lock). The
 * conditions keep every other write free of it: only a new or changed due time notifies.
 */
export async function installDueTriggers(db: Kysely<any>, schema: string, prefix: string): Promise<void> {
  const table = `${quote(schema)}.${quote(`${prefix}workflows`)}`;
  const fn = `${quote(schema)}.${quote(`${prefix}notify_due`)}`;
  const channel = dueChannel(schema, prefix);
  await db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${0x67726170}::int4, ${0x64756531}::int4)`.execute(trx);
    const found = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM pg_trigger t
        JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace ns ON ns.oid = c.relnamespace
       WHERE ns.nspname = ${schema} AND c.relname = ${`${prefix}workflows`}
         AND t.tgname IN (${`${prefix}workflows_due_insert`}, ${`${prefix}workflows_due_update`})`.execute(trx);
    if (Number(found.rows[0]?.n ?? 0) === 2) return;
    await sql
      .raw(
        `CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $fn$ ` +
          `BEGIN PERFORM pg_notify(${literal(channel)}, NEW.wake_at::text); RETURN NULL; END $fn$`,
      )
      .execute(trx);
    await sql.raw(`DROP TRIGGER IF EXISTS ${quote(`${prefix}workflows_due_insert`)} ON ${table}`).execute(trx);
    await sql.raw(`DROP TRIGGER IF EXISTS ${quote(`${prefix}workflows_due_update`)} ON ${table}`).execute(trx);
    await sql
      .raw(
        `CREATE TRIGGER ${quote(`${prefix}workflows_due_insert`)} AFTER INSERT ON ${table} FOR EACH ROW ` +
          `WHEN (NEW.wake_at IS NOT NULL) EXECUTE FUNCTION ${fn}()`,
      )
      .execute(trx);
    await sql
      .raw(
        `CREATE TRIGGER ${quote(`${prefix}workflows_due_update`)} AFTER UPDATE OF wake_at ON ${table} FOR EACH ROW ` +
          `WHEN (NEW.wake_at IS NOT NULL AND NEW.wake_at IS DISTINCT FROM OLD.wake_at) EXECUTE FUNCTION ${fn}()`,
      )
      .execute(trx);
  });
}

/** How long to wait before listening again after the connection was lost. */
const RECONNECT_MS = 1_000;

/** One LISTEN connection per checkpointer, open while someone watches. */
export class DueListener {
  readonly #config: pg.ClientConfig | undefined;
  readonly #channel: string;
  readonly #push: DuePush;
  #client: pg.Client | undefined;
  #retry: ReturnType<typeof setTimeout> | undefined;

  /** `config`: how to open the connection (undefined for a `{ db }` checkpointer: then no one can listen). */
  constructor(config: pg.ClientConfig | undefined, channel: string) {
    this.#config = config;
    this.#channel = channel;
    this.#push = new DuePush("PostgresCheckpointer", "LISTEN for", {
      open: () => this.#open(),
      drop: () => this.#drop(),
    });
  }

  async watch(onDue: (at: Date) => void): Promise<() => Promise<void>> {
    if (this.#config === undefined)
      throw new CheckpointError({
        message:
          "PostgresCheckpointer.watchDue(): a checkpointer built on your own Kysely instance ({ db }) has no connection to LISTEN on; runners re-read nextDue instead. Pass { connectionString } or { pool } to get pushed due times.",
        operation: "watchDue",
      });
    return await this.#push.watch(onDue);
  }

  close(): Promise<void> {
    return this.#push.close();
  }

  async #open(): Promise<void> {
    const client = new pg.Client({
      ...this.#config,
      // pg waits forever for a connection by default: an unreachable server must not hold a watcher (or close()).
      connectionTimeoutMillis: this.#config?.connectionTimeoutMillis || 10_000,
      keepAlive: true,
      application_name: `${APPLICATION_NAME} due-listener`,
    });
    client.on("notification", (message) => {
      if (message.channel === this.#channel && message.payload !== undefined)
        this.#push.watchers.notify(Number(message.payload));
    });
    const lost = () => {
      if (this.#client !== client) return;
      this.#client = undefined;
      this.#push.lost();
      client.end().catch(() => undefined);
      this.#reconnect();
    };
    client.on("error", lost);
    client.on("end", lost);
    try {
      await client.connect();
      await client.query(`LISTEN ${quote(this.#channel)}`);
    } catch (error) {
      client.removeAllListeners("end");
      client.on("error", () => undefined);
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.#push.closed || this.#push.watchers.size === 0) {
      await client.end().catch(() => undefined);
      return;
    }
    this.#client = client;
  }

  #reconnect(): void {
    if (this.#push.closed || this.#push.watchers.size === 0 || this.#retry !== undefined) return;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      this.#push.open().catch(() => this.#reconnect());
    }, RECONNECT_MS);
    this.#retry.unref?.();
  }

  async #drop(): Promise<void> {
    if (this.#retry !== undefined) clearTimeout(this.#retry);
    this.#retry = undefined;
    const client = this.#client;
    this.#client = undefined;
    if (client === undefined) return;
    client.removeAllListeners("end");
    client.on("error", () => undefined);
    await client.end().catch(() => undefined);
  }
}
