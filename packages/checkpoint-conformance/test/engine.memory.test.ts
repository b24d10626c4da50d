import { MemoryCheckpointer } from "@graph/checkpoint";
import { describe } from "vitest";
import { describeEngine } from "../src/internal/engine.js";

// The in-memory checkpointer has no storage shared between processes: no `childProcess`, so the crash tests run
// in-process (the crashed runner's storage goes dead after step k) and the races between two runners.
describe("checkpointer conformance: memory", () => {
  describeEngine({ name: "memory", create: (options) => new MemoryCheckpointer(options) });
});
