import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { scriptCommand } from "@graph/checkpoint-conformance";
import { afterAll } from "vitest";
// The runtime's budget scenarios, run on this adapter (the runtime can't depend on its adapters).
import { describeBudgetScenarios } from "../../runtime/test/workflows/budget.js";
import { describeBudgetCrash } from "../../runtime/test/workflows/budgetCrash.js";
import { SqliteCheckpointer } from "../src/index.js";

const dir = mkdtempSync(path.join(tmpdir(), "graph-budget-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
describeBudgetScenarios("a SQLite file", () => new SqliteCheckpointer({ path: path.join(dir, `budget-${n++}.db`) }));

describeBudgetCrash(
  "SQLite",
  async (id) => {
    const file = path.join(dir, `crash-${id}.db`);
    const command = scriptCommand(fileURLToPath(new URL("./fixtures/budgetSpender.ts", import.meta.url)));
    return (args) =>
      fork(command.script, [args[0]!, file, ...args.slice(1)], {
        execArgv: [...command.execArgv],
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      });
  },
  "spender-sqlite",
);
