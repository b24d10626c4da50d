// makeRunHandle: the one handle every runner returns from `start` (Runner here, RemoteRunner in the queue package).
import { Graph, node } from "@graph/core";
import { describe, expect, it } from "vitest";
import { type GraphEvent, makeRunHandle, type RunEventSource, Runner, RunResult } from "../src/index.js";

/** A minimal event source: records how it was closed and replays what it was given. */
function source(events: GraphEvent[] = []) {
  const closed: { error?: unknown }[] = [];
  const s: RunEventSource = {
    close(error?: unknown) {
      closed.push(error === undefined ? {} : { error });
    },
    async *[Symbol.asyncIterator]() {
      yield* events;
      const last = closed.at(-1);
      if (last !== undefined && "error" in last) throw last.error;
    },
  };
  return { s, closed };
}

const result = (runId: string) => new RunResult({ status: "completed", values: { y: 1 }, workflowId: "w", runId });

describe("makeRunHandle", () => {
  it("runId once the result is in; events closed when it resolves; stop forwards its info and returns a Promise", async () => {
    const { s, closed } = source();
    let resolve!: (r: RunResult) => void;
    const stops: unknown[] = [];
    const handle = makeRunHandle({
      workflowId: "w",
      events: s,
      result: new Promise<RunResult>((r) => (resolve = r)),
      stop: (info) => void stops.push(info),
    });
    expect(handle.workflowId).toBe("w");
    expect(handle.runId).toBe("");
    const stopped = handle.stop({ reason: "enough" });
    expect(stopped).toBeInstanceOf(Promise);
    await stopped;
    expect(stops).toEqual([{ reason: "enough" }]);
    resolve(result("r-1"));
    expect((await handle.result).values).toEqual({ y: 1 });
    expect(handle.runId).toBe("r-1");
    expect(closed).toEqual([{}]);
  });

  it("a failed run closes the events with its error, and an unread rejection is not an unhandled one", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const { s, closed } = source();
      const boom = Object.assign(new Error("boom"), { _tag: "NodeExecutionError" });
      const handle = makeRunHandle({ workflowId: "w", events: s, result: Promise.reject(boom), stop: () => {} });
      await new Promise((r) => setTimeout(r, 20));
      expect(unhandled).toEqual([]);
      expect(closed).toEqual([{ error: boom }]);
      await expect(handle.result).rejects.toBe(boom);
      await expect(async () => {
        for await (const _ of handle.events) void _;
      }).rejects.toBe(boom);
      expect(handle.runId).toBe("");
      // A stop that fails rejects the caller's promise.
      const failing = makeRunHandle({
        workflowId: "w",
        events: source().s,
        result: Promise.resolve(result("r")),
        stop: () => Promise.reject(new Error("store down")),
      });
      await expect(failing.stop()).rejects.toThrow("store down");
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  it("Runner.start builds its handle with it: stop() resolves and the run ends stopped", async () => {
    let started!: () => void;
    const inNode = new Promise<void>((r) => (started = r));
    const wait = node({ name: "wait", output: "done" }, async ({ go }: { go: boolean }, ctx) => {
      started();
      await new Promise<void>((r) => ctx.signal.addEventListener("abort", () => r()));
      return go;
    });
    const runner = new Runner();
    const handle = runner.start(new Graph([wait]), { values: { go: true }, workflowId: "h" });
    await inNode;
    await expect(handle.stop("now")).resolves.toBeUndefined();
    const r = await handle.result;
    expect(r.status).toBe("stopped");
    expect(handle.runId).toBe(r.runId);
    expect(handle.runId).not.toBe("");
    await runner.close();
  });
});
