import { fileURLToPath } from "node:url";
import { describeFrozenWriter } from "@graph/checkpoint-conformance";
import { afterAll, beforeAll } from "vitest";
import { PostgresCheckpointer } from "../src/index.js";
import { admin, DATABASE_URL, dropSchemas, randomSchema, requirePostgres } from "./fixtures/server.js";

// A runner SIGSTOPped inside a write transaction keeps the workflow row locked until the server ends the transaction
// (idleInTransactionTimeoutMs, default 5 s); the takeover must come within the lease + that + the backoff.
const schema = randomSchema("frozen");
beforeAll(requirePostgres);
afterAll(() => dropSchemas([schema]));

describeFrozenWriter(
  {
    name: "postgres",
    create: () => new PostgresCheckpointer({ connectionString: DATABASE_URL, schema }),
    engine: {
      childProcess: {
        module: fileURLToPath(new URL("./fixtures/engineAdapter.ts", import.meta.url)),
        args: { connectionString: DATABASE_URL, schema },
      },
    },
  },
  {
    holdBoundMs: 5_000,
    // Locks held on this schema's tables (other tests may run transactions on the server meanwhile).
    locksHeld: async () =>
      Number(
        (
          await admin<{ n: string }>(
            `SELECT count(*) AS n FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
               JOIN pg_namespace ns ON ns.oid = c.relnamespace WHERE ns.nspname = '${schema}'`,
          )
        )[0]?.n,
      ),
  },
);
