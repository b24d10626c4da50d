import { MemoryCheckpointer } from "@graph/checkpoint";
import { describe, it } from "vitest";
import { loserWritesNothing } from "./workflows/loserWritesNothing.js";

describe("a caller that does not hold the lease writes nothing (MemoryCheckpointer)", () => {
  for (const durability of ["sync", "async", "exit"] as const) {
    it(`live holder / completed / failed / paused × run, resume, start, fork, missing inputs, runMapItem, stop (${durability})`, async () => {
      const checkpointer = new MemoryCheckpointer({
        policy: { durability, ...(durability === "exit" ? { retention: "latest" } : {}) },
      });
      await loserWritesNothing({ holder: checkpointer, loser: checkpointer }, `loser-${durability}`);
    });
  }
});
