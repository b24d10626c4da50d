// The conformance kit's scale area on PostgreSQL: every statement a listing, a sweep batch or a start sends is
// captured (kysely's query log) and planned with EXPLAIN (FORMAT JSON) after ANALYZE; a plan with a `Seq Scan`, or an
// index scan without an index condition (a walk of the whole index), is a full scan. 10,000 workflows here;
// `npm run test:scale` runs 100,000 (GRAPH_SCALE).
import type { CheckpointPolicy } from "@graph/checkpoint";
import { KyselyCheckpointer } from "@graph/checkpoint/kysely";
import { describeScale, type ScaleProbe } from "@graph/checkpoint-conformance";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { PostgresCheckpointer, postgresDialect } from "../src/index.js";
import { DATABASE_URL, dropSchemas, randomSchema, requirePostgres } from "./fixtures/server.js";

const schema = randomSchema("scale");
const pools: pg.Pool[] = [];
beforeAll(requirePostgres);
afterAll(async () => {
  for (const pool of pools) await pool.end().catch(() => undefined);
  await dropSchemas([schema]);
});

let captured: { sql: string; parameters: readonly unknown[] }[] | undefined;

function open(policy?: Partial<CheckpointPolicy>) {
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
  pools.push(pool);
  const db = new Kysely<unknown>({
    dialect: new PostgresDialect({ pool }),
    log: (event) => {
      if (event.level === "query") captured?.push({ sql: event.query.sql, parameters: event.query.parameters });
    },
  });
  return new KyselyCheckpointer({
    db,
    dialect: postgresDialect(),
    schema,
    // The adapter's table names (its default prefix is none), so the filler and the probed stores share tables.
    tablePrefix: "",
    destroyOnClose: false,
    ...(policy === undefined ? {} : { policy }),
  });
}

interface PlanNode {
  readonly "Node Type": string;
  readonly "Index Cond"?: string;
  readonly "Relation Name"?: string;
  readonly Plans?: readonly PlanNode[];
}

/** The nodes of a plan that read a whole relation or index. */
function fullScans(node: PlanNode): string[] {
  const own =
    node["Node Type"] === "Seq Scan" ||
    ((node["Node Type"] === "Index Scan" || node["Node Type"] === "Index Only Scan") &&
      node["Index Cond"] === undefined)
      ? [`${node["Node Type"]} on ${node["Relation Name"]}`]
      : [];
  return [...own, ...(node.Plans ?? []).flatMap(fullScans)];
}

const READS = /^\s*(select|update|delete)\b/i;

const probe: ScaleProbe = {
  async trace(body) {
    captured = [];
    const result = await body();
    const statements = captured;
    captured = undefined;
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    try {
      const scans: string[] = [];
      for (const statement of statements.filter((s) => READS.test(s.sql))) {
        const explained = await client.query<{ "QUERY PLAN": [{ Plan: PlanNode }] }>(
          `EXPLAIN (FORMAT JSON) ${statement.sql}`,
          [...statement.parameters],
        );
        const found = fullScans(explained.rows[0]!["QUERY PLAN"][0].Plan);
        if (found.length > 0) scans.push(`${statement.sql} → ${found.join(", ")}`);
      }
      return { result, operations: statements.length, fullScans: scans };
    } finally {
      await client.end();
    }
  },
  async settle() {
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    try {
      await client.query(`ANALYZE "${schema}".workflows`);
      await client.query(`ANALYZE "${schema}".steps`);
    } finally {
      await client.end();
    }
  },
};

describeScale({
  name: "postgres",
  create: open,
  createFiller: () => new PostgresCheckpointer({ connectionString: DATABASE_URL, schema, max: 16 }),
  probe,
  concurrency: 16,
});
