import { describe, expect, it } from "vitest";
import type { Serializer, StepRecord } from "../src/index.js";
import { CheckpointError, defaultSerializer, MemoryCheckpointer } from "../src/index.js";

const step = (workflowId: string, index: number, values: Record<string, unknown> = {}): StepRecord => ({
  workflowId,
  superstep: index,
  nodeName: `n${index}`,
  index,
  status: "completed",
  inputVersions: {},
  values,
  truncated: false,
  startedAt: new Date(0),
  completedAt: new Date(1),
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function rejection(promise: Promise<unknown>): Promise<CheckpointError> {
  try {
    await promise;
  } catch (error) {
    return error as CheckpointError;
  }
  throw new Error("expected a rejection");
}

describe("MemoryCheckpointer", () => {
  it("resolves its policy and rejects invalid ones at construction", () => {
    expect(new MemoryCheckpointer().policy).toEqual({ durability: "async", retention: "full" });
    expect(new MemoryCheckpointer({ policy: { durability: "exit" } }).policy.retention).toBe("latest");
    expect(() => new MemoryCheckpointer({ policy: { retention: "windowed" } })).toThrow(CheckpointError);
  });

  it("uses the configured serializer for every stored value", async () => {
    let serialized = 0;
    let deserialized = 0;
    const counting: Serializer = {
      serialize: (value) => (serialized++, defaultSerializer.serialize(value)),
      deserialize: (text) => (deserialized++, defaultSerializer.deserialize(text)),
    };
    const cp = new MemoryCheckpointer({ serializer: counting });
    await cp.createWorkflow({ id: "w", graphName: "g", graphHash: "h" });
    await cp.saveStep(step("w", 0, { a: 1 }));
    await cp.updateWorkflow("w", { pause: { nodeName: "n", value: 1, responseKey: "r" } });
    expect(serialized).toBe(2);
    await cp.getSteps("w");
    expect(deserialized).toBeGreaterThanOrEqual(1);
  });

  it("starts epochs at 1 and says who holds the workflow when a fence is stale", async () => {
    const cp = new MemoryCheckpointer();
    await cp.createWorkflow({ id: "w", graphName: "g", graphHash: "h" });
    const first = await cp.claimWorkflow("w", { owner: "a", ttlMs: 1 });
    expect(first.epoch).toBe(1);
    await sleep(5);
    const second = await cp.claimWorkflow("w", { owner: "b", ttlMs: 10_000 });
    expect(second.epoch).toBe(2);
    const error = await rejection(cp.saveStep(step("w", 0), { epoch: 1 }));
    expect(error).toMatchObject({ _tag: "WorkflowConflictError", workflowId: "w", reason: "stale-fence", heldBy: "b" });
    expect(error.message).toContain("owner 'b'");
    expect(error.message).toContain("epoch 2");
  });

  it("clips getCheckpoint's superstep to the last one written", async () => {
    const cp = new MemoryCheckpointer();
    await cp.createWorkflow({ id: "w", graphName: "g", graphHash: "h" });
    await cp.saveStep(step("w", 0, { a: 1 }));
    await cp.saveStep(step("w", 1, { a: 2 }));
    expect((await cp.getCheckpoint("w", { superstep: 10 }))?.superstep).toBe(1);
    expect((await cp.getCheckpoint("w", { superstep: -5 }))?.superstep).toBe(-1);
  });

  it("prunes expired workflows on setup, and exposes pruneExpired", async () => {
    const cp = new MemoryCheckpointer({ policy: { ttlMs: 1000 } });
    await cp.createWorkflow({ id: "old", graphName: "g", graphHash: "h" });
    await cp.createWorkflow({ id: "old/child", graphName: "g", graphHash: "h", parentId: "old" });
    await cp.updateWorkflow("old", { status: "completed" });
    await cp.createWorkflow({ id: "crashed", graphName: "g", graphHash: "h" }); // running, no live lease
    expect(cp.pruneExpired(Date.now() + 500)).toBe(0);
    expect(cp.pruneExpired(Date.now() + 2000)).toBe(2);
    expect(await cp.getWorkflow("old/child")).toBeUndefined();
    expect(await cp.getWorkflow("crashed")).toBeUndefined();
    expect(new MemoryCheckpointer().pruneExpired(Number.MAX_SAFE_INTEGER)).toBe(0);

    const viaSetup = new MemoryCheckpointer({ policy: { ttlMs: 20 } });
    await viaSetup.createWorkflow({ id: "x", graphName: "g", graphHash: "h" });
    await viaSetup.updateWorkflow("x", { status: "stopped" });
    await sleep(40);
    await viaSetup.setup();
    expect(await viaSetup.getWorkflow("x")).toBeUndefined();
  });

  it("rejects every operation after close with CheckpointError, and close stays idempotent", async () => {
    const cp = new MemoryCheckpointer();
    await cp.close();
    await cp.close();
    const error = await rejection(cp.getWorkflow("w"));
    expect(error._tag).toBe("CheckpointError");
    expect(error.operation).toBe("getWorkflow");
    expect((await rejection(cp.setup()))._tag).toBe("CheckpointError");
  });

  it("never stores stray properties of a step", async () => {
    const cp = new MemoryCheckpointer();
    await cp.createWorkflow({ id: "w", graphName: "g", graphHash: "h" });
    await cp.saveStep({ ...step("w", 0), extra: () => 1 } as unknown as StepRecord);
    expect(Object.keys((await cp.getSteps("w"))[0]!)).not.toContain("extra");
  });

  it("reports corrupt stored text with CheckpointError naming the workflow", async () => {
    let corrupt = false;
    const flaky: Serializer = {
      serialize: (value) => defaultSerializer.serialize(value),
      deserialize: (text) => (corrupt ? defaultSerializer.deserialize("{") : defaultSerializer.deserialize(text)),
    };
    const cp = new MemoryCheckpointer({ serializer: flaky });
    await cp.createWorkflow({ id: "w", graphName: "g", graphHash: "h" });
    await cp.saveStep(step("w", 0));
    corrupt = true;
    const error = await rejection(cp.getSteps("w"));
    expect(error._tag).toBe("CheckpointError");
    expect(error.workflowId).toBe("w");
    expect(error.nodeName).toBe("n0");
  });
});
