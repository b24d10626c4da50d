import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { scriptCommand } from "@graph/checkpoint-conformance";
import { afterAll, beforeAll } from "vitest";
// The runtime's time scenarios, run on this adapter (the runtime can't depend on its adapters).
import { describeTimeScenarios } from "../../runtime/test/workflows/time.js";
import { describeTimeCrashes } from "../../runtime/test/workflows/timeCrash.js";
import { PostgresCheckpointer } from "../src/index.js";
import { DATABASE_URL, dropSchemas, randomSchema, requirePostgres } from "./fixtures/server.js";

const schemas: string[] = [];
beforeAll(requirePostgres);
afterAll(() => dropSchemas(schemas));
/** A fresh schema per scenario (two runners of one scenario share it). */
function postgres() {
  const schema = randomSchema("time");
  schemas.push(schema);
  return new PostgresCheckpointer({ connectionString: DATABASE_URL, schema });
}

describeTimeScenarios("PostgreSQL", postgres, "schema");

describeTimeCrashes(
  "PostgreSQL",
  async () => {
    const schema = randomSchema("time_crash");
    schemas.push(schema);
    const migrate = new PostgresCheckpointer({ connectionString: DATABASE_URL, schema });
    await migrate.setup();
    await migrate.close();
    const command = scriptCommand(fileURLToPath(new URL("./fixtures/timeSleeper.ts", import.meta.url)));
    return (args) =>
      fork(command.script, [args[0]!, schema, ...args.slice(1)], {
        execArgv: [...command.execArgv],
        env: { ...process.env, DATABASE_URL },
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      });
  },
  "pg",
);
