#!/usr/bin/env node
// `npm run test:crash`: the full crash matrix of @graph/checkpoint-conformance — every kill point × every
// durability mode — and the engine suite's SIGKILL after every step boundary, on the SQLite, PostgreSQL and Redis
// adapters, and a BullMQ worker SIGKILLed at every node of a chain (`npm test` runs a fixed sample of each). Sets
// GRAPH_CRASH_MATRIX=full (or keeps the caller's value, e.g. a number of kill points per mode), finds PostgreSQL
// like `npm test` does, and prints each backend's duration. Extra arguments go to vitest.
import { runPerBackend } from "./backendRuns.mjs";

const KIT = "crash matrix|SIGKILL of a child process";
const matrix = process.env.GRAPH_CRASH_MATRIX || "full";
await runPerBackend(
  `crash matrix (GRAPH_CRASH_MATRIX=${matrix})`,
  [
    ...["sqlite", "postgres", "redis"].map((store) => ({
      name: store,
      dir: `packages/checkpoint-${store}`,
      args: ["test/conformance.processes.int.test.ts", "-t", KIT],
    })),
    {
      name: "bullmq workers",
      dir: "packages/queue-bullmq",
      args: ["test/crash.int.test.ts", "-t", "SIGKILL at the start"],
    },
  ],
  { GRAPH_CRASH_MATRIX: matrix },
);
