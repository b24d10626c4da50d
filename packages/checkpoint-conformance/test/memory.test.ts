import { MemoryCheckpointer } from "@graph/checkpoint";
import { describeCheckpointer } from "../src/index.js";

// The engine half runs in engine.memory.test.ts (its own file, so vitest runs both halves in parallel).
describeCheckpointer({ name: "memory", create: (options) => new MemoryCheckpointer(options), engine: { skip: true } });
