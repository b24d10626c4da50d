import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, it } from "vitest";
// The runtime's check, run on this adapter (the runtime can't depend on its adapters).
import { twoRunnersFireEachOccurrenceOnce } from "../../runtime/test/workflows/scheduleTwoRunners.js";
import { SqliteCheckpointer } from "../src/index.js";

const dir = mkdtempSync(path.join(tmpdir(), "graph-schedules-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("schedules on one SQLite file (SQLite)", () => {
  it("two runners, each with its own connection to the file, run each occurrence exactly once", () =>
    twoRunnersFireEachOccurrenceOnce(() => new SqliteCheckpointer({ path: path.join(dir, "schedules.db") })));
});
