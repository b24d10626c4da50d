import fc from "fast-check";
import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult } from "kysely";
import {
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from "kysely";
import { describe, expect, it } from "vitest";
import type { StepRecord } from "../src/index.js";
import { isCheckpointError, isWorkflowConflictError } from "../src/index.js";
import { childIdRange, lockKey, MIGRATIONS } from "../src/internal/kysely/schema.js";
import type { SqlDialect } from "../src/kysely.js";
import { KyselyCheckpointer } from "../src/kysely.js";

type Responder = (sql: string, parameters: readonly unknown[]) => Record<string, unknown>[];

/** A kysely dialect whose driver records every statement and answers with `respond`. */
function recordingDb(kind: "sqlite" | "postgres", respond: Responder) {
  const log: string[] = [];
  const connection: DatabaseConnection = {
    async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
      log.push(query.sql);
      const rows = respond(query.sql, query.parameters) as R[];
      return { rows, numAffectedRows: BigInt(rows.length) };
    },
    // biome-ignore lint/correctness/useYield: the store never streams; a call is a test failure.
    async *streamQuery() {
      throw new Error("not used");
    },
  };
  const driver: Driver = {
    init: async () => undefined,
    acquireConnection: async () => connection,
    beginTransaction: async () => {
      log.push("begin");
      respond("begin", []);
    },
    commitTransaction: async () => {
      log.push("commit");
    },
    rollbackTransaction: async () => {
      log.push("rollback");
    },
    releaseConnection: async () => undefined,
    destroy: async () => undefined,
  };
  const dialect: Dialect =
    kind === "postgres"
      ? {
          createAdapter: () => new PostgresAdapter(),
          createDriver: () => driver,
          createQueryCompiler: () => new PostgresQueryCompiler(),
          createIntrospector: (db) => new PostgresIntrospector(db),
        }
      : {
          createAdapter: () => new SqliteAdapter(),
          createDriver: () => driver,
          createQueryCompiler: () => new SqliteQueryCompiler(),
          createIntrospector: (db) => new SqliteIntrospector(db),
        };
  return { db: new Kysely<any>({ dialect }), log };
}

/**
 * A dialect written in the test, as a third-party adapter would: `$n` placeholders and row locks like PostgreSQL
 * (`pg`), or `?` placeholders and no row locks like SQLite (`lite`). The store must work with it unchanged.
 */
function testDialect(style: "pg" | "lite", overrides: Partial<SqlDialect> = {}): SqlDialect {
  return {
    name: `test-${style}`,
    supportsSchemas: style === "pg",
    types: { integer: "BIGINT", key: "TEXT" },
    placeholder: (index) => (style === "pg" ? `$${index}` : "?"),
    rowLock: style === "pg" ? " FOR UPDATE OF w" : "",
    readsBeforeLockWait: style === "pg",
    writeTransaction: (db, body) => db.transaction().execute(body),
    readTransaction: (db, body) => db.transaction().execute(body),
    beginMigration: async () => undefined,
    storageBytes: async () => 42,
    ...overrides,
  };
}

/** Answers like a database holding one workflow (lease epoch 1) and schema version 1. */
const oneWorkflow: Responder = (sql) => {
  if (/from "[^"]*migrations"/.test(sql)) return [{ version: 1 }];
  if (/^select/i.test(sql) && /"[^"]*workflows"/.test(sql)) {
    return [
      { lease_epoch: 1, lease_owner: "me", lease_expires_at: Date.now() + 60_000, last_superstep: 0, step_count: 1 },
    ];
  }
  return [];
};

const step: StepRecord = {
  workflowId: "wf",
  superstep: 1,
  nodeName: "embed",
  index: 1,
  status: "completed",
  inputVersions: {},
  values: { embedding: [1, 2] },
  truncated: false,
  startedAt: new Date(0),
  completedAt: new Date(1),
};

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

