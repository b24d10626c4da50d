import { isCheckpointError, MemoryCheckpointer } from "@graph/checkpoint";
import { Graph, node } from "@graph/core";
import { describe, expect, it } from "vitest";
import { Runner } from "../src/index.js";
import { AIMessage, messageSerializer, resumeWithClassInstances } from "./workflows/classInstances.js";

describe("class instances in state, with createSerializer({ classes })", () => {
  it("a paused run resumes with the AIMessage (and an Error in a Map in an array) read back from storage", () =>
    resumeWithClassInstances(new MemoryCheckpointer({ serializer: messageSerializer }), undefined, "classes-memory"));

  it("without registration the run fails with the CheckpointError naming the value and the class", async () => {
    const model = node({ name: "model", output: "message" }, () => new AIMessage({ content: "hi", at: new Date(0) }));
    const runner = new Runner({ checkpointer: new MemoryCheckpointer({ policy: { durability: "sync" } }) });
    try {
      const error = await runner.run(new Graph([model]), { workflowId: "classes-unregistered" }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isCheckpointError(error)).toBe(true);
      expect(error).toMatchObject({ nodeName: "model", path: "values.message", workflowId: "classes-unregistered" });
      expect((error as Error).message).toContain("an instance of AIMessage, which is not a supported type");
      expect((error as Error).message).toContain("register its class with createSerializer({ classes })");
    } finally {
      await runner.close();
    }
  });
});
