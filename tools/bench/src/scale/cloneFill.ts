// The scale bench's fast fill: a few real workflows (templates) written through real runs, then cloned in bulk
// with new ids and spread creation times, straight into each backend's storage the way the store keeps them
// (rows for SQL, keys and index entries for Redis). Writing 1M workflows through the store API takes about an
// hour per SQL backend; cloning takes minutes. `verifyClones` checks that the store cannot tell a clone apart.
import type { Checkpointer } from "@graph/checkpoint";
import { encodeWorkflowCursor } from "@graph/checkpoint/adapter";
import { Redis } from "ioredis";
import type { PgPool, SqliteDatabase } from "../lib/drivers.js";

/** How many workflows are written for real; clone `i` copies template `i % TEMPLATES`. */
export const TEMPLATES = 100;

/** Clones workflows `[from, to)` from the templates. */
export type Cloner = (from: number, to: number) => Promise<void>;

/** How one backend names the i-th workflow and dates it. */
export interface CloneShape {
  /** The i-th workflow's id, `wf-` + 8 digits. */
  readonly idOf: (i: number) => string;
  /** Clone `i` is created at `base + i` ms (before any template, all in the past). */
  readonly base: number;
}

const BATCH = 50_000;
const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** SQL select list for one table: `id`/`workflow_id` renamed, timestamps moved, every other column copied. */
function selectList(columns: readonly string[], rename: string, idExpression: string, shifted: boolean): string {
  return columns
    .map((column) => {
      if (column === rename) return idExpression;
      if (shifted && column === "created_at") return "$base + s.i";
      if (shifted && column === "updated_at") return "$base + s.i + (t.updated_at - t.created_at)";
      return `t.${quote(column)}`;
    })
    .join(", ");
}

/** PostgreSQL: one `INSERT … SELECT` over `generate_series` per table and batch. */
export async function postgresCloner(pool: PgPool, schema: string, shape: CloneShape): Promise<Cloner> {
  const columnsOf = async (table: string) =>
    (
      await pool.query(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position",
        [schema, table],
      )
    ).rows.map((row) => String(row["column_name"]));
  const workflows = await columnsOf("workflows");
  const steps = await columnsOf("steps");
  const newId = "('wf-' || lpad(s.i::text, 8, '0'))";
  const templateId = `('wf-' || lpad((s.i % ${TEMPLATES})::text, 8, '0'))`;
  const table = (name: string) => `${quote(schema)}.${quote(name)}`;
  const statements = [
    `INSERT INTO ${table("workflows")} (${workflows.map(quote).join(", ")})
       SELECT ${selectList(workflows, "id", newId, true)}
         FROM generate_series($1::bigint, $2::bigint - 1) AS s(i) JOIN ${table("workflows")} t ON t.id = ${templateId}`,
    `INSERT INTO ${table("steps")} (${steps.map(quote).join(", ")})
       SELECT ${selectList(steps, "workflow_id", newId, false)}
         FROM generate_series($1::bigint, $2::bigint - 1) AS s(i) JOIN ${table("steps")} t ON t.workflow_id = ${templateId}`,
  ].map((text) => text.replaceAll("$base", "$3::bigint"));
  return async (from, to) => {
    for (let start = Math.max(from, TEMPLATES); start < to; start += BATCH) {
      const end = Math.min(to, start + BATCH);
      await pool.query("BEGIN");
      await pool.query(statements[0]!, [start, end, shape.base]);
      await pool.query(statements[1]!, [start, end]);
      await pool.query("COMMIT");
    }
  };
}

/**
 * SQLite: one `INSERT … SELECT` over a recursive series per table, a transaction per 50k workflows. Its tables
 * carry the store's default prefix (`graph_`).
 */
