import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, it } from "vitest";
// The runtime's check, run on this adapter (the runtime can't depend on its adapters).
import { closeDuringRunStops } from "../../runtime/test/workflows/closeDuringRun.js";
import { SqliteCheckpointer } from "../src/index.js";

const dir = mkdtempSync(path.join(tmpdir(), "graph-close-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("runner.close() during a run (SQLite file)", () => {
  for (const durability of ["sync", "async"] as const) {
    it(`the run ends stopped, the stored workflow is stopped with no lease, then the file is closed (${durability})`, () => {
      const file = path.join(dir, `${durability}.db`);
      return closeDuringRunStops(
        () => new SqliteCheckpointer({ path: file, policy: { durability } }),
        () => new SqliteCheckpointer({ path: file }),
        `close-${durability}`,
      );
    });
  }
});
