/**
 * The SQLite checkpointer: the embedded default. One file (or `:memory:`), WAL mode, safe for several processes
 * sharing the file.
 *
 * @module
 */
import path from "node:path";
import type { CheckpointPolicy, Serializer } from "@graph/checkpoint";
import { CheckpointError } from "@graph/checkpoint";
import { KyselyCheckpointer } from "@graph/checkpoint/kysely";
import { Kysely, SqliteDialect } from "kysely";
import type { CachedDatabase } from "./internal/database.js";
import { describeSqliteError, isMemoryPath, openDatabase } from "./internal/database.js";
import { SqliteStoreDialect } from "./internal/dialect.js";

/**
 * Options of {@link SqliteCheckpointer}.
 *
 * @example
 * ```ts
 * const options: SqliteCheckpointerOptions = { path: "./data/graph.db", policy: { retention: "latest" } };
 * ```
 */
export interface SqliteCheckpointerOptions {
  /** Database file (parent directories are created) or `":memory:"` for a private in-memory database. */
  readonly path: string;
  /** Partial policy; defaults filled by `resolvePolicy` (async + full). */
  readonly policy?: Partial<CheckpointPolicy>;
  /** How values become text. Default: `defaultSerializer`. */
  readonly serializer?: Serializer;
  /** How long a write waits for another process's write lock before failing. Default 5000 ms. */
  readonly busyTimeoutMs?: number;
  /** Prefix of the table names, for sharing a file with other tables. Default `"graph_"`. */
  readonly tablePrefix?: string;
}

/**
 * A {@link KyselyCheckpointer} on a SQLite file through better-sqlite3.
 *
 * The file is opened lazily (on `setup()` or the first call) in WAL mode with `synchronous = NORMAL` (a commit
 * survives a process crash; a power loss may lose the last few commits, never corrupt the file), foreign keys
 * on and a busy timeout. Every write transaction starts with `BEGIN IMMEDIATE`, so processes sharing the file
 * queue for the write lock instead of failing with `SQLITE_BUSY`; readers never block.
 *
 * @example
 * ```ts
 * import { SqliteCheckpointer } from "@graph/checkpoint-sqlite";
 * const checkpointer = new SqliteCheckpointer({ path: "./data/graph.db" });
 * await checkpointer.setup();
 * await checkpointer.createWorkflow({ id: "chat-1", graphName: "chat", graphHash: "abc" });
 * const lease = await checkpointer.claimWorkflow("chat-1", { owner: "worker-1", ttlMs: 30_000 });
 * await checkpointer.close();
 * ```
 */
export class SqliteCheckpointer extends KyselyCheckpointer {
  /** The database file (or `":memory:"`). */
  readonly path: string;

  constructor(options: SqliteCheckpointerOptions) {
    const file = options?.path;
    if (typeof file !== "string") {
      throw new CheckpointError({
        message:
          'SqliteCheckpointer needs { path }: a database file such as "./data/graph.db" (parent directories are ' +
          'created), or ":memory:" for an in-memory database.',
        operation: "constructor",
        path: "path",
      });
    }
    const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
    if (!Number.isSafeInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
      throw new CheckpointError({
        message: `SqliteCheckpointer: busyTimeoutMs must be a non-negative integer of milliseconds, got ${String(busyTimeoutMs)}.`,
        operation: "constructor",
        path: "busyTimeoutMs",
      });
    }
    // One handle for Kysely and for the store's synchronous statements (see SqliteStoreDialect.writeNow).
    let opened: CachedDatabase | undefined;
    const database = () => {
      opened ??= openDatabase(file, busyTimeoutMs);
      return opened;
    };
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: async () => database() }) });
    super({
      db,
      dialect: new SqliteStoreDialect({
        ...(isMemoryPath(file) ? {} : { writeLockKey: path.resolve(file) }),
        describeError: (error) => describeSqliteError(error, file, busyTimeoutMs),
        database,
      }),
      ...(options.tablePrefix === undefined ? {} : { tablePrefix: options.tablePrefix }),
      ...(options.policy === undefined ? {} : { policy: options.policy }),
      ...(options.serializer === undefined ? {} : { serializer: options.serializer }),
    });
    this.path = file;
  }
}
