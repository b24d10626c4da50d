import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, it } from "vitest";
// The runtime's check, run on this adapter (the runtime can't depend on its adapters).
import {
  privateLoopStateSurvivesResume,
  privateLoopStateSurvivesStop,
} from "../../runtime/test/workflows/privateState.js";
import { SqliteCheckpointer } from "../src/index.js";

const dir = mkdtempSync(path.join(tmpdir(), "graph-private-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a nested graph's own loop state across resumes (SQLite file, a new checkpointer per run)", () => {
  for (const durability of ["sync", "async"] as const) {
    it(`a call resumed mid-loop keeps its stored state; the next call starts from its seed (${durability})`, () => {
      const file = path.join(dir, `${durability}.db`);
      return privateLoopStateSurvivesResume(() => {
        const checkpointer = new SqliteCheckpointer({ path: file, policy: { durability } });
        return { checkpointer, close: () => checkpointer.close() };
      }, `private-${durability}`);
    });

    it(`a call stopped mid-loop goes on from its stored state after a restart (${durability})`, () => {
      const file = path.join(dir, `stop-${durability}.db`);
      return privateLoopStateSurvivesStop(() => {
        const checkpointer = new SqliteCheckpointer({ path: file, policy: { durability } });
        return { checkpointer, close: () => checkpointer.close() };
      }, `private-stop-${durability}`);
    });
  }
});
