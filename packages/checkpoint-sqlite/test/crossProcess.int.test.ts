import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describeDueWake } from "@graph/checkpoint-conformance";
import { afterAll } from "vitest";
import { SqliteCheckpointer } from "../src/index.js";

// The other processes are children on the same file: one pauses a workflow with a due time and is SIGKILLed.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "graph-sqlite-cross-"));
const file = path.join(dir, "cross.db");
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const options = {
  name: "sqlite",
  create: () => new SqliteCheckpointer({ path: file }),
  engine: {
    childProcess: {
      module: fileURLToPath(new URL("./fixtures/engineAdapter.ts", import.meta.url)),
      args: { path: file },
    },
  },
};

describeDueWake(options);
