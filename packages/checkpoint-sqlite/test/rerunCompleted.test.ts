import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, it } from "vitest";
// The runtime's check, run on this adapter (the runtime can't depend on its adapters).
import { rerunOfCompletedIsANoOp } from "../../runtime/test/workflows/rerunCompleted.js";
import { SqliteCheckpointer } from "../src/index.js";

const dir = mkdtempSync(path.join(tmpdir(), "graph-rerun-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("run again on a completed workflow with no new values (SQLite)", () => {
  for (const durability of ["sync", "async"] as const) {
    it(`returns the stored result, runs nothing, writes nothing; new values start the next turn (${durability})`, () =>
      rerunOfCompletedIsANoOp(
        new SqliteCheckpointer({ path: path.join(dir, `${durability}.db`), policy: { durability } }),
        `rerun-${durability}`,
      ));
  }
});
