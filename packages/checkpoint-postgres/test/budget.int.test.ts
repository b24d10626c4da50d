import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { scriptCommand } from "@graph/checkpoint-conformance";
import { afterAll, beforeAll } from "vitest";
// The runtime's budget scenarios, run on this adapter (the runtime can't depend on its adapters).
import { describeBudgetScenarios } from "../../runtime/test/workflows/budget.js";
import { describeBudgetCrash } from "../../runtime/test/workflows/budgetCrash.js";
import { PostgresCheckpointer } from "../src/index.js";
import { DATABASE_URL, dropSchemas, randomSchema, requirePostgres } from "./fixtures/server.js";

const schemas: string[] = [];
beforeAll(requirePostgres);
afterAll(() => dropSchemas(schemas));
function postgres() {
  const schema = randomSchema("budget");
  schemas.push(schema);
  return new PostgresCheckpointer({ connectionString: DATABASE_URL, schema });
}

describeBudgetScenarios("PostgreSQL", postgres);

describeBudgetCrash(
  "PostgreSQL",
  async () => {
    const schema = randomSchema("budget_crash");
    schemas.push(schema);
    const migrate = new PostgresCheckpointer({ connectionString: DATABASE_URL, schema });
    await migrate.setup();
    await migrate.close();
    const command = scriptCommand(fileURLToPath(new URL("./fixtures/budgetSpender.ts", import.meta.url)));
    return (args) =>
      fork(command.script, [args[0]!, schema, ...args.slice(1)], {
        execArgv: [...command.execArgv],
        env: { ...process.env, DATABASE_URL },
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      });
  },
  "spender-pg",
);