describe("KyselyCheckpointer", () => {
  it("validates its options with actionable CheckpointErrors", () => {
    const { db } = recordingDb("sqlite", oneWorkflow);
    const make = (options: object) => () => new KyselyCheckpointer({ db, ...options } as never);
    const refused = (path: string) =>
      expect.objectContaining({ _tag: "CheckpointError", operation: "constructor", path });
    // Worded for the reader: the replaced descriptor form is named as such.
    expect(make({ dialect: { kind: "mysql" } })).toThrow(/options.dialect must be a SqlDialect .*descriptor form/);
    expect(make({ dialect: { kind: "mysql" } })).toThrow(refused("dialect"));
    expect(make({ dialect: undefined })).toThrow(refused("dialect"));
    expect(make({ dialect: testDialect("lite"), tablePrefix: "a-b" })).toThrow(refused("tablePrefix"));
    expect(make({ dialect: testDialect("lite"), schema: "graph" })).toThrow(refused("schema"));
    expect(make({ dialect: testDialect("pg"), schema: 'x"; drop' })).toThrow(refused("schema"));
    expect(make({ dialect: testDialect("lite"), policy: { durability: "exit", retention: "full" } })).toThrow(
      expect.objectContaining({ _tag: "CheckpointError", operation: "resolvePolicy", path: "retention" }),
    );
    expect(() => new KyselyCheckpointer({ dialect: testDialect("lite") } as never)).toThrow(refused("db"));
    for (const bad of [{ dialect: { kind: "sqlite" } }, { dialect: testDialect("lite"), tablePrefix: 7 }]) {
      const error = (() => {
        try {
          make(bad)();
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(isCheckpointError(error)).toBe(true);
    }
  });

  it("exposes the resolved policy", () => {
    const { db } = recordingDb("sqlite", oneWorkflow);
    expect(new KyselyCheckpointer({ db, dialect: testDialect("lite") }).policy).toEqual({
      durability: "async",
      retention: "full",
    });
  });

  it("migrations run the dialect's hook first, then DDL with its column types, in one transaction", async () => {
    const { db, log } = recordingDb("postgres", () => []);
    const hooks: string[] = [];
    const dialect = testDialect("pg", {
      beginMigration: async (_trx, context) => {
        hooks.push(`lock ${context.lockKey} in ${context.schema}`);
      },
      types: { integer: "BIGINT", key: 'TEXT COLLATE "C"' },
    });
    const cp = new KyselyCheckpointer({ db, dialect, schema: "graph", tablePrefix: "" });
    await cp.setup();
    expect(hooks).toEqual([`lock ${lockKey("graph.")} in graph`]);
    const statements = log.join("\n");
    expect(log[0]).toBe("begin");
    expect(statements).toMatch(/CREATE TABLE IF NOT EXISTS "graph"."migrations" \(.*applied_at BIGINT/);
    expect(statements).toMatch(/CREATE TABLE IF NOT EXISTS "graph"."workflows"/);
    expect(statements).toMatch(/id TEXT COLLATE "C" NOT NULL PRIMARY KEY/);
    expect(statements).toMatch(/last_superstep BIGINT NOT NULL/);
    expect(statements).toMatch(/insert into "graph"."migrations"/);
    expect(log[log.length - 1]).toBe("commit");
  });

  it("the hot path uses the dialect's placeholders, row lock, upsert and write transaction", async () => {
    const { db, log } = recordingDb("sqlite", oneWorkflow);
    let writes = 0;
    const dialect = testDialect("lite", {
      writeTransaction: (trx, body) => {
        writes++;
        return trx.transaction().execute(body);
      },
      upsert: (table, columns, key) =>
        `INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")}) ON DUPLICATE KEY (${key.join(", ")}) UPDATE`,
    });
    const cp = new KyselyCheckpointer({ db, dialect, tablePrefix: "app_" });
    await cp.setup();
    log.length = 0;
    writes = 0;
    await cp.saveStep(step, { epoch: 1 });
    expect(writes).toBe(1);
    expect(log[0]).toBe("begin");
    expect(log[1]).toMatch(/FROM "app_workflows" w WHERE w.id = \?$/);
    expect(log.join("\n")).toMatch(
      /INSERT INTO "app_steps" \(workflow_id, superstep, node_name, .*\) ON DUPLICATE KEY \(workflow_id, superstep, node_name\) UPDATE/,
    );
    expect(log[log.length - 1]).toBe("commit");
  });

  it("with row locks: saveStep locks the workflow row, asks for the step after the lock, upserts and updates", async () => {
    const { db, log } = recordingDb("postgres", oneWorkflow);
    const cp = new KyselyCheckpointer({ db, dialect: testDialect("pg"), schema: "graph" });
    await cp.setup();
    log.length = 0;
    await cp.saveStep(step, { epoch: 1 });
    expect(log[0]).toBe("begin");
    expect(log[1]).toMatch(/FROM "graph"."graph_workflows" w WHERE w.id = \$1 FOR UPDATE OF w$/);
    // Which of the group's steps exist is asked in one statement, after the lock is held.
    expect(log[2]).toMatch(
      /^SELECT superstep, node_name FROM "graph"."graph_steps" WHERE workflow_id = \$1 AND \(\(superstep = \$2 AND node_name = \$3\)\)$/,
    );
    expect(
      log.some((s) => /^INSERT INTO "graph"."graph_steps" .* VALUES \(\$1, \$2, .*\$17, \$18\) ON CONFLICT/.test(s)),
    ).toBe(true);
    expect(log.some((s) => /^UPDATE "graph"."graph_workflows" SET last_superstep = \$1/.test(s))).toBe(true);
    expect(log[log.length - 1]).toBe("commit");

    log.length = 0;
    const stale = await rejection(cp.saveStep(step, { epoch: 0 }));
    expect(isWorkflowConflictError(stale)).toBe(true);
    expect(log.some((s) => /insert/i.test(s))).toBe(false);
    expect(log[log.length - 1]).toBe("rollback");

    log.length = 0;
    // The recording driver returns no row for the UPDATE … RETURNING; only the statements matter here.
    await rejection(cp.updateWorkflow("wf", { status: "completed" }, { epoch: 1 }));
    expect(log[1]).toMatch(/^SELECT w.lease_epoch, w.lease_owner, w.lease_expires_at FROM .* FOR UPDATE OF w$/);
    expect(await cp.storageBytes()).toBe(42);
  });

  it("a value that cannot be serialised never opens a transaction", async () => {
    const { db, log } = recordingDb("postgres", oneWorkflow);
    const cp = new KyselyCheckpointer({ db, dialect: testDialect("pg") });
    await cp.setup();
    log.length = 0;
    const error = await rejection(cp.saveStep({ ...step, values: { f: () => 1 } }));
    expect(error).toMatchObject({ _tag: "CheckpointError", workflowId: "wf", nodeName: "embed", path: "values.f" });
    expect(log).toEqual([]);
  });

  it("claimWorkflow is one conditional UPDATE; deleteWorkflow uses no LIKE", async () => {
    const { db, log } = recordingDb("postgres", (sql) =>
      /^update/i.test(sql) ? [{ lease_epoch: 3 }] : /migrations/.test(sql) ? [{ version: 1 }] : [],
    );
    const cp = new KyselyCheckpointer({ db, dialect: testDialect("pg") });
    await cp.setup();
    log.length = 0;
    const lease = await cp.claimWorkflow("wf", { owner: "me", ttlMs: 1000 });
    expect(lease).toMatchObject({ workflowId: "wf", owner: "me", epoch: 3 });
    const updates = log.filter((s) => /^update/i.test(s));
    expect(updates).toHaveLength(1);
    expect(updates[0]).toMatch(
      /WHERE id = \$\d+ AND \(lease_owner IS NULL OR lease_expires_at <= \$\d+ OR lease_owner = \$\d+\) RETURNING lease_epoch/,
    );
    log.length = 0;
    await cp.deleteWorkflow("50%_off");
    expect(log.join("\n")).not.toMatch(/like/i);
  });

  it("wraps driver failures into CheckpointError, with the adapter's advice", async () => {
    const { db } = recordingDb("sqlite", () => {
      throw Object.assign(new Error("disk I/O error"), { code: "SQLITE_IOERR" });
    });
    const cp = new KyselyCheckpointer({
      db,
      dialect: testDialect("lite", {
        describeError: (error, context) => `advice for ${(error as { code: string }).code} in ${context.operation}`,
      }),
    });
    const error = await rejection(cp.getWorkflow("wf"));
    expect(isCheckpointError(error)).toBe(true);
    expect((error as Error).message).toBe(
      "KyselyCheckpointer.getWorkflow for workflow 'wf' failed: advice for SQLITE_IOERR in getWorkflow",
    );
    expect(error).toMatchObject({ operation: "getWorkflow", workflowId: "wf" });
  });

  it("retries a read, or a write whose BEGIN failed, once when the connection was dead; never a started transaction", async () => {
    const lost = () => Object.assign(new Error("Connection terminated unexpectedly"), { code: "LOST" });
    let failNext: RegExp | undefined;
    const { db, log } = recordingDb("postgres", (sql, parameters) => {
      if (failNext?.test(sql)) {
        failNext = undefined;
        throw lost();
      }
      return oneWorkflow(sql, parameters);
    });
    const isConnectionLost = (error: unknown) => (error as { code?: string }).code === "LOST";
    const cp = new KyselyCheckpointer({ db, dialect: testDialect("pg", { isConnectionLost }) });
    await cp.setup();

    failNext = /^select \* from "graph_steps"/;
    expect(await cp.getSteps("wf")).toEqual([]);
    expect(failNext).toBeUndefined();

    // BEGIN failed: nothing of the call reached the database, so it is retried on a fresh connection.
    log.length = 0;
    failNext = /^begin$/;
    await cp.saveStep(step, { epoch: 1 });
    expect(log.filter((entry) => entry === "begin")).toHaveLength(2);
    expect(log[log.length - 1]).toBe("commit");

    // The transaction had begun (its first statement failed after BEGIN): the caller gets the error.
    log.length = 0;
    failNext = /FOR UPDATE OF w/;
    const error = await rejection(cp.saveStep(step, { epoch: 1 }));
    expect(isCheckpointError(error)).toBe(true);
    expect(log.filter((entry) => entry === "begin")).toHaveLength(1);

    // Without the hook nothing is retried.
    const plain = recordingDb("postgres", (sql, parameters) => {
      if (/^select \* from "graph_steps"/.test(sql)) throw lost();
      return oneWorkflow(sql, parameters);
    });
    const noRetry = new KyselyCheckpointer({ db: plain.db, dialect: testDialect("pg") });
    expect(isCheckpointError(await rejection(noRetry.getSteps("wf")))).toBe(true);
  });

  it("refuses calls after close", async () => {
    const { db } = recordingDb("sqlite", oneWorkflow);
    const cp = new KyselyCheckpointer({ db, dialect: testDialect("lite") });
    await cp.close();
    await cp.close();
    const error = await rejection(cp.getWorkflow("wf"));
    expect(error).toMatchObject({ _tag: "CheckpointError", operation: "getWorkflow" });
  });
});

describe("kysely store internals", () => {
  const utf8Compare = (a: string, b: string) => Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));

  it("the child id range is exactly the ids starting with `id/` (bytewise order), whatever the characters", () => {
    const text = fc.string({ unit: "grapheme", maxLength: 8 });
    const withSpecials = fc.oneof(text, fc.constantFrom("%", "_", "\\", "/", "0", ".", "%/_", "a/b"));
    fc.assert(
      fc.property(withSpecials, fc.array(withSpecials, { maxLength: 3 }), (id, parts) => {
        const [low, high] = childIdRange(id);
        const candidates = [
          id,
          `${id}/`,
          `${id}0`,
          `${id}/${parts.join("/")}`,
          `${id}${parts.join("")}`,
          parts.join("/"),
        ];
        for (const candidate of candidates) {
          const inRange = utf8Compare(candidate, low) >= 0 && utf8Compare(candidate, high) < 0;
          expect(inRange).toBe(candidate.startsWith(`${id}/`));
        }
      }),
    );
  });

  it("migrations are numbered 1, 2, … and lock keys are stable", () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    expect(lockKey("graph.")).toBe(lockKey("graph."));
    expect(lockKey("graph.")).not.toBe(lockKey("other."));
    expect(lockKey("x".repeat(1000))).toBeGreaterThanOrEqual(0);
    expect(lockKey("x".repeat(1000))).toBeLessThanOrEqual(0x7fffffff);
  });
});