export function sqliteCloner(db: SqliteDatabase, shape: CloneShape, prefix = "graph_"): Cloner {
  const columnsOf = (table: string) =>
    (db.prepare(`SELECT name FROM pragma_table_info('${prefix}${table}')`) as unknown as { all(): { name: string }[] })
      .all()
      .map((row) => row.name);
  const workflows = columnsOf("workflows");
  const steps = columnsOf("steps");
  const newId = "printf('wf-%08d', s.i)";
  const templateId = `printf('wf-%08d', s.i % ${TEMPLATES})`;
  const series = "WITH RECURSIVE s(i) AS (SELECT @from UNION ALL SELECT i + 1 FROM s WHERE i + 1 < @to)";
  const statements = [
    db.prepare(
      `${series} INSERT INTO ${prefix}workflows (${workflows.map(quote).join(", ")})
         SELECT ${selectList(workflows, "id", newId, true).replaceAll("$base", "@base")}
           FROM s JOIN ${prefix}workflows t ON t.id = ${templateId}`,
    ),
    db.prepare(
      `${series} INSERT INTO ${prefix}steps (${steps.map(quote).join(", ")})
         SELECT ${selectList(steps, "workflow_id", newId, false)} FROM s JOIN ${prefix}steps t ON t.workflow_id = ${templateId}`,
    ),
  ];
  return async (from, to) => {
    for (let start = Math.max(from, TEMPLATES); start < to; start += BATCH) {
      const end = Math.min(to, start + BATCH);
      db.exec("BEGIN IMMEDIATE");
      statements[0]!.run({ from: start, to: end, base: shape.base });
      statements[1]!.run({ from: start, to: end });
      db.exec("COMMIT");
    }
  };
}

interface RedisTemplate {
  readonly record: Record<string, string>;
  readonly steps: Record<string, string>;
  readonly order: string[];
  /** Index sorted sets the template is in, with its score. */
  readonly sets: [key: string, score: string][];
  /** Index hashes with a field for the template. */
  readonly hashes: [key: string, value: string][];
}

/**
 * Redis: reads each template's three keys and every index entry of it (every sorted set and per-workflow hash in
 * the index slot, found by scanning, so no index is missed), then writes clones in pipelines. Index scores equal
 * to the template's creation or update time move with the clone; others (due times, 0) are kept.
 */
export async function redisCloner(
  url: string,
  prefix: string,
  shape: CloneShape,
): Promise<Cloner & { quit(): Promise<void> }> {
  const client = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: null });
  const indexBase = `${prefix}{graph-index}`;
  const shared = new Set([
    `${indexBase}:structures`,
    `${indexBase}:cache`,
    `${indexBase}:cacheUsed`,
    `${indexBase}:cacheExpires`,
  ]);
  const indexKeys: string[] = [];
  let cursor = "0";
  do {
    const [next, keys] = await client.scan(cursor, "MATCH", `${indexBase}:*`, "COUNT", 1000);
    cursor = next;
    for (const key of keys) if (!shared.has(key)) indexKeys.push(key);
  } while (cursor !== "0");
  const types = await Promise.all(indexKeys.map((key) => client.type(key)));
  const keysOf = (id: string) => ({ w: `${prefix}{${id}}:w`, s: `${prefix}{${id}}:s`, o: `${prefix}{${id}}:o` });
  const templates: RedisTemplate[] = [];
  for (let j = 0; j < TEMPLATES; j++) {
    const id = shape.idOf(j);
    const keys = keysOf(id);
    const sets: [string, string][] = [];
    const hashes: [string, string][] = [];
    for (let k = 0; k < indexKeys.length; k++) {
      const key = indexKeys[k]!;
      if (types[k] === "zset") {
        const score = await client.zscore(key, id);
        if (score !== null) sets.push([key, score]);
      } else if (types[k] === "hash") {
        const value = await client.hget(key, id);
        if (value !== null) hashes.push([key, value]);
      }
    }
    templates.push({
      record: await client.hgetall(keys.w),
      steps: await client.hgetall(keys.s),
      order: await client.zrange(keys.o, 0, -1, "WITHSCORES"),
      sets,
      hashes,
    });
  }
  const cloner = async (from: number, to: number) => {
    const PIPELINE = 2_000;
    for (let start = Math.max(from, TEMPLATES); start < to; start += PIPELINE) {
      const pipeline = client.pipeline();
      for (let i = start; i < Math.min(to, start + PIPELINE); i++) {
        const template = templates[i % TEMPLATES]!;
        const id = shape.idOf(i);
        const keys = keysOf(id);
        const createdAt = shape.base + i;
        const updatedAt = createdAt + (Number(template.record["ua"]) - Number(template.record["ca"]));
        const moved = (score: string) =>
          score === template.record["ca"]
            ? String(createdAt)
            : score === template.record["ua"]
              ? String(updatedAt)
              : score;
        pipeline.hset(keys.w, { ...template.record, ca: String(createdAt), ua: String(updatedAt) });
        if (Object.keys(template.steps).length > 0) pipeline.hset(keys.s, template.steps);
        if (template.order.length > 0) {
          const members: string[] = [];
          for (let m = 0; m < template.order.length; m += 2) members.push(template.order[m + 1]!, template.order[m]!);
          pipeline.zadd(keys.o, ...members);
        }
        for (const [key, score] of template.sets) pipeline.zadd(key, moved(score), id);
        for (const [key, value] of template.hashes) pipeline.hset(key, id, value);
      }
      await pipeline.exec();
    }
  };
  return Object.assign(cloner, { quit: async () => void (await client.quit()) });
}

