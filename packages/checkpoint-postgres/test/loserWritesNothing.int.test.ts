import { afterAll, beforeAll, describe, it } from "vitest";
// The runtime's conflict matrix, run on this adapter (the runtime can't depend on its adapters).
import { loserWritesNothing } from "../../runtime/test/workflows/loserWritesNothing.js";
import { PostgresCheckpointer } from "../src/index.js";
import { DATABASE_URL, dropSchemas, randomSchema, requirePostgres } from "./fixtures/server.js";

const schemas: string[] = [];
beforeAll(requirePostgres);
afterAll(() => dropSchemas(schemas));

describe("a caller that does not hold the lease writes nothing (PostgreSQL, two checkpointers on one schema)", () => {
  for (const durability of ["sync", "async", "exit"] as const) {
    it(`live holder / completed / failed / paused × every entry that fails before the claim (${durability})`, () => {
      const schema = randomSchema("loser");
      schemas.push(schema);
      const policy = { durability, ...(durability === "exit" ? { retention: "latest" as const } : {}) };
      const open = () => new PostgresCheckpointer({ connectionString: DATABASE_URL, schema, policy });
      return loserWritesNothing({ holder: open(), loser: open() }, `loser-${durability}`);
    });
  }
});
