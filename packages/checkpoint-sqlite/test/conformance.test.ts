import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describeCheckpointer } from "@graph/checkpoint-conformance";
import { afterAll } from "vitest";
import { SqliteCheckpointer } from "../src/index.js";

// Every instance opens the same file, as several workers of one application would; the engine tests also run
// real child processes on it and SIGKILL them mid-run.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "graph-sqlite-conformance-"));
const file = path.join(dir, "conformance.db");
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describeCheckpointer({
  name: "sqlite",
  create: (options) => new SqliteCheckpointer({ path: file, ...options }),
  storageBytes: (checkpointer) => (checkpointer as SqliteCheckpointer).storageBytes(),
  engine: {
    childProcess: {
      module: fileURLToPath(new URL("./fixtures/engineAdapter.ts", import.meta.url)),
      args: { path: file },
    },
  },
});
