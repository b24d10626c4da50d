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
    // biome-ignore lint/correctness/useYield: never called; the driver interface requires an async generator.
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
    expect(make({ dialect: { kind: "mysql" } })).toThrow(/dialect.kind must be "sqlite" or "postgres"/);
    expect(make({ dialect: { kind: "sqlite", tablePrefix: "a-b" } })).toThrow(
      /tablePrefix "a-b" is not a plain SQL identifier/,
    );
    expect(make({ dialect: { kind: "sqlite", schema: "graph" } })).toThrow(/only supported on Postgres/);
    expect(make({ dialect: { kind: "postgres", schema: 'x"; drop' } })).toThrow(/schema/);
    expect(make({ dialect: { kind: "sqlite" }, policy: { durability: "exit", retention: "full" } })).toThrow(/exit/);
    expect(() => new KyselyCheckpointer({ dialect: { kind: "sqlite" } } as never)).toThrow(/options.db/);
    try {
      make({ dialect: { kind: "sqlite", tablePrefix: "a-b" } })();
    } catch (error) {
      expect(isCheckpointError(error)).toBe(true);
    }
  });

  it("exposes the resolved policy", () => {
    const { db } = recordingDb("sqlite", oneWorkflow);
    expect(new KyselyCheckpointer({ db, dialect: { kind: "sqlite" } }).policy).toEqual({
      durability: "async",
      retention: "full",
    });
  });

  it("postgres: migrations take an advisory lock first, create the schema, then the tables", async () => {
    const { db, log } = recordingDb("postgres", () => []);
    const cp = new KyselyCheckpointer({ db, dialect: { kind: "postgres", schema: "graph", tablePrefix: "" } });
    await cp.setup();
    const statements = log.join("\n");
    expect(log[0]).toBe("begin");
    expect(log[1]).toMatch(/pg_advisory_xact_lock/);
    expect(statements).toMatch(/CREATE SCHEMA IF NOT EXISTS "graph"/);
    expect(statements).toMatch(/CREATE TABLE IF NOT EXISTS "graph"."workflows"/);
    expect(statements).toMatch(/id TEXT COLLATE "C" NOT NULL PRIMARY KEY/);
    expect(statements).toMatch(/insert into "graph"."migrations"/);
    expect(log[log.length - 1]).toBe("commit");
  });

  it("sqlite: writes run in BEGIN IMMEDIATE transactions; tables carry the prefix", async () => {
    const { db, log } = recordingDb("sqlite", oneWorkflow);
    const cp = new KyselyCheckpointer({ db, dialect: { kind: "sqlite", tablePrefix: "app_" } });
    await cp.setup();
    log.length = 0;
    await cp.saveStep(step, { epoch: 1 });
    expect(log[0]).toBe("BEGIN IMMEDIATE");
    expect(log[log.length - 1]).toBe("COMMIT");
    expect(log.join("\n")).toMatch(
      /INSERT INTO "app_steps" .* ON CONFLICT \("workflow_id", "superstep", "node_name"\) DO UPDATE/s,
    );
    expect(log.join("\n")).not.toMatch(/for no key update/i);
  });

  it("postgres: saveStep locks the workflow row, checks the fence, upserts and updates in one transaction", async () => {
    const { db, log } = recordingDb("postgres", oneWorkflow);
    const cp = new KyselyCheckpointer({ db, dialect: { kind: "postgres", schema: "graph" } });
    await cp.setup();
    log.length = 0;
    await cp.saveStep(step, { epoch: 1 });
    expect(log[0]).toBe("begin");
    expect(log[1]).toMatch(/FROM "graph"."graph_workflows" w WHERE w.id = \$1 FOR NO KEY UPDATE OF w$/);
    expect(log[2]).toMatch(/^SELECT idx AS existing FROM "graph"."graph_steps" WHERE workflow_id = \$1/);
    expect(
      log.some((s) => /^INSERT INTO "graph"."graph_steps" .* VALUES \(\$1, \$2, .*\$15\) ON CONFLICT/.test(s)),
    ).toBe(true);
    expect(log.some((s) => /^UPDATE "graph"."graph_workflows" SET last_superstep = \$1/.test(s))).toBe(true);
    expect(log[log.length - 1]).toBe("commit");

    log.length = 0;
    const stale = await rejection(cp.saveStep(step, { epoch: 0 }));
    expect(isWorkflowConflictError(stale)).toBe(true);
    expect(log.some((s) => /insert/i.test(s))).toBe(false);
    expect(log[log.length - 1]).toBe("rollback");
  });

  it("a value that cannot be serialised never opens a transaction", async () => {
    const { db, log } = recordingDb("postgres", oneWorkflow);
    const cp = new KyselyCheckpointer({ db, dialect: { kind: "postgres" } });
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
    const cp = new KyselyCheckpointer({ db, dialect: { kind: "postgres" } });
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
      dialect: { kind: "sqlite" },
      describeError: (error, context) => `advice for ${(error as { code: string }).code} in ${context.operation}`,
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
    const cp = new KyselyCheckpointer({ db, dialect: { kind: "postgres" }, isConnectionLost });
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
    failNext = /FOR NO KEY UPDATE/;
    const error = await rejection(cp.saveStep(step, { epoch: 1 }));
    expect(isCheckpointError(error)).toBe(true);
    expect(log.filter((entry) => entry === "begin")).toHaveLength(1);

    // Without the hook nothing is retried.
    const plain = recordingDb("postgres", (sql, parameters) => {
      if (/^select \* from "graph_steps"/.test(sql)) throw lost();
      return oneWorkflow(sql, parameters);
    });
    const noRetry = new KyselyCheckpointer({ db: plain.db, dialect: { kind: "postgres" } });
    expect(isCheckpointError(await rejection(noRetry.getSteps("wf")))).toBe(true);
  });

  it("refuses calls after close", async () => {
    const { db } = recordingDb("sqlite", oneWorkflow);
    const cp = new KyselyCheckpointer({ db, dialect: { kind: "sqlite" } });
    await cp.close();
    await cp.close();
    const error = await rejection(cp.getWorkflow("wf"));
    expect((error as Error).message).toMatch(/after close\(\)/);
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
