import path from "node:path";
import type { Checkpointer } from "@graph/checkpoint";
import { SqliteCheckpointer } from "@graph/checkpoint-sqlite";
import { afterAll } from "vitest";
import { sqliteBytes } from "./support/rawStores.js";
import { tempDir } from "./support/services.js";
import { describeUpgradeUnderLease } from "./support/underLease.js";

const temp = tempDir();
afterAll(() => temp.remove());
let n = 0;
const files = new WeakMap<Checkpointer, string>();
describeUpgradeUnderLease("SQLite file, holder in another process", {
  open: () => {
    const file = path.join(temp.dir, `lease-${n++}.db`);
    const checkpointer = new SqliteCheckpointer({ path: file });
    files.set(checkpointer, file);
    return checkpointer;
  },
  location: (checkpointer) => ({ store: files.get(checkpointer)! }),
  raw: async (checkpointer) => sqliteBytes(files.get(checkpointer)!),
});
