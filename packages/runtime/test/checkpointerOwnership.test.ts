// Who owns the checkpointer: the runner it was given to — `close()` closes it — unless `closeCheckpointer: false`
// leaves it to the application (shared by several runners, or read after the runner closed).
import { MemoryCheckpointer } from "@graph/checkpoint";
import { Graph, node } from "@graph/core";
import { describe, expect, it } from "vitest";
import { isInvalidOptionError, Runner } from "../src/index.js";

const double = node({ name: "double", output: "y" }, ({ x }: { x: number }) => x * 2);
const graph = new Graph([double], { name: "double" });

describe("checkpointer ownership", () => {
  it("runner.close() closes the checkpointer it was given (default)", async () => {
    const checkpointer = new MemoryCheckpointer();
    const runner = new Runner({ checkpointer });
    await runner.run(graph, { values: { x: 2 }, workflowId: "own-1" });
    await runner.close();
    const error = await checkpointer.getWorkflow("own-1").catch((e: unknown) => e);
    expect((error as { _tag: string })._tag).toBe("CheckpointError");
    expect((error as Error).message).toContain("was called after close()");
  });

  it("closeCheckpointer: false leaves it open: pending writes flushed, a second runner goes on with it", async () => {
    const checkpointer = new MemoryCheckpointer({ policy: { durability: "exit" } });
    const first = new Runner({ checkpointer, closeCheckpointer: false });
    await first.run(graph, { values: { x: 2 }, workflowId: "shared-1" });
    await first.close();
    expect((await checkpointer.getWorkflow("shared-1"))?.status).toBe("completed");
    expect(await checkpointer.getState("shared-1")).toEqual({ x: 2, y: 4 });
    const second = new Runner({ checkpointer });
    const r = await second.run(graph, { values: { x: 5 }, workflowId: "shared-2" });
    expect(r.values).toEqual({ y: 10 });
    await second.close();
  });

  it("closeCheckpointer must be a boolean", () => {
    const error = (() => {
      try {
        return new Runner({ closeCheckpointer: "no" as never });
      } catch (e) {
        return e;
      }
    })();
    expect(isInvalidOptionError(error)).toBe(true);
    expect((error as { option: string }).option).toBe("closeCheckpointer");
  });
});
