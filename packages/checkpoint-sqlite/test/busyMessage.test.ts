import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { isCheckpointError } from "@graph/checkpoint";
import { rejection } from "@graph/checkpoint-conformance";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteCheckpointer } from "../src/index.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "graph-sqlite-busy-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("SQLITE_BUSY says the file was locked by another connection and what to do", () => {
  it("a write behind another connection's open write transaction fails after busyTimeoutMs, naming the option", async () => {
    const file = path.join(dir, "busy.db");
    const cp = new SqliteCheckpointer({ path: file, busyTimeoutMs: 100 });
    await cp.createWorkflow({ id: "wf", graphName: "g", graphHash: "h" });
    const other = new Database(file);
    try {
      other.exec("BEGIN IMMEDIATE"); // holds the write lock, as another process's long write would
      const error = await rejection(cp.claimWorkflow("wf", { owner: "runner", ttlMs: 60_000 }));
      expect(isCheckpointError(error)).toBe(true);
      const message = (error as Error).message;
      expect(message).toContain(`SqliteCheckpointer.claimWorkflow for workflow 'wf' failed: the SQLite database`);
      expect(message).toContain("stayed locked by another connection for longer than busyTimeoutMs (100 ms)");
      expect(message).toContain("SQLITE_BUSY");
      expect(message).toContain("Nothing was written; retry the call.");
      expect(message).toContain("new SqliteCheckpointer({ path, busyTimeoutMs })");
      other.exec("ROLLBACK");
      // Nothing was written: the claim goes through once the lock is gone.
      expect((await cp.claimWorkflow("wf", { owner: "runner", ttlMs: 60_000 })).epoch).toBe(1);
    } finally {
      other.close();
      await cp.close();
    }
  });
});
