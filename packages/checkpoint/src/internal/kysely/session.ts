/**
 * The plumbing of the SQL store: every operation runs through {@link StoreSession.run} (refused after close, set
 * up once, tracked for close, failures classified), and every statement through one of its transaction or read
 * helpers (retried on a dead pooled connection; run synchronously where the dialect can).
 */
import {
  CheckpointError,
  isCheckpointError,
  isWorkflowConflictError,
  type WorkflowConflictError,
} from "../../errors.js";
import type { KyselyCheckpointerOptions } from "../../kysely.js";
import type { SqlResult } from "../../SqlDialect.js";
import type { AnyDb, TableLayout } from "./layout.js";
import { migrateIn } from "./maintenance.js";
import type { Program } from "./program.js";
import { runAsync, runSync } from "./program.js";
import type { HotStatements } from "./statements.js";

/** How often a call is retried after meeting a dead pooled connection (one per connection a pool may hold). */
const LOST_CONNECTION_RETRIES = 10;

/** How long the error-path evidence look-up may take before the error is reported without it. */
const EXPLAIN_TIMEOUT_MS = 2_000;

/** One store's connection to its database. */
export class StoreSession {
  readonly dialect: TableLayout;
  readonly #db: AnyDb;
  readonly #name: string;
  readonly #destroyOnClose: boolean;
  readonly #describeError: KyselyCheckpointerOptions["describeError"];
  readonly #isConnectionLost: (error: unknown) => boolean;
  #setup: Promise<void> | undefined;
  #ready = false;
  #closed: Promise<void> | undefined;
  readonly #inFlight = new Set<Promise<unknown>>();

  constructor(options: KyselyCheckpointerOptions, dialect: TableLayout, db: AnyDb, name: string) {
    this.dialect = dialect;
    this.#db = db;
    this.#name = name;
    this.#destroyOnClose = options.destroyOnClose ?? true;
    const d = dialect.dialect;
    this.#describeError = options.describeError ?? d.describeError?.bind(d);
    this.#isConnectionLost = options.isConnectionLost ?? d.isConnectionLost?.bind(d) ?? (() => false);
  }

  /** Runs one operation: refuses after close, sets up once, tracks it for close(), classifies failures. */
  async run<T>(
    operation: string,
    workflowId: string | undefined,
    body: () => Promise<T>,
    needsSetup = true,
  ): Promise<T> {
    if (this.#closed !== undefined) {
      throw new CheckpointError({
        message: `${this.#name}.${operation}() was called after close(). Create a new checkpointer instead.`,
        operation,
        ...(workflowId === undefined ? {} : { workflowId }),
      });
    }
    const promise = (async () => {
      try {
        if (needsSetup && !this.#ready) await this.ensureSetup();
        return await body();
      } catch (error) {
        throw this.classify(error, operation, workflowId, await this.#explain(error));
      }
    })();
    this.#inFlight.add(promise);
    try {
      return await promise;
    } finally {
      this.#inFlight.delete(promise);
    }
  }

  /**
   * The dialect's evidence for a driver error (who held a lock, ...): looked up only here, on the error path,
   * bounded by {@link EXPLAIN_TIMEOUT_MS}; a look-up that fails or hangs adds nothing.
   */
  async #explain(error: unknown): Promise<string | undefined> {
    const explain = this.dialect.dialect.explainError;
    if (explain === undefined || isCheckpointError(error) || isWorkflowConflictError(error)) return undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      return await Promise.race([
        explain.call(this.dialect.dialect, this.#db, error, this.dialect.tables),
        new Promise<undefined>((resolve) => {
          timer = setTimeout(() => resolve(undefined), EXPLAIN_TIMEOUT_MS);
        }),
      ]);
    } catch {
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  classify(
    error: unknown,
    operation: string,
    workflowId: string | undefined,
    evidence?: string,
  ): CheckpointError | WorkflowConflictError {
    if (isCheckpointError(error) || isWorkflowConflictError(error)) return error;
    const where = workflowId === undefined ? "" : ` for workflow '${workflowId}'`;
    const described = this.#describeError?.(error, { operation, ...(workflowId === undefined ? {} : { workflowId }) });
    const hint = described === undefined || evidence === undefined ? described : `${described} ${evidence}`;
    const detail = error instanceof Error ? error.message : String(error);
    return new CheckpointError({
      message:
        hint !== undefined
          ? `${this.#name}.${operation}${where} failed: ${hint}`
          : `${this.#name}.${operation}${where} failed: ${detail}. Check that the database is reachable and ` +
            "healthy (connection, permissions, disk space); the cause holds the original error.",
      operation,
      ...(workflowId === undefined ? {} : { workflowId }),
      cause: error,
    });
  }

  ensureSetup(): Promise<void> {
    this.#setup ??= this.write((trx) => migrateIn(trx, this.dialect)).then(
      () => {
        this.#ready = true;
      },
      (error: unknown) => {
        this.#setup = undefined;
        throw error;
      },
    );
    return this.#setup;
  }

  /**
   * A write transaction, retried on a fresh connection when the connection turned out to be dead before
   * `BEGIN` went through (nothing of this call reached the database then). Several pooled connections can die
   * at once (a server restart), and each failed attempt drops one, hence up to {@link LOST_CONNECTION_RETRIES}.
   */
  async write<T>(body: (trx: AnyDb) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      let started = false;
      try {
        return await this.dialect.write(this.#db, (trx) => {
          started = true;
          return body(trx);
        });
      } catch (error) {
        if (started || attempt >= LOST_CONNECTION_RETRIES || !this.#isConnectionLost(error)) throw error;
      }
    }
  }

  /** A write transaction running a statement program: synchronously when the dialect can right now. */
  transact<T>(program: () => Program<T>): Promise<T> {
    const now = this.dialect.dialect.writeNow?.(this.#db, (execute) => runSync(execute, program()));
    if (now !== undefined) return Promise.resolve(now.value);
    return this.write((trx) => runAsync(trx, program()));
  }

  /** A read, retried on a fresh connection when the connection turned out to be dead (see `#write`). */
  async read<T>(body: (db: AnyDb) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await body(this.#db);
      } catch (error) {
        if (attempt >= LOST_CONNECTION_RETRIES || !this.#isConnectionLost(error)) throw error;
      }
    }
  }

  /** One read statement of the store's own: synchronously when the dialect can right now. */
  readOne(query: ReturnType<HotStatements["stopRequest"]>): Promise<SqlResult> {
    const now = this.dialect.dialect.readNow?.(this.#db, query);
    if (now !== undefined) return Promise.resolve(now);
    return this.read((db) => db.executeQuery(query) as Promise<SqlResult>);
  }

  close(): Promise<void> {
    this.#closed ??= (async () => {
      // Let operations that already started finish (nothing is lost by a clean close), then release the pool.
      await Promise.allSettled([...this.#inFlight]);
      if (this.#destroyOnClose) await this.#db.destroy();
    })().catch((error: unknown) => {
      throw this.classify(error, "close", undefined);
    });
    return this.#closed;
  }
}
