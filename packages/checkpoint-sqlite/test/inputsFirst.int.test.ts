import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { scriptCommand } from "@graph/checkpoint-conformance";
import { afterAll, describe, expect, it } from "vitest";
import { resumeAfterFirstInstantCrash } from "../../runtime/test/workflows/inputsFirst.js";
import { SqliteCheckpointer } from "../src/index.js";

const dir = mkdtempSync(path.join(tmpdir(), "graph-inputs-first-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const child = fileURLToPath(new URL("./fixtures/inputsFirstChild.ts", import.meta.url));

function runChild(args: string[]): Promise<NodeJS.Signals | number | null> {
  return new Promise((resolve, reject) => {
    const command = scriptCommand(child);
    const proc = fork(command.script, args, {
      execArgv: [...command.execArgv],
      stdio: "inherit",
    });
    proc.on("error", reject);
    proc.on("exit", (code, signal) => resolve(signal ?? code));
  });
}

describe("a run's inputs are durable before its first node starts (SQLite, SIGKILL in the first node)", () => {
  it("sync / async / exit: the input record survives, a resume by id completes", { timeout: 180_000 }, async () => {
    const modes = ["sync", "async", "exit"] as const;
    // One child per durability mode, at once (each loads the sources through tsx: the slow part).
    const exits = await Promise.all(
      modes.map((durability) =>
        runChild([
          path.join(dir, `${durability}.db`),
          durability,
          `inputs-first-${durability}`,
          path.join(dir, `${durability}.crashed`),
        ]),
      ),
    );
    expect(exits).toEqual(["SIGKILL", "SIGKILL", "SIGKILL"]);
    for (const durability of modes) {
      const policy = { durability, ...(durability === "exit" ? { retention: "latest" as const } : {}) };
      const checkpointer = new SqliteCheckpointer({ path: path.join(dir, `${durability}.db`), policy });
      const marker = path.join(dir, `${durability}.crashed`);
      await resumeAfterFirstInstantCrash(checkpointer, `inputs-first-${durability}`, marker, durability);
    }
  });
});
