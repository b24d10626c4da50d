import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, it } from "vitest";
// The runtime's review workflow with an AIMessage-like class in state (it lives in the runtime's tests; see
// planExecute.int.test.ts for why it is run from here).
import { messageSerializer, resumeWithClassInstances } from "../../runtime/test/workflows/classInstances.js";
import { SqliteCheckpointer } from "../src/index.js";

const dir = mkdtempSync(path.join(tmpdir(), "graph-classes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("registered classes on SQLite (a real database file)", () => {
  it("a paused run resumes in a new runner on a reopened file with the AIMessage instance in state", () => {
    const file = path.join(dir, "classes.db");
    return resumeWithClassInstances(
      new SqliteCheckpointer({ path: file, serializer: messageSerializer }),
      () => new SqliteCheckpointer({ path: file, serializer: messageSerializer }),
      "classes-sqlite",
    );
  });
});
