/**
 * Where the store's tables live (schema, prefix) and the configured {@link SqlDialect}, in one object the store
 * passes around. Everything database-specific is delegated to the dialect.
 */

import type { AnyKysely, SqlDialect, SqlTables } from "../../SqlDialect.js";
import type { TableNames } from "./schema.js";
import { quoteIdentifier, tableNames } from "./schema.js";

export type AnyDb = AnyKysely;

/** The tables and dialect of one store instance. */
export class TableLayout {
  readonly dialect: SqlDialect;
  readonly schema: string | undefined;
  readonly prefix: string;
  readonly names: TableNames;
  readonly tables: SqlTables;

  constructor(dialect: SqlDialect, schema: string | undefined, prefix: string) {
    this.dialect = dialect;
    this.schema = schema;
    this.prefix = prefix;
    this.names = tableNames(prefix);
    this.tables = {
      workflows: this.table("workflows"),
      steps: this.table("steps"),
      migrations: this.table("migrations"),
    };
  }

  /** The query creator scoped to the configured schema. */
  scoped(db: AnyDb): AnyDb {
    return this.schema === undefined ? db : db.withSchema(this.schema);
  }

  /** A quoted, schema-qualified table reference for raw SQL. */
  table(name: keyof TableNames): string {
    const table = quoteIdentifier(this.names[name]);
    return this.schema === undefined ? table : `${quoteIdentifier(this.schema)}.${table}`;
  }

  /** Runs `body` in the dialect's write transaction. */
  write<T>(db: AnyDb, body: (trx: AnyDb) => Promise<T>): Promise<T> {
    return this.dialect.writeTransaction(db, body);
  }

  /** Runs `body` on one consistent snapshot. */
  read<T>(db: AnyDb, body: (trx: AnyDb) => Promise<T>): Promise<T> {
    return this.dialect.readTransaction(db, body);
  }

  /** Renders `?` placeholders into the dialect's form. */
  numbered(text: string): string {
    let n = 0;
    return text.replaceAll("?", () => this.dialect.placeholder(++n));
  }
}
