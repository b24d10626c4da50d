import { describe, expect, it } from "vitest";
import {
  CheckpointError,
  GRAPH_ERROR_BRAND,
  isCheckpointError,
  isWorkflowConflictError,
  WorkflowConflictError,
} from "../src/index.js";

describe("errors", () => {
  it("CheckpointError carries its tag, name, brand, context and cause", () => {
    const cause = new Error("disk full");
    const error = new CheckpointError({
      message: "Cannot save",
      workflowId: "wf",
      nodeName: "n",
      path: "values.x",
      operation: "saveStep",
      cause,
    });
    expect(error).toBeInstanceOf(Error);
    expect(error._tag).toBe("CheckpointError");
    expect(error.name).toBe("CheckpointError");
    expect(error[GRAPH_ERROR_BRAND]).toBe(true);
    expect(error.message).toBe("Cannot save");
    expect(error.cause).toBe(cause);
    expect({ ...error }).toMatchObject({ workflowId: "wf", nodeName: "n", path: "values.x", operation: "saveStep" });
    expect(String(error)).toBe("CheckpointError: Cannot save");
  });

  it("omits absent context fields", () => {
    const error = new CheckpointError({ message: "x" });
    expect("workflowId" in error).toBe(false);
    expect("path" in error).toBe(false);
    expect("cause" in error).toBe(false);
  });

  it("WorkflowConflictError says who holds the lease and how to proceed", () => {
    const expiresAt = new Date("2030-01-01T00:00:00.000Z");
    const error = new WorkflowConflictError({ workflowId: "x", heldBy: "host-a:1", expiresAt });
    expect(error._tag).toBe("WorkflowConflictError");
    expect(error.name).toBe("WorkflowConflictError");
    expect(error.message).toBe(
      "Workflow 'x' is already being run by owner 'host-a:1' (lease until 2030-01-01T00:00:00.000Z). " +
        "Wait for it to finish, stop it, or resume after the lease expires — `waitForLease: true` in the run's options " +
        "waits for the lease, then resumes.",
    );
    expect(error.expiresAt).toEqual(expiresAt);
    expect(error.expiresAt).not.toBe(expiresAt);
    expect(new WorkflowConflictError({ workflowId: "y" }).message).toContain("another owner");
  });

  it("guards check tag and brand, not instanceof", () => {
    const checkpoint = new CheckpointError({ message: "x" });
    const conflict = new WorkflowConflictError({ workflowId: "x" });
    expect(isCheckpointError(checkpoint)).toBe(true);
    expect(isCheckpointError(conflict)).toBe(false);
    expect(isWorkflowConflictError(conflict)).toBe(true);
    expect(isWorkflowConflictError(checkpoint)).toBe(false);
    // A copy from another instance of the package: same tag and brand, different class.
    const foreign = Object.assign(new Error("x"), { _tag: "CheckpointError", [Symbol.for("@graph/error")]: true });
    expect(isCheckpointError(foreign)).toBe(true);
    // Same tag without the brand is not ours.
    expect(isCheckpointError({ _tag: "CheckpointError" })).toBe(false);
    expect(isCheckpointError(null)).toBe(false);
    expect(isCheckpointError("CheckpointError")).toBe(false);
  });
});
