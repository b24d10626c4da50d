import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { scriptCommand } from "@graph/checkpoint-conformance";
import { afterAll, describe, it } from "vitest";
import { cacheSharedByTwoProcesses, sameKeyAtOnce } from "../../runtime/test/workflows/sharedCache.js";
import { SqliteCheckpointer } from "../src/index.js";

const dir = mkdtempSync(path.join(tmpdir(), "graph-cache-sqlite-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the node cache on a SQLite file", () => {
  it("is shared by two processes: the second runs no node", { timeout: 60_000 }, async () => {
    const file = path.join(dir, "shared.db");
    const command = scriptCommand(fileURLToPath(new URL("./fixtures/cacheWorker.ts", import.meta.url)));
    await cacheSharedByTwoProcesses((args) =>
      fork(command.script, [file, ...args], {
        execArgv: [...command.execArgv],
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      }),
    );
  });

  it("two workers computing one key at once: both run, one entry stored, the next run hits", async () => {
    const file = path.join(dir, "same-key.db");
    await sameKeyAtOnce(() => new SqliteCheckpointer({ path: file }));
  });
});