/**
 * The store cannot tell a clone from a workflow written by a run: its record and steps equal its template's but
 * for id and dates, and it is found by id, by a status listing and by a graph listing.
 */
export async function verifyClones(store: Checkpointer, shape: CloneShape, size: number): Promise<void> {
  const fail = (what: string) => {
    throw new Error(`clone check at ${size}: ${what}`);
  };
  for (const i of [size - 1, size - 93, Math.floor(size / 2) + 7 - (Math.floor(size / 2) % TEMPLATES)]) {
    if (i < TEMPLATES) continue;
    const template = await store.getWorkflow(shape.idOf(i % TEMPLATES));
    const clone = await store.getWorkflow(shape.idOf(i));
    if (template === undefined || clone === undefined) return fail(`workflow ${i} or its template is missing`);
    const strip = (record: object) => {
      const { id: _id, createdAt: _c, updatedAt: _u, ...rest } = record as Record<string, unknown>;
      return JSON.stringify(rest);
    };
    if (strip(clone) !== strip(template)) fail(`workflow ${i}: ${strip(clone)} ≠ ${strip(template)}`);
    if (clone.createdAt.getTime() !== shape.base + i)
      fail(`workflow ${i} has createdAt ${clone.createdAt.toISOString()}`);
    const steps = (await store.getSteps(shape.idOf(i))).map((step) => ({ ...step, workflowId: "" }));
    const templateSteps = (await store.getSteps(shape.idOf(i % TEMPLATES))).map((step) => ({
      ...step,
      workflowId: "",
    }));
    if (JSON.stringify(steps) !== JSON.stringify(templateSteps))
      fail(`workflow ${i}'s steps differ from its template's`);
    // Listed in (createdAt, id) order: right after a cursor just before it, under its status and its graph.
    const cursor = encodeWorkflowCursor({ createdAt: new Date(clone.createdAt.getTime() - 1), id: "~" });
    for (const filter of [{ status: clone.status }, { graph: clone.graphName }]) {
      const page = await store.listWorkflows({ ...filter, cursor, limit: 1 });
      if (page.workflows[0]?.id !== clone.id) {
        fail(
          `workflow ${i} is not listed by ${JSON.stringify(filter)}: ${JSON.stringify(page.workflows[0])} ${clone.createdAt.toISOString()}`,
        );
      }
    }
  }
}
