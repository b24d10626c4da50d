import { MemoryCheckpointer } from "@graph/checkpoint";
import { END, Graph, interrupt, node, route } from "@graph/core";
import { describe, expect, it } from "vitest";
import { type GraphEvent, Runner } from "../src/index.js";

describe("durable runs (MemoryCheckpointer)", () => {
  it("multi-turn chat restores messages with the same workflow id", async () => {
    const getResponse = node(
      { output: "response" },
      function getResponse({ messages, userInput }: { messages: string[]; userInput: string }) {
        return `echo(${userInput}) after ${messages.length}`;
      },
    );
    const updateMessages = node(
      { output: "messages" },
      function updateMessages({
        messages,
        userInput,
        response,
      }: {
        messages: string[];
        userInput: string;
        response: string;
      }) {
        return [...messages, userInput, response];
      },
    );
    const chat = new Graph([getResponse, updateMessages], { name: "chat" }).bind({ messages: [] });
    const runner = new Runner({ checkpointer: new MemoryCheckpointer() });
    const t1 = await runner.run(chat, { values: { userInput: "hi" }, workflowId: "chat-1" });
    expect(t1.values.messages).toEqual(["hi", "echo(hi) after 0"]);
    const t2 = await runner.run(chat, { values: { userInput: "more" }, workflowId: "chat-1" });
    expect(t2.values.messages).toEqual(["hi", "echo(hi) after 0", "more", "echo(more) after 2"]);
    await runner.close();
  });

  it("interrupt resumes with only the answer, finished nodes replayed", async () => {
    const calls: string[] = [];
    const draft = node({ output: "draft" }, function draft({ topic }: { topic: string }) {
      calls.push("draft");
      return `about ${topic}`;
    });
    const approval = interrupt({ name: "approval", input: "draft", response: "decision" });
    const finalize = node(
      { output: "final" },
      function finalize({ draft, decision }: { draft: string; decision: string }) {
        calls.push("finalize");
        return `${draft}: ${decision}`;
      },
    );
    const g = new Graph([draft, approval, finalize], { name: "g" });
    const events: GraphEvent[] = [];
    const runner = new Runner({
      checkpointer: new MemoryCheckpointer(),
      eventProcessors: [{ onEvent: (e) => void events.push(e) }],
    });
    const r1 = await runner.run(g, { values: { topic: "cats" }, workflowId: "wf" });
    expect(r1.status).toBe("paused");
    const r2 = await runner.run(g, { values: { decision: "ok" }, workflowId: "wf" });
    expect(r2.status).toBe("completed");
    expect(r2.values.final).toBe("about cats: ok");
    expect(calls).toEqual(["draft", "finalize"]);
    expect(events.some((e) => e.type === "NodeEnd" && e.nodeName === "draft" && e.replayed)).toBe(true);
    await runner.close();
  });

  it("loop with interrupt pauses on every visit", async () => {
    const write = node({ output: "draft" }, function write({ feedback }: { feedback: string[] }) {
      return `v${feedback.length}`;
    });
    const review = interrupt({ name: "review", input: "draft", response: "decision" });
    const collect = node(
      { output: "feedback" },
      function collect({ feedback, decision }: { feedback: string[]; decision: string }) {
        return [...feedback, decision];
      },
    );
    const gate = route({ targets: ["write", END] }, function gate({ decision }: { decision: string }) {
      return decision === "ok" ? END : "write";
    });
    const g = new Graph([write, review, collect, gate], { name: "loop" }).bind({ feedback: [] });
    const runner = new Runner({ checkpointer: new MemoryCheckpointer() });
    const r1 = await runner.run(g, { workflowId: "l" });
    expect(r1.pause?.value).toBe("v0");
    const r2 = await runner.run(g, { workflowId: "l", values: { decision: "again" } });
    expect(r2.status).toBe("paused");
    expect(r2.pause?.value).toBe("v1");
    const r3 = await runner.run(g, { workflowId: "l", values: { decision: "again" } });
    expect(r3.pause?.value).toBe("v2");
    const r4 = await runner.run(g, { workflowId: "l", values: { decision: "ok" } });
    expect(r4.status).toBe("completed");
    expect(r4.values.feedback).toEqual(["again", "again", "ok"]);
    await runner.close();
  });
});
