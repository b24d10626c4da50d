import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { SqliteCheckpointer } from "@graph/checkpoint-sqlite";
import { afterAll, describe, expect, it } from "vitest";
import { UPGRADE_STEP } from "../src/index.js";
import { tempDir } from "./support/services.js";

const temp = tempDir();
afterAll(() => temp.remove());
const child = fileURLToPath(new URL("./fixtures/migrateChild.ts", import.meta.url));
const packageDir = fileURLToPath(new URL("..", import.meta.url));

function start(
  file: string,
  mode: string,
  marker = "",
): { proc: ChildProcess; done: Promise<{ code: number | null; signal: string | null; stdout: string }> } {
  const proc = spawn(process.execPath, ["--conditions=@graph/source", "--import", "tsx", child, file, mode, marker], {
    cwd: packageDir,
    stdio: ["ignore", "pipe", "inherit"],
  });
  let stdout = "";
  proc.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  const done = new Promise<{ code: number | null; signal: string | null; stdout: string }>((resolve, reject) => {
    proc.on("error", reject);
    proc.on("exit", (code, signal) => resolve({ code, signal, stdout }));
  });
  return { proc, done };
}

async function waitFor(file: string): Promise<void> {
  for (let i = 0; i < 600 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 50));
  if (!existsSync(file)) throw new Error(`${file} never appeared`);
}

const DRAFT = "DRAFT: OUTLINE OF CATS";

/** Reads what the processes left in the file: the `.upgrade` steps and the final post. */
async function outcome(file: string) {
  const cp = new SqliteCheckpointer({ path: file });
  try {
    const steps = await cp.getSteps("w");
    return {
      upgrades: steps.filter((s) => s.nodeName === UPGRADE_STEP).map((s) => s.values),
      state: await cp.getState("w"),
    };
  } finally {
    await cp.close();
  }
}

describe("a migration killed mid-way (SIGKILL, real processes, SQLite file) is applied exactly once", () => {
  it("killed inside the transform, holding the workflow: the resume waits out the claim and migrates once", {
    timeout: 120_000,
  }, async () => {
    const file = path.join(temp.dir, "in-transform.db");
    expect((await start(file, "create").done).code).toBe(0);
    const marker = path.join(temp.dir, "in-transform.marker");
    const crashing = start(file, "crash-in-transform", marker);
    await waitFor(marker);
    crashing.proc.kill("SIGKILL");
    expect((await crashing.done).signal).toBe("SIGKILL");
    expect((await outcome(file)).upgrades).toEqual([]); // nothing of the migration was written

    const resumed = await start(file, "resume").done;
    expect(resumed.code).toBe(0);
    const report = JSON.parse(resumed.stdout) as {
      status: string;
      values: Record<string, unknown>;
      transformCalls: number;
    };
    expect(report.status).toBe("completed");
    expect(report.transformCalls).toBe(1);
    expect(report.values["post"]).toBe(`${DRAFT} [OK]`);
    const after = await outcome(file);
    expect(after.upgrades).toEqual([{ draft: DRAFT }]);
    expect(after.state["draft"]).toBe(DRAFT);
  });

  it("killed right after the migration's transaction: the resume does not migrate again", {
    timeout: 120_000,
  }, async () => {
    const file = path.join(temp.dir, "after-commit.db");
    expect((await start(file, "create").done).code).toBe(0);
    const crashed = await start(file, "crash-after-commit").done;
    expect(crashed.signal).toBe("SIGKILL");
    expect((await outcome(file)).upgrades).toEqual([{ draft: DRAFT }]);

    const resumed = await start(file, "resume").done;
    expect(resumed.code).toBe(0);
    const report = JSON.parse(resumed.stdout) as {
      status: string;
      values: Record<string, unknown>;
      transformCalls: number;
    };
    expect(report).toMatchObject({ status: "completed", transformCalls: 0 });
    expect(report.values["post"]).toBe(`${DRAFT} [OK]`);
    expect((await outcome(file)).upgrades).toEqual([{ draft: DRAFT }]);
  });
});
