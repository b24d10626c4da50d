import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { scriptCommand } from "@graph/checkpoint-conformance";
import { afterAll } from "vitest";
// The runtime's budget scenarios, run on this adapter (the runtime can't depend on its adapters).
import { describeBudgetScenarios } from "../../runtime/test/workflows/budget.js";
import { describeBudgetCrash } from "../../runtime/test/workflows/budgetCrash.js";
import { RedisCheckpointer } from "../src/index.js";
import { clearPrefixes, randomPrefix, redisUrl } from "./fixtures/store.js";

const prefixes: string[] = [];
afterAll(() => clearPrefixes(prefixes));
function redis() {
  const prefix = randomPrefix("budget");
  prefixes.push(prefix);
  return new RedisCheckpointer({ url: redisUrl(), prefix });
}

describeBudgetScenarios("Redis", redis);

describeBudgetCrash(
  "Redis",
  async () => {
    const prefix = randomPrefix("budget-crash");
    prefixes.push(prefix);
    const command = scriptCommand(fileURLToPath(new URL("./fixtures/budgetSpender.ts", import.meta.url)));
    return (args) =>
      fork(command.script, [args[0]!, redisUrl(), prefix, ...args.slice(1)], {
        execArgv: [...command.execArgv],
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      });
  },
  "spender-redis",
);
