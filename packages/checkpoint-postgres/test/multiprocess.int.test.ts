import { fileURLToPath } from "node:url";
import { runTogether as runWorkers } from "@graph/checkpoint-conformance";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresCheckpointer } from "../src/index.js";
import { admin, DATABASE_URL, dropSchemas, randomSchema, requirePostgres } from "./fixtures/server.js";

const workerScript = fileURLToPath(new URL("./fixtures/worker.ts", import.meta.url));
const runTogether = (argsList: readonly (readonly string[])[]) => runWorkers(workerScript, argsList);

const schemas: string[] = [];
beforeAll(requirePostgres);
afterAll(() => dropSchemas(schemas));

describe("PostgresCheckpointer shared by several processes", () => {
  it("concurrent claims of one workflow from 2 processes: exactly one wins, 20 rounds in a row", async () => {
    const schema = randomSchema("mp_claim");
    schemas.push(schema);
    const rounds = 20;
    const seed = new PostgresCheckpointer({ connectionString: DATABASE_URL, schema });
    for (let round = 0; round < rounds; round++) {
      await seed.createWorkflow({ id: `race-${round}`, graphName: "g", graphHash: "h" });
    }
    const results = await runTogether([0, 1].map((n) => ["claim", schema, String(rounds), "60", `owner-${n}`]));
    for (const result of results) expect(result["fatal"]).toBeUndefined();
    const perProcess = results.map((r) => r["results"] as string[]);
    for (let round = 0; round < rounds; round++) {
      const outcomes = perProcess.map((list) => list[round]);
      expect(
        outcomes.filter((o) => o === "won:1"),
        `round ${round}: ${outcomes.join(", ")}`,
      ).toHaveLength(1);
      expect(
        outcomes.filter((o) => o === "lost"),
        `round ${round}: ${outcomes.join(", ")}`,
      ).toHaveLength(1);
    }
    for (let round = 0; round < rounds; round++) {
      expect((await seed.getWorkflow(`race-${round}`))?.lease?.epoch).toBe(1);
    }
    await seed.close();
  }, 90_000);

  it("migrations run concurrently from 2 processes on a fresh schema without error", async () => {
    for (let attempt = 0; attempt < 3; attempt++) {
      const schema = randomSchema("mp_migrate");
      schemas.push(schema);
      const results = await runTogether([0, 1].map(() => ["migrate", schema]));
      for (const result of results) {
        expect(result["fatal"]).toBeUndefined();
        expect(result["created"]).toBe(true);
      }
      const versions = await admin<{ version: number }>(`SELECT version FROM "${schema}".migrations`);
      expect(versions.map((v) => v.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    }
  }, 90_000);
});
