import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { scriptCommand } from "@graph/checkpoint-conformance";
import { afterAll, beforeAll, describe, it } from "vitest";
import { cacheSharedByTwoProcesses, sameKeyAtOnce } from "../../runtime/test/workflows/sharedCache.js";
import { PostgresCheckpointer } from "../src/index.js";
import { DATABASE_URL, dropSchemas, randomSchema, requirePostgres } from "./fixtures/server.js";

const schemas: string[] = [];
beforeAll(requirePostgres);
afterAll(() => dropSchemas(schemas));

describe("the node cache on PostgreSQL", () => {
  it("is shared by two processes: the second runs no node", { timeout: 60_000 }, async () => {
    const schema = randomSchema("cache");
    schemas.push(schema);
    const command = scriptCommand(fileURLToPath(new URL("./fixtures/cacheWorker.ts", import.meta.url)));
    await cacheSharedByTwoProcesses((args) =>
      fork(command.script, [schema, ...args], {
        execArgv: [...command.execArgv],
        env: { ...process.env, DATABASE_URL },
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      }),
    );
  });

  it("two workers computing one key at once: both run, one entry stored, the next run hits", async () => {
    const schema = randomSchema("cache_same");
    schemas.push(schema);
    await sameKeyAtOnce(() => new PostgresCheckpointer({ connectionString: DATABASE_URL, schema }));
  });
});
