import { MemoryCheckpointer } from "@graph/checkpoint";
import { describe, it } from "vitest";
import { rerunOfCompletedIsANoOp } from "./workflows/rerunCompleted.js";

describe("run again on a completed workflow with no new values (MemoryCheckpointer)", () => {
  for (const durability of ["sync", "async"] as const) {
    it(`returns the stored result, runs nothing, writes nothing; new values start the next turn (${durability})`, () =>
      rerunOfCompletedIsANoOp(new MemoryCheckpointer({ policy: { durability } }), `rerun-${durability}`));
  }
  it("the same with an agent loop that names no entrypoint (callModel starts it: messages is an accumulator)", () =>
    rerunOfCompletedIsANoOp(new MemoryCheckpointer(), "rerun-unnamed", false));
});
