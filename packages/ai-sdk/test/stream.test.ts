import { END, Graph, interrupt, node, route } from "@graph/core";
import { Runner } from "@graph/runtime";
import { streamText } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { reportUsage, streamModel, toUIMessageStream, toUIMessageStreamResponse, uiChunk } from "../src/index.js";
import { chunksOf, messageOf, textModel } from "./helpers.js";

const runners: Runner[] = [];
function newRunner(): Runner {
  const runner = new Runner();
  runners.push(runner);
  return runner;
}
afterEach(async () => {
  for (const runner of runners.splice(0)) await runner.close();
});

/** The data parts of a message without their span ids (spans are numbered by the runtime). */
function shape(parts: readonly { type: string }[]) {
  return parts.map((p) => {
    const { id: _id, ...rest } = p as { id?: string; type: string; data?: unknown };
    if (rest.type === "data-node-end") {
      const data = (rest as { data: { durationMs: number } }).data;
      return { ...rest, data: { ...data, durationMs: typeof data.durationMs } };
    }
    if (rest.type === "data-run") {
      const data = (rest as { data: { runId: string } }).data;
      return { ...rest, data: { ...data, runId: typeof data.runId } };
    }
    return rest;
  });
}

describe("toUIMessageStream", () => {
  it("turns node activity, values and yielded text into parts the AI SDK's reader assembles", async () => {
    const classify = node({ output: "topic" }, function classify({ question }: { question: string }) {
      return question.includes("refund") ? "billing" : "general";
    });
    const answer = node({ output: "answer" }, async function* answer({ topic }: { topic: string }) {
      yield "About ";
      yield topic;
      yield ".";
    });
    const graph = new Graph([classify, answer], { name: "support" });
    const handle = newRunner().start(graph, { values: { question: "a refund please" }, workflowId: "wf-1" });
    const message = await messageOf(toUIMessageStream<typeof graph>(handle));
    expect(message.role).toBe("assistant");
    expect(shape(message.parts)).toEqual([
      { type: "data-node-start", data: { name: "classify", path: "classify", nodeType: "function" } },
      {
        type: "data-node-end",
        data: { name: "classify", path: "classify", status: "completed", durationMs: "number" },
      },
      { type: "data-state", data: { node: "classify", values: { topic: "billing" } } },
      { type: "data-node-start", data: { name: "answer", path: "answer", nodeType: "function" } },
      { type: "text", text: "About billing.", state: "done" },
      { type: "data-node-end", data: { name: "answer", path: "answer", status: "completed", durationMs: "number" } },
      { type: "data-state", data: { node: "answer", values: { answer: "About billing." } } },
      { type: "data-run", data: { status: "completed", workflowId: "wf-1", runId: "string" } },
    ]);
  });

  it("sends each token as a text-delta between one text-start and one text-end", async () => {
    const answer = node({ output: "answer" }, async function* answer({ q }: { q: string }) {
      yield `${q}1`;
      yield `${q}2`;
    });
    const handle = newRunner().start(new Graph([answer]), { values: { q: "t" } });
    const chunks = await chunksOf(toUIMessageStream(handle));
    const text = chunks.filter((c) => c.type.startsWith("text-"));
    expect(text).toEqual([
      { type: "text-start", id: expect.any(String) },
      { type: "text-delta", id: text[0]!.type === "text-start" ? (text[0] as { id: string }).id : "", delta: "t1" },
      { type: "text-delta", id: (text[0] as { id: string }).id, delta: "t2" },
      { type: "text-end", id: (text[0] as { id: string }).id },
    ]);
    // The SDK gives the message an id when the caller did not.
    expect(chunks[0]).toEqual({ type: "start", messageId: expect.any(String) });
    expect(chunks.at(-1)).toEqual({ type: "finish" });
  });

  it("streams a streamText result's reasoning and text from a node (streamModel), output = the model's text", async () => {
    const model = textModel(["Your ", "order ", "ships ", "today."], { reasoning: "Check the order." });
    const reply = node({ output: "reply" }, async function* reply({ question }: { question: string }, ctx) {
      return yield* streamModel(streamText({ model, prompt: question, abortSignal: ctx.signal }));
    });
    const graph = new Graph([reply]);
    const handle = newRunner().start(graph, { values: { question: "Where is my order?" } });
    const stream = toUIMessageStream<typeof graph>(handle, { messageId: "m-1" });
    const chunks = await chunksOf(stream);
    expect(chunks.filter((c) => c.type === "text-delta").map((c) => (c as { delta: string }).delta)).toEqual([
      "Your ",
      "order ",
      "ships ",
      "today.",
    ]);
    expect(chunks[0]).toEqual({ type: "start", messageId: "m-1" });
    const message = await messageOf(
      toUIMessageStream(newRunner().start(graph, { values: { question: "again" } }), { messageId: "m-2" }),
    );
    expect(message.id).toBe("m-2");
    expect(shape(message.parts)).toEqual([
      { type: "data-node-start", data: { name: "reply", path: "reply", nodeType: "function" } },
      { type: "reasoning", text: "Check the order.", state: "done", providerMetadata: undefined },
      { type: "text", text: "Your order ships today.", state: "done", providerMetadata: undefined },
      { type: "data-node-end", data: { name: "reply", path: "reply", status: "completed", durationMs: "number" } },
      { type: "data-state", data: { node: "reply", values: { reply: "Your order ships today." } } },
      { type: "data-run", data: { status: "completed", workflowId: expect.any(String), runId: "string" } },
    ]);
    expect(await handle.result.then((r) => r.values.reply)).toBe("Your order ships today.");
  });

  it("gives nested graphs and map items their path, and select picks the values data-state carries", async () => {
    const summarize = node({ output: "summary" }, function summarize({ doc }: { doc: string }) {
      return doc.toUpperCase();
    });
    const research = new Graph([summarize], { name: "research" }).asNode().mapOver(["doc"]);
    const combine = node({ output: "answer" }, function combine({ summary }: { summary: string[] }) {
      return summary.join("+");
    });
    const graph = new Graph([research, combine]);
    const run = (select?: string[]) =>
      messageOf(toUIMessageStream(newRunner().start(graph, { values: { doc: ["a", "b"] } }), select ? { select } : {}));

    const all = await run();
    const starts = all.parts.filter((p) => p.type === "data-node-start").map((p) => (p.data as { path: string }).path);
    expect(starts.sort()).toEqual(["combine", "research", "research/0/summarize", "research/1/summarize"]);
    const states = all.parts.filter((p) => p.type === "data-state").map((p) => p.data);
    expect(states).toEqual([
      { node: "research", values: { summary: ["A", "B"] } },
      { node: "combine", values: { answer: "A+B" } },
    ]);

    const selected = await run(["answer", "research/*/summary"]);
    const picked = selected.parts.filter((p) => p.type === "data-state").map((p) => p.data);
    expect(picked).toHaveLength(3);
    expect(picked).toEqual(
      expect.arrayContaining([
        { node: "research/0/summarize", values: { "research/0/summary": "A" } },
        { node: "research/1/summarize", values: { "research/1/summary": "B" } },
        { node: "combine", values: { answer: "A+B" } },
      ]),
    );
    expect(picked.at(-1)).toEqual({ node: "combine", values: { answer: "A+B" } });
  });

  it("ends a paused run with data-node-suspense (interrupt, responseKey, value, workflow id)", async () => {
    const draft = node({ output: "draft" }, function draft({ question }: { question: string }) {
      return `Refund for ${question}?`;
    });
    const approval = interrupt({ name: "approval", input: "draft", response: "decision" });
    const send = node({ output: "sent" }, function send({ decision }: { decision: string }) {
      return decision;
    });
    const graph = new Graph([draft, approval, send]);
    const message = await messageOf(
      toUIMessageStream(newRunner().start(graph, { values: { question: "order 7" }, workflowId: "wf-pause" })),
    );
    expect(shape(message.parts.slice(-3))).toEqual([
      {
        type: "data-node-end",
        data: { name: "approval", path: "approval", status: "paused", durationMs: "number" },
      },
      {
        type: "data-node-suspense",
        data: {
          nodeName: "approval",
          name: "approval",
          responseKey: "decision",
          value: "Refund for order 7?",
          workflowId: "wf-pause",
        },
      },
      { type: "data-run", data: { status: "paused", workflowId: "wf-pause", runId: "string" } },
    ]);
    expect(
      message.parts.filter((p) => p.type === "data-node-start").map((p) => (p.data as { name: string }).name),
    ).toEqual(["draft", "approval"]);
  });

  it("reports a failed node and run without leaking the cause's message; errorMessage can show it", async () => {
    const boom = node({ output: "x" }, function boom({ q }: { q: string }): string {
      throw new Error(`secret ${q}`);
    });
    const graph = new Graph([boom]);
    const chunks = await chunksOf(toUIMessageStream(newRunner().start(graph, { values: { q: "db-password" } })));
    const data = chunks.filter((c) => c.type === "data-node-end" || c.type === "data-run" || c.type === "error");
    expect(data.map((c) => ("data" in c ? c.data : c))).toEqual([
      { name: "boom", path: "boom", status: "failed", durationMs: expect.any(Number), error: "Error" },
      {
        status: "failed",
        workflowId: expect.any(String),
        runId: expect.any(String),
        error: "NodeExecutionError in node 'boom'",
      },
      { type: "error", errorText: "NodeExecutionError in node 'boom'" },
    ]);
    expect(JSON.stringify(chunks)).not.toContain("db-password");

    const shown = await chunksOf(
      toUIMessageStream(newRunner().start(graph, { values: { q: "visible" } }), {
        errorMessage: (e) => String((e as Error).message),
      }),
    );
    expect(shown.filter((c) => c.type === "error")).toEqual([
      { type: "error", errorText: expect.stringContaining("secret visible") },
    ]);
  });

  it("forwards uiChunk parts a node emits with ctx.emit", async () => {
    const think = node({ output: "done" }, function think({ q }: { q: string }, ctx) {
      ctx.emit(uiChunk({ type: "reasoning-start", id: "r" }));
      ctx.emit(uiChunk({ type: "reasoning-delta", id: "r", delta: `on ${q}` }));
      ctx.emit(uiChunk({ type: "reasoning-end", id: "r" }));
      ctx.emit({ not: "a ui chunk" });
      return true;
    });
    const message = await messageOf(toUIMessageStream(newRunner().start(new Graph([think]), { values: { q: "x" } })));
    expect(message.parts.filter((p) => p.type === "reasoning")).toEqual([
      { type: "reasoning", id: expect.stringMatching(/-r$/), text: "on x", state: "done", providerMetadata: undefined },
    ]);
  });

  it("toUIMessageStreamResponse is an SSE response with the AI SDK's headers", async () => {
    const hello = node({ output: "greeting" }, function hello({ name }: { name: string }) {
      return `hi ${name}`;
    });
    const response = toUIMessageStreamResponse(newRunner().start(new Graph([hello]), { values: { name: "Ada" } }), {
      headers: { "x-run": "1" },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
    expect(response.headers.get("x-run")).toBe("1");
    const body = await response.text();
    expect(body).toContain('data: {"type":"data-state","data":{"node":"hello","values":{"greeting":"hi Ada"}}}');
    expect(body.trim().endsWith("data: [DONE]")).toBe(true);
  });
});

describe("usage reports (budgets)", () => {
  it("streamModel(result, ctx) reports the call's tokens, calls and priced cost; a budget pauses the loop", async () => {
    let calls = 0;
    const ask = node({ name: "ask", output: "answers" }, async function* ask({ answers }: { answers: string[] }, ctx) {
      calls++;
      const result = streamText({ model: textModel(["Hi", "!"]), prompt: "hello", abortSignal: ctx.signal });
      const text = yield* streamModel(result, ctx, { price: { inputPerMillion: 1_000, outputPerMillion: 2_000 } });
      return [...answers, text];
    });
    const again = route({ name: "again", targets: ["ask", END] }, ({ answers }: { answers: string[] }) =>
      answers.length >= 5 ? END : "ask",
    );
    const runner = newRunner();
    const r = await runner.run(new Graph([ask, again]), { values: { answers: [] }, budget: { tokens: 12 } });
    // 5 tokens per call (3 in, 2 out): the third call (15) crossed 12.
    expect(calls).toBe(3);
    expect(r.status).toBe("paused");
    expect(r.pause?.reason).toBe("budget");
    expect(r.usage).toEqual({ tokens: 15, calls: 3, costUsd: expect.closeTo(3 * (3 * 1e-3 + 2 * 2e-3), 12) });
    expect(r.get("answers")).toEqual(["Hi!", "Hi!", "Hi!"]);
  });

  it("reportUsage reports a generateText-style usage; without a price there is no cost", () => {
    const seen: unknown[] = [];
    const sink = { usage: (spent: unknown) => void seen.push(spent) };
    reportUsage(sink, { inputTokens: 10, outputTokens: 4, totalTokens: 14 }, { calls: 2 });
    reportUsage(sink, { inputTokens: 1_000_000, outputTokens: 0 }, { price: (u) => (u.inputTokens ?? 0) * 1e-7 });
    expect(seen).toEqual([
      { tokens: 14, calls: 2 },
      { tokens: 1_000_000, calls: 1, costUsd: expect.closeTo(0.1, 12) },
    ]);
  });
});
