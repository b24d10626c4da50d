import { KyselyCheckpointer } from "@graph/checkpoint/kysely";
import { stepRecord } from "@graph/checkpoint-conformance";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresDialect } from "../src/index.js";
import { DATABASE_URL, dropSchemas, randomSchema, requirePostgres } from "./fixtures/server.js";

const schemas: string[] = [];
beforeAll(requirePostgres);
afterAll(() => dropSchemas(schemas));

describe("postgresDialect", () => {
  it("runs KyselyCheckpointer on an application's own Kysely: advisory-locked migrations, row locks, $n placeholders", async () => {
    const schema = randomSchema("dialect");
    schemas.push(schema);
    const log: string[] = [];
    const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
    const db = new Kysely<any>({
      dialect: new PostgresDialect({ pool }),
      log: (event) => {
        log.push(event.query.sql);
      },
    });
    const checkpointer = new KyselyCheckpointer({ db, dialect: postgresDialect(), schema, destroyOnClose: false });
    await checkpointer.setup();
    const ddl = log.join("\n");
    expect(ddl).toMatch(/pg_advisory_xact_lock/);
    expect(ddl).toMatch(new RegExp(`CREATE SCHEMA IF NOT EXISTS "${schema}"`));
    expect(ddl).toMatch(/id TEXT COLLATE "C" NOT NULL PRIMARY KEY/);
    expect(ddl).toMatch(/last_superstep BIGINT NOT NULL/);
    await checkpointer.createWorkflow({ id: "wf", graphName: "g", graphHash: "h" });
    log.length = 0;
    await checkpointer.saveStep(stepRecord("wf", { superstep: 0, nodeName: "n", index: 0, values: { v: 1 } }));
    // One statement in its transaction: lock the row, upsert the step from it, count it from the upsert's own answer.
    expect(log).toHaveLength(3);
    expect([log[0], log[2]]).toEqual(["begin", "commit"]);
    const hot = log[1]!;
    expect(hot).toMatch(
      new RegExp(
        `^WITH fenced AS \\(SELECT w.id FROM "${schema}"."graph_workflows" w WHERE w.id = \\$1 FOR NO KEY UPDATE OF w\\)`,
      ),
    );
    expect(hot).toMatch(
      /SELECT CAST\(\$2 AS TEXT\), CAST\(\$3 AS BIGINT\), .*CAST\(\$16 AS BIGINT\), CAST\(\$17 AS TEXT\), CAST\(\$18 AS TEXT\), CAST\(\$19 AS TEXT\) FROM fenced ON CONFLICT/,
    );
    expect(hot).toMatch(
      /RETURNING \(xmax = 0\) AS inserted\) UPDATE .* WHERE id = \$23 AND EXISTS \(SELECT 1 FROM stored\)/,
    );
    expect((await checkpointer.getState("wf")).v).toBe(1);
    expect(await checkpointer.storageBytes()).toBeGreaterThan(0);
    await checkpointer.close();
    await db.destroy();
  });
});
