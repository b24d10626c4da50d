import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runTogether as runWorkers } from "@graph/checkpoint-conformance";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteCheckpointer } from "../src/index.js";

const workerScript = fileURLToPath(new URL("./fixtures/worker.ts", import.meta.url));
const runTogether = (argsList: readonly (readonly string[])[]) => runWorkers(workerScript, argsList);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "graph-sqlite-mp-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("SqliteCheckpointer shared by several processes", () => {
  it("concurrent claims of one workflow from 4 processes: exactly one wins, 25 rounds in a row", async () => {
    const file = path.join(dir, "claims", "race.db");
    const rounds = 25;
    const seed = new SqliteCheckpointer({ path: file });
    for (let round = 0; round < rounds; round++) {
      await seed.createWorkflow({ id: `race-${round}`, graphName: "g", graphHash: "h" });
    }
    await seed.close();
    const results = await runTogether([0, 1, 2, 3].map((n) => ["claim", file, String(rounds), "60", `owner-${n}`]));
    for (const result of results) expect(result["fatal"]).toBeUndefined();
    const perProcess = results.map((r) => r["results"] as string[]);
    for (let round = 0; round < rounds; round++) {
      const outcomes = perProcess.map((list) => list[round]);
      expect(
        outcomes.filter((o) => o?.startsWith("error")),
        `round ${round}`,
      ).toEqual([]);
      expect(
        outcomes.filter((o) => o === "won:1"),
        `round ${round}: ${outcomes.join(", ")}`,
      ).toHaveLength(1);
      expect(outcomes.filter((o) => o === "lost")).toHaveLength(3);
    }
    const check = new SqliteCheckpointer({ path: file });
    const winners = await Promise.all(
      Array.from({ length: rounds }, async (_, round) => (await check.getWorkflow(`race-${round}`))?.lease?.epoch),
    );
    expect(winners.every((epoch) => epoch === 1)).toBe(true);
    await check.close();
  }, 90_000);

  it("concurrent setup on a fresh file and concurrent writes to different workflows: no SQLITE_BUSY", async () => {
    const file = path.join(dir, "writes", "shared.db");
    const steps = 200;
    const results = await runTogether([0, 1, 2, 3].map((n) => ["write", file, `writer-${n}`, String(steps)]));
    for (const result of results) {
      expect(result["fatal"]).toBeUndefined();
      expect(result["errors"]).toEqual([]);
    }
    const check = new SqliteCheckpointer({ path: file });
    for (let n = 0; n < 4; n++) {
      const workflow = await check.getWorkflow(`writer-${n}`);
      expect(workflow?.stepCount).toBe(steps);
      expect(workflow?.lastSuperstep).toBe(steps - 1);
      const state = await check.getState(`writer-${n}`);
      expect(state).toEqual({ x: steps - 1, text: `value ${steps - 1}` });
    }
    await check.close();
  }, 90_000);
});
