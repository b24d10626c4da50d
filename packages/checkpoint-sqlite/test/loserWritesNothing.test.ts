import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, it } from "vitest";
// The runtime's conflict matrix, run on this adapter (the runtime can't depend on its adapters).
import { loserWritesNothing } from "../../runtime/test/workflows/loserWritesNothing.js";
import { SqliteCheckpointer } from "../src/index.js";

const dir = mkdtempSync(path.join(tmpdir(), "graph-loser-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a caller that does not hold the lease writes nothing (SQLite, two checkpointers on one file)", () => {
  for (const durability of ["sync", "async", "exit"] as const) {
    it(`live holder / completed / failed / paused × every entry that fails before the claim (${durability})`, () => {
      const file = path.join(dir, `${durability}.db`);
      const policy = { durability, ...(durability === "exit" ? { retention: "latest" as const } : {}) };
      return loserWritesNothing(
        {
          holder: new SqliteCheckpointer({ path: file, policy }),
          loser: new SqliteCheckpointer({ path: file, policy }),
        },
        `loser-${durability}`,
      );
    });
  }
});
