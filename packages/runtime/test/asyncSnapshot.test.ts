import { MemoryCheckpointer } from "@graph/checkpoint";
import { describe, it } from "vitest";
import { downstreamMutationKeepsStoredOutput, unsaveableValueFailsAtItsStep } from "./workflows/asyncSnapshot.js";

describe('durability "async" snapshots a step\'s values when the step ends (MemoryCheckpointer)', () => {
  it("a downstream node mutating its input does not change the stored upstream output", () =>
    downstreamMutationKeepsStoredOutput(new MemoryCheckpointer({ policy: { durability: "async" } }), "snap-mutate"));
  it('the same with durability "exit"', () =>
    downstreamMutationKeepsStoredOutput(
      new MemoryCheckpointer({ policy: { durability: "exit", retention: "latest" } }),
      "snap-mutate-exit",
    ));
  it("an unsaveable value fails at the step that produced it, before the next node runs", () =>
    unsaveableValueFailsAtItsStep(new MemoryCheckpointer({ policy: { durability: "async" } }), "snap-unsaveable"));
  it("the same when the node producing it is async", () =>
    unsaveableValueFailsAtItsStep(
      new MemoryCheckpointer({ policy: { durability: "async" } }),
      "snap-unsaveable-async",
      "async",
    ));
});
