import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describeWaitForLease } from "@graph/checkpoint-conformance";
import { afterAll } from "vitest";
import { SqliteCheckpointer } from "../src/index.js";

// The holder is a child process on the same file, SIGKILLed while it holds the workflow's lease.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "graph-sqlite-wait-"));
const file = path.join(dir, "wait.db");
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describeWaitForLease({
  name: "sqlite",
  create: (options) => new SqliteCheckpointer({ path: file, ...options }),
  engine: {
    childProcess: {
      module: fileURLToPath(new URL("./fixtures/engineAdapter.ts", import.meta.url)),
      args: { path: file },
    },
  },
});
