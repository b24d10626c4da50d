import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, it } from "vitest";
// Runtime workflows (see planExecute.int.test.ts for why they run from here).
import {
  downstreamMutationKeepsStoredOutput,
  unsaveableValueFailsAtItsStep,
} from "../../runtime/test/workflows/asyncSnapshot.js";
import { SqliteCheckpointer } from "../src/index.js";

const dir = mkdtempSync(path.join(tmpdir(), "graph-snapshot-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('durability "async" on SQLite (a real database file)', () => {
  it("a downstream node mutating its input does not change the stored upstream output", () =>
    downstreamMutationKeepsStoredOutput(
      new SqliteCheckpointer({ path: path.join(dir, "mutate.db"), policy: { durability: "async" } }),
      "snap-sqlite",
    ));

  it("an unsaveable value fails at the step that produced it (the adapter's serializer snapshots it)", () =>
    unsaveableValueFailsAtItsStep(
      new SqliteCheckpointer({ path: path.join(dir, "unsaveable.db"), policy: { durability: "async" } }),
      "unsaveable-sqlite",
    ));

  it("the same when the node producing it is async (its step is queued outside Effect)", () =>
    unsaveableValueFailsAtItsStep(
      new SqliteCheckpointer({ path: path.join(dir, "unsaveable-async.db"), policy: { durability: "async" } }),
      "unsaveable-sqlite-async",
      "async",
    ));
});
