import type { GraphUIMessage } from "@graph/ai-sdk";
import { describe, expect, it } from "vitest";
import { foldGraphMessages } from "../src/index.js";

const user = (id: string, text: string): GraphUIMessage => ({ id, role: "user", parts: [{ type: "text", text }] });

describe("foldGraphMessages", () => {
  it("folds state from every message and activity from the latest run", () => {
    const first: GraphUIMessage = {
      id: "a1",
      role: "assistant",
      parts: [
        { type: "data-node-start", data: { name: "draft", path: "draft", nodeType: "function" } },
        { type: "data-node-end", data: { name: "draft", path: "draft", status: "completed", durationMs: 5 } },
        { type: "data-state", data: { node: "draft", values: { draft: "v1", topic: "billing" } } },
        {
          type: "data-node-suspense",
          // As a server from before `nodeName` sends it.
          data: { name: "approval", responseKey: "decision", value: "v1", workflowId: "c1" } as never,
        },
        { type: "data-run", data: { status: "paused", workflowId: "c1", runId: "r1" } },
      ],
    };
    const paused = foldGraphMessages([user("u1", "hi"), first]);
    // A part from a server before `nodeName` (only `name`) reads the same.
    expect(paused.pending).toEqual({
      nodeName: "approval",
      name: "approval",
      responseKey: "decision",
      value: "v1",
      workflowId: "c1",
    });
    expect(paused.state).toEqual({ draft: "v1", topic: "billing" });
    expect(paused.nodes).toEqual([{ name: "draft", path: "draft", status: "completed", runs: 1, durationMs: 5 }]);
    expect(paused.activeNodes).toEqual([]);
    expect(paused.run).toEqual({ status: "paused", workflowId: "c1", runId: "r1" });

    // The answer was sent: nothing waits any more, even before the continuation arrives.
    expect(foldGraphMessages([user("u1", "hi"), first, user("u2", "yes")]).pending).toBeUndefined();

    const second: GraphUIMessage = {
      id: "a2",
      role: "assistant",
      parts: [
        { type: "data-node-start", data: { name: "send", path: "send", nodeType: "function" } },
        { type: "data-node-start", data: { name: "summarize", path: "research/0/summarize", nodeType: "function" } },
        { type: "data-state", data: { node: "research/0/summarize", values: { "research/0/summary": "S" } } },
        { type: "text", text: "Sending…" },
      ],
    };
    const running = foldGraphMessages([user("u1", "hi"), first, user("u2", "yes"), second]);
    expect(running.activeNodes).toEqual(["send", "research/0/summarize"]);
    expect(running.state).toEqual({ draft: "v1", topic: "billing", "research/0/summary": "S" });
    expect(running.run).toBeUndefined();
    expect(running.pending).toBeUndefined();
  });

  it("a failed node keeps its error; a node that runs again shows its latest execution last, counted", () => {
    const message: GraphUIMessage = {
      id: "a",
      role: "assistant",
      parts: [
        { type: "data-node-start", data: { name: "agent", path: "agent", nodeType: "function" } },
        { type: "data-node-end", data: { name: "agent", path: "agent", status: "completed", durationMs: 1 } },
        { type: "data-node-start", data: { name: "tools", path: "tools", nodeType: "function" } },
        {
          type: "data-node-end",
          data: { name: "tools", path: "tools", status: "failed", durationMs: 2, error: "Boom" },
        },
        { type: "data-node-start", data: { name: "agent", path: "agent", nodeType: "function" } },
      ],
    };
    expect(foldGraphMessages([message]).nodes).toEqual([
      { name: "tools", path: "tools", status: "failed", runs: 1, durationMs: 2, error: "Boom" },
      { name: "agent", path: "agent", status: "running", runs: 2 },
    ]);
  });
});
