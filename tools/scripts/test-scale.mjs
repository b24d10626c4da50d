#!/usr/bin/env node
// `npm run test:scale`: the conformance kit's scale area and the retention sweeper under concurrent starts at
// 100,000 stored workflows (GRAPH_SCALE=100000, or the caller's value) on the SQLite, PostgreSQL and Redis adapters
// (`npm test` runs them at 10,000). Finds PostgreSQL like `npm test` does and prints each backend's duration. Extra
// arguments go to vitest.
import { runPerBackend } from "./backendRuns.mjs";

const files = (store) => [
  store === "sqlite" ? "test/scale.test.ts" : "test/scale.int.test.ts",
  "test/sweeper.int.test.ts",
];
const scale = process.env.GRAPH_SCALE || "100000";
await runPerBackend(
  `scale tests (GRAPH_SCALE=${scale})`,
  ["sqlite", "postgres", "redis"].map((store) => ({
    name: store,
    dir: `packages/checkpoint-${store}`,
    args: [...files(store), "--testTimeout", "3600000", "--hookTimeout", "3600000"],
  })),
  { GRAPH_SCALE: scale },
);
