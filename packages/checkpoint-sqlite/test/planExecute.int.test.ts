import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, it } from "vitest";
// The runtime's ported plan-and-execute workflow, resumed on this adapter (it lives here, not in the runtime's
// tests, because the runtime can't depend on its adapters: their tests depend on the runtime).
import { resumeAfterPause, resumeAfterStop } from "../../runtime/test/workflows/planExecute.js";
import { SqliteCheckpointer } from "../src/index.js";

const dir = mkdtempSync(path.join(tmpdir(), "graph-plan-execute-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("plan-and-execute on SQLite (a real database file): resuming a nested loop continues it", () => {
  it("after a stop during the second step", () =>
    resumeAfterStop(new SqliteCheckpointer({ path: path.join(dir, "stop.db") }), "pe-stop"));
  it("after each pause for an approval", () =>
    resumeAfterPause(new SqliteCheckpointer({ path: path.join(dir, "pause.db") }), "pe-pause"));
});
