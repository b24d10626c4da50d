import { isGraphError } from "@graph/errors";
import { isNodeExecutionError, NodeExecutionError } from "@graph/runtime";
import { describe, expect, it } from "vitest";
import { GraphVersionError, isRemoteRunError, RemoteRunError, UnknownGraphError } from "../src/index.js";
import { errorFromWire, errorToWire } from "../src/internal/wire.js";

describe("RemoteRunError", () => {
  it("carries the original's tag as remoteTag and the original as its cause", () => {
    const original = new NodeExecutionError("squares[7]/square", new Error("negative: -7"));
    const remote = errorFromWire(errorToWire(original));
    expect(remote).toMatchObject({ _tag: "RemoteRunError", name: "RemoteRunError", remoteTag: "NodeExecutionError" });
    expect(remote.remote).toBe(true);
    expect(remote.message).toBe("Node 'squares[7]/square' failed: negative: -7");
    expect(remote.cause).toBeInstanceOf(Error);
    expect(remote.cause).toMatchObject({
      name: "NodeExecutionError",
      message: "Node 'squares[7]/square' failed: negative: -7",
      nodeName: "squares[7]/square",
    });
    expect(remote.cause.stack).toBe(original.stack);
    expect(isRemoteRunError(remote)).toBe(true);
    expect(RemoteRunError.is(remote)).toBe(true);
    expect(isGraphError(remote)).toBe(true);
  });

  it("is never taken for the local class: the guard and instanceof agree", () => {
    const remote = new RemoteRunError({ tag: "NodeExecutionError", name: "NodeExecutionError", message: "boom" });
    expect(isNodeExecutionError(remote)).toBe(false);
    expect(remote instanceof NodeExecutionError).toBe(false);
    expect(NodeExecutionError.is(remote)).toBe(false);
    const local = new NodeExecutionError("n", "boom");
    expect([isNodeExecutionError(local), local instanceof NodeExecutionError]).toEqual([true, true]);
  });

  it("keeps the original's plain fields on the cause, never name, message or stack from them", () => {
    const remote = new RemoteRunError({
      tag: "VersionMismatchError",
      name: "VersionMismatchError",
      message: "changed",
      stack: "VersionMismatchError: changed\n    at worker",
      fields: { workflowId: "wf-1", storedHash: "a", name: "spoofed", message: "spoofed", stack: "spoofed" },
    });
    expect(remote.remoteTag).toBe("VersionMismatchError");
    expect(remote.cause).toMatchObject({ name: "VersionMismatchError", message: "changed", workflowId: "wf-1" });
    expect(remote.cause["storedHash"]).toBe("a");
    expect(remote.cause.stack).toBe("VersionMismatchError: changed\n    at worker");
    expect(Object.keys(remote)).toEqual(["_tag", "name", "remoteTag", "remote"]);
  });

  it("an untagged error travels under its name", () => {
    const remote = errorFromWire(errorToWire(new TypeError("bad")));
    expect(remote).toMatchObject({ _tag: "RemoteRunError", remoteTag: "TypeError", message: "bad" });
    expect(remote.cause.name).toBe("TypeError");
  });
});

describe("the queue's refusals", () => {
  it("are tagged errors with their fields", () => {
    const unknown = new UnknownGraphError({ graphName: "tickets", workflowId: "t-1", known: ["research"] });
    expect(unknown).toMatchObject({ _tag: "UnknownGraphError", graphName: "tickets", known: ["research"] });
    expect(unknown.message).toBe(
      "Workflow 't-1': no worker graph is named 'tickets' (this worker knows 'research'). How to fix: pass the graph in " +
        "`new GraphWorker({ graphs: [...] })` on every worker of the queue, and give it a `name`.",
    );
    const version = new GraphVersionError({ graphName: "g", workflowId: "w", expected: "a1", actual: "b2" });
    expect(version).toMatchObject({ _tag: "GraphVersionError", expected: "a1", actual: "b2" });
    expect(UnknownGraphError.is(version)).toBe(false);
  });
});
