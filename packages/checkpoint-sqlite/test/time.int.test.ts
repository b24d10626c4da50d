import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { scriptCommand } from "@graph/checkpoint-conformance";
import { afterAll } from "vitest";
// The runtime's time scenarios, run on this adapter (the runtime can't depend on its adapters).
import { describeTimeScenarios } from "../../runtime/test/workflows/time.js";
import { describeTimeCrashes } from "../../runtime/test/workflows/timeCrash.js";
import { SqliteCheckpointer } from "../src/index.js";

const dir = mkdtempSync(path.join(tmpdir(), "graph-time-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
/** A fresh SQLite file per scenario (two runners of one scenario share it). */
const sqlite = () => new SqliteCheckpointer({ path: path.join(dir, `time-${n++}.db`) });

describeTimeScenarios("a SQLite file", sqlite, "file");

describeTimeCrashes(
  "SQLite",
  async (id) => {
    const file = path.join(dir, `crash-${id}.db`);
    const command = scriptCommand(fileURLToPath(new URL("./fixtures/timeSleeper.ts", import.meta.url)));
    return (args) =>
      fork(command.script, [args[0]!, file, ...args.slice(1)], {
        execArgv: [...command.execArgv],
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      });
  },
  "1",
);
