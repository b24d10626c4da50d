// Who owns a RemoteRunner's checkpointer: the runner — `close()` closes it, as `Runner.close()` closes its own —
// unless `closeCheckpointer: false` leaves it to an application that shares it.
import { MemoryCheckpointer } from "@graph/checkpoint";
import { describe, expect, inject, it } from "vitest";
import { RemoteRunner } from "../src/index.js";
import { uniqueName } from "./fixtures/processes.js";

describe("RemoteRunner.close() and its checkpointer", () => {
  it("closes the checkpointer it was given (default)", async () => {
    const checkpointer = new MemoryCheckpointer();
    const remote = new RemoteRunner({ connection: inject("redisUrl"), queue: uniqueName("q"), checkpointer });
    // A stop records the durable request in the checkpointer: the runner uses it until it closes.
    expect(await remote.stop("nobody-runs-this")).toBe(false);
    await remote.close();
    const error = await checkpointer.getWorkflow("nobody-runs-this").catch((e: unknown) => e);
    expect((error as { _tag: string })._tag).toBe("CheckpointError");
    expect((error as Error).message).toContain("was called after close()");
  });

  it("closeCheckpointer: false leaves it open for the application that shares it", async () => {
    const checkpointer = new MemoryCheckpointer();
    await checkpointer.createWorkflow({ id: "kept", graphName: "g", graphHash: "h" });
    const remote = new RemoteRunner({
      connection: inject("redisUrl"),
      queue: uniqueName("q"),
      checkpointer,
      closeCheckpointer: false,
    });
    await remote.close();
    expect((await checkpointer.getWorkflow("kept"))?.status).toBe("running");
    await checkpointer.close();
  });
});
