import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { scriptCommand } from "@graph/checkpoint-conformance";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resumeAfterFirstInstantCrash } from "../../runtime/test/workflows/inputsFirst.js";
import { PostgresCheckpointer } from "../src/index.js";
import { DATABASE_URL, dropSchemas, randomSchema, requirePostgres } from "./fixtures/server.js";

const dir = mkdtempSync(path.join(tmpdir(), "graph-inputs-first-"));
const schema = randomSchema("inputs_first");
beforeAll(requirePostgres);
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await dropSchemas([schema]);
});
const child = fileURLToPath(new URL("./fixtures/inputsFirstChild.ts", import.meta.url));

function runChild(args: string[]): Promise<NodeJS.Signals | number | null> {
  return new Promise((resolve, reject) => {
    const command = scriptCommand(child);
    const proc = fork(command.script, args, {
      execArgv: [...command.execArgv],
      env: { ...process.env, DATABASE_URL },
      stdio: "inherit",
    });
    proc.on("error", reject);
    proc.on("exit", (code, signal) => resolve(signal ?? code));
  });
}

describe("a run's inputs are durable before its first node starts (PostgreSQL, SIGKILL in the first node)", () => {
  it("sync / async / exit: the input record survives, a resume by id completes", { timeout: 180_000 }, async () => {
    const modes = ["sync", "async", "exit"] as const;
    // Set the schema up once: three children migrating one fresh schema at once is another test's subject.
    const migrate = new PostgresCheckpointer({ connectionString: DATABASE_URL, schema });
    await migrate.setup();
    await migrate.close();
    const exits = await Promise.all(
      modes.map((durability) =>
        runChild([schema, durability, `inputs-first-${durability}`, path.join(dir, `${durability}.crashed`)]),
      ),
    );
    expect(exits).toEqual(["SIGKILL", "SIGKILL", "SIGKILL"]);
    for (const durability of modes) {
      const policy = { durability, ...(durability === "exit" ? { retention: "latest" as const } : {}) };
      const checkpointer = new PostgresCheckpointer({ connectionString: DATABASE_URL, schema, policy });
      const marker = path.join(dir, `${durability}.crashed`);
      await resumeAfterFirstInstantCrash(checkpointer, `inputs-first-${durability}`, marker, durability);
    }
  });
});
