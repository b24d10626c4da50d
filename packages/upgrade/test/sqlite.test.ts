import path from "node:path";
import { SqliteCheckpointer } from "@graph/checkpoint-sqlite";
import { afterAll } from "vitest";
import { describeUpgradeScenarios } from "./support/scenarios.js";
import { tempDir } from "./support/services.js";

const temp = tempDir();
afterAll(() => temp.remove());
let n = 0;
describeUpgradeScenarios("SQLite file", () => new SqliteCheckpointer({ path: path.join(temp.dir, `wf-${n++}.db`) }));
