import { existsSync } from "node:fs";
import path from "node:path";
import type { Checkpointer } from "@graph/checkpoint";

/** A usage problem of the CLI: printed without a stack, exit code 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** What `--store` named, for messages (without credentials). */
export interface OpenedStore {
  readonly checkpointer: Checkpointer;
  readonly label: string;
}

async function load<T>(specifier: string, backend: string): Promise<T> {
  try {
    return (await import(specifier)) as T;
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_MODULE_NOT_FOUND")
      throw new UsageError(
        `--store names a ${backend} store, but ${specifier} is not installed. Run: npm i ${specifier}`,
      );
    throw error;
  }
}

/**
 * Opens the checkpointer a URL names: `postgres://…` / `postgresql://…` (schema from `?schema=` or `--schema`),
 * `redis://…` / `rediss://…` (key prefix from `--prefix`), else a SQLite file (`sqlite:` or `file:` prefix
 * optional) that must exist — a typo must not check an empty new database and report "nothing blocked".
 */
export async function openStore(
  url: string,
  options: {
    readonly schema?: string | undefined;
    readonly prefix?: string | undefined;
    /** Create a missing SQLite file instead of refusing it (for tools that write, not for the check). */
    readonly create?: boolean;
  },
): Promise<OpenedStore> {
  if (/^postgres(ql)?:\/\//.test(url)) {
    const parsed = new URL(url);
    const schema = options.schema ?? parsed.searchParams.get("schema") ?? undefined;
    parsed.searchParams.delete("schema");
    const { PostgresCheckpointer } = await load<typeof import("@graph/checkpoint-postgres")>(
      "@graph/checkpoint-postgres",
      "PostgreSQL",
    );
    const checkpointer = new PostgresCheckpointer({
      connectionString: parsed.toString(),
      ...(schema === undefined ? {} : { schema }),
    });
    parsed.password = "";
    return { checkpointer, label: `${parsed.toString()}${schema === undefined ? "" : ` (schema ${schema})`}` };
  }
  if (/^rediss?:\/\//.test(url)) {
    const { RedisCheckpointer } = await load<typeof import("@graph/checkpoint-redis")>(
      "@graph/checkpoint-redis",
      "Redis",
    );
    const checkpointer = new RedisCheckpointer({
      url,
      ...(options.prefix === undefined ? {} : { prefix: options.prefix }),
    });
    const shown = new URL(url);
    shown.password = "";
    return {
      checkpointer,
      label: `${shown.toString()}${options.prefix === undefined ? "" : ` (prefix ${options.prefix})`}`,
    };
  }
  const file = path.resolve(url.replace(/^(sqlite|file):(\/\/)?/, ""));
  if (options.create !== true && !existsSync(file))
    throw new UsageError(
      `--store ${JSON.stringify(url)}: no SQLite file at ${file}. Pass the database file your workers use, or a postgres:// or redis:// URL.`,
    );
  const { SqliteCheckpointer } = await load<typeof import("@graph/checkpoint-sqlite")>(
    "@graph/checkpoint-sqlite",
    "SQLite",
  );
  return { checkpointer: new SqliteCheckpointer({ path: file }), label: `sqlite:${file}` };
}
