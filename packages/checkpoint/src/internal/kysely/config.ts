/**
 * Checks the options of `KyselyCheckpointer` before anything is opened, with messages that say what to pass.
 */
import { CheckpointError } from "../../errors.js";
import type { KyselyCheckpointerOptions } from "../../kysely.js";
import type { SqlDialect } from "../../SqlDialect.js";
import { isPlainIdentifier } from "./schema.js";

/** The validated dialect, schema and table prefix of the options. */
export function checkKyselyOptions(
  options: KyselyCheckpointerOptions,
  name: string,
): { readonly dialect: SqlDialect; readonly schema: string | undefined; readonly prefix: string } {
  const config = (message: string, path: string) =>
    new CheckpointError({ message: `${name}: ${message}`, operation: "constructor", path });
  if (
    typeof options !== "object" ||
    options === null ||
    typeof (options.db as { withoutPlugins?: unknown } | undefined)?.withoutPlugins !== "function"
  ) {
    throw config("options.db must be a Kysely instance.", "db");
  }
  const dialect = options.dialect as SqlDialect | undefined;
  const hooks = ["placeholder", "writeTransaction", "readTransaction", "beginMigration", "storageBytes"] as const;
  if (typeof dialect !== "object" || dialect === null || hooks.some((hook) => typeof dialect[hook] !== "function")) {
    throw config(
      "options.dialect must be a SqlDialect (e.g. sqliteDialect() from @graph/checkpoint-sqlite or " +
        `postgresDialect() from @graph/checkpoint-postgres), got ${describeValue(dialect)}.`,
      "dialect",
    );
  }
  const prefix = options.tablePrefix ?? "graph_";
  if (typeof prefix !== "string" || (prefix !== "" && !isPlainIdentifier(prefix))) {
    throw config(
      `tablePrefix ${JSON.stringify(prefix)} is not a plain SQL identifier; use letters, digits and _ ` +
        '(at most 48 characters, not starting with a digit), e.g. "graph_".',
      "tablePrefix",
    );
  }
  const schema = options.schema;
  if (schema !== undefined) {
    if (!dialect.supportsSchemas) {
      throw config(
        `schema is not supported by the ${dialect.name} dialect; use tablePrefix or another database.`,
        "schema",
      );
    }
    if (typeof schema !== "string" || !isPlainIdentifier(schema)) {
      throw config(
        `schema ${JSON.stringify(schema)} is not a plain SQL identifier; use letters, digits and _ ` +
          '(at most 48 characters, not starting with a digit), e.g. "graph".',
        "schema",
      );
    }
  }
  return { dialect, schema, prefix };
}

function describeValue(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? String(value);
  const kind = (value as { kind?: unknown }).kind;
  return typeof kind === "string"
    ? `{ kind: ${JSON.stringify(kind)} } (the descriptor form was replaced by dialect objects)`
    : "an object without the SqlDialect hooks";
}
