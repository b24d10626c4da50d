// Where the demo keeps its workflows, as plain data: the command line resolves it once, and the worker processes of
// `--workers` receive it in their environment and open the same store.
import type { Checkpointer } from "@graph/checkpoint";
import { SqliteCheckpointer } from "@graph/checkpoint-sqlite";

export type StoreSpec =
  | { readonly kind: "sqlite"; readonly path: string }
  | { readonly kind: "postgres"; readonly url: string; readonly schema: string }
  | { readonly kind: "redis"; readonly url: string; readonly prefix: string };

/**
 * Opens the storage. durability "sync": every finished step is committed before the run goes on, so a SIGKILL
 * loses nothing that finished (the default "async" batches writes in the background for speed). The PostgreSQL and
 * Redis adapters are imported only when asked for, so SQLite runs never load `pg` or `ioredis`.
 */
export async function openStore(spec: StoreSpec): Promise<Checkpointer> {
  if (spec.kind === "postgres") {
    const { PostgresCheckpointer } = await import("@graph/checkpoint-postgres");
    return new PostgresCheckpointer({
      connectionString: spec.url,
      schema: spec.schema,
      policy: { durability: "sync" },
      max: 4,
    });
  }
  if (spec.kind === "redis") {
    const { RedisCheckpointer } = await import("@graph/checkpoint-redis");
    return new RedisCheckpointer({ url: spec.url, prefix: spec.prefix, policy: { durability: "sync" } });
  }
  return new SqliteCheckpointer({ path: spec.path, policy: { durability: "sync" } });
}
