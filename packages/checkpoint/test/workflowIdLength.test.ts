import { describe, expect, it } from "vitest";
import { MAX_WORKFLOW_ID_BYTES, MemoryCheckpointer, validateWorkflowId, workflowIdTooLong } from "../src/index.js";

describe("workflow id length limit", () => {
  it("is 1,024 UTF-8 bytes, counted in bytes", () => {
    expect(MAX_WORKFLOW_ID_BYTES).toBe(1024);
    expect(workflowIdTooLong("a".repeat(1024))).toBeUndefined();
    expect(workflowIdTooLong("€".repeat(341))).toBeUndefined(); // 1,023 bytes
    expect(workflowIdTooLong("€".repeat(342))).toBe(
      `Workflow id "${"€".repeat(32)}…" is 1026 UTF-8 bytes long; the limit is 1024 bytes on every checkpointer. ` +
        "Use a shorter id (for example a hash of the long key).",
    );
  });

  it("validateWorkflowId and MemoryCheckpointer reject longer ids with a CheckpointError", async () => {
    expect(() => validateWorkflowId("a".repeat(1025), "getSteps")).toThrow(
      /is 1025 UTF-8 bytes long; the limit is 1024 bytes .*\(in getSteps\)$/,
    );
    const cp = new MemoryCheckpointer();
    await expect(cp.createWorkflow({ id: "b".repeat(2000), graphName: "g", graphHash: "h" })).rejects.toMatchObject({
      _tag: "CheckpointError",
      operation: "createWorkflow",
      path: "workflowId",
    });
    await cp.close();
  });
});
