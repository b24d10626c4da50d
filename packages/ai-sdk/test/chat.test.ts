import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteCheckpointer } from "@graph/checkpoint-sqlite";
import { Graph, interrupt, node } from "@graph/core";
import { type InvalidOptionError, Runner } from "@graph/runtime";
import { streamText } from "ai";
import { afterEach, beforeEach, describe, expect, expectTypeOf, it, vi } from "vitest";
import { z } from "zod";
import {
  type ChatRequest,
  ChatRequestError,
  GraphChat,
  type GraphUIMessage,
  streamModel,
  toUIMessageStream,
} from "../src/index.js";
import { chunksOf, messageOf, textModel } from "./helpers.js";

let dir: string;
const closers: (() => Promise<void>)[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "graph-ai-sdk-"));
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  rmSync(dir, { recursive: true, force: true });
});

function sqliteRunner() {
  const checkpointer = new SqliteCheckpointer({ path: join(dir, "chat.db") });
  const runner = new Runner({ checkpointer });
  closers.push(() => runner.close());
  return { runner, checkpointer };
}

const userMessage = (text: string) => ({
  id: `u-${text}`,
  role: "user" as const,
  parts: [{ type: "text" as const, text }],
});

/** A support flow: the model drafts a reply token by token, a human approves it, then it is sent. */
function supportGraph(model: ReturnType<typeof textModel>) {
  const draft = node({ output: "draft" }, async function* draft({ question }: { question: string }, ctx) {
    return yield* streamModel(streamText({ model, prompt: question, abortSignal: ctx.signal }));
  });
  const approval = interrupt({ name: "approval", input: "draft", response: "decision" });
  const send = node(
    {
      output: "sent",
      inputs: { draft: z.string(), decision: z.object({ approved: z.boolean(), note: z.string().optional() }) },
    },
    function send({ draft, decision }) {
      return decision.approved ? `SENT: ${draft}` : "DISCARDED";
    },
  );
  return new Graph([draft, approval, send], { name: "support" });
}

describe("GraphChat", () => {
  it("a turn pauses at the approval; a bad answer is a 400 and nothing is stored; a good one resumes the workflow", async () => {
    const { runner, checkpointer } = sqliteRunner();
    const model = textModel(["Your ", "refund ", "is ", "on ", "its ", "way."]);
    const graph = supportGraph(model);
    const chat = new GraphChat({
      runner,
      graph,
      checkpointer,
      input: ({ text }) => ({ question: text }),
      localSingleUser: true,
    });

    const first = await messageOf(await chat.stream({ id: "chat-1", messages: [userMessage("refund?")] }));
    expect(first.parts.filter((p) => p.type === "text")).toEqual([
      { type: "text", text: "Your refund is on its way.", state: "done", providerMetadata: undefined },
    ]);
    expect(first.parts.filter((p) => p.type === "data-node-suspense").map((p) => p.data)).toEqual([
      {
        nodeName: "approval",
        name: "approval",
        responseKey: "decision",
        value: "Your refund is on its way.",
        workflowId: "chat/local/chat-1",
        visit: 3,
      },
    ]);

    // The answer must be an object { approved: boolean }: the zod schema of `send`, the node that reads it.
    const bad = await chat
      .stream({ id: "chat-1", resume: { responseKey: "decision", value: { approved: "yes" } } })
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ChatRequestError);
    expect(bad).toMatchObject({
      _tag: "ChatRequestError",
      code: "invalid_answer",
      status: 400,
      workflowId: "chat/local/chat-1",
    });
    expect((bad as ChatRequestError).issues).toEqual(["approved: Invalid input: expected boolean, received string"]);
    expect((bad as Error).message).toContain("Nothing was stored; the workflow still waits.");

    const wrongKey = await chat.stream({ id: "chat-1", resume: { responseKey: "decison", value: {} } }).catch((e) => e);
    expect(wrongKey).toMatchObject({ code: "wrong_response_key", status: 400 });
    expect((wrongKey as Error).message).toContain("waits for 'decision' (interrupt 'approval'), not 'decison'");

    // Refused answers left no trace: still paused, no `decision` in the stored state.
    expect((await checkpointer.getWorkflow("chat/local/chat-1"))?.status).toBe("paused");
    expect(await checkpointer.getState("chat/local/chat-1")).not.toHaveProperty("decision");

    // Over HTTP the refusal is a 400 with the reason.
    const response = await chat.POST(
      new Request("http://x/api/chat", {
        method: "POST",
        body: JSON.stringify({ id: "chat-1", resume: { responseKey: "decision", value: "ok" } }),
      }),
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: "ChatRequestError",
      code: "invalid_answer",
      issues: ["Invalid input: expected object, received string"],
    });

    const resumed = await messageOf(
      await chat.stream({ id: "chat-1", resume: { responseKey: "decision", value: { approved: true } } }),
    );
    expect(resumed.parts.filter((p) => p.type === "data-state").map((p) => p.data)).toEqual([
      { node: "approval", values: { decision: { approved: true } } },
      { node: "send", values: { sent: "SENT: Your refund is on its way." } },
    ]);
    expect(resumed.parts.at(-1)).toMatchObject({
      type: "data-run",
      data: { status: "completed", workflowId: "chat/local/chat-1" },
    });
    // The model ran once: the resume replayed the draft from the store.
    expect(model.doStreamCalls).toHaveLength(1);

    const late = await chat
      .stream({ id: "chat-1", resume: { responseKey: "decision", value: { approved: true } } })
      .catch((e) => e);
    expect(late).toMatchObject({ code: "no_pending_pause", status: 400 });
  });

  it("an answer naming a pause settled meanwhile is refused (stale_answer 409), nothing stored, never a new turn", async () => {
    const { runner, checkpointer } = sqliteRunner();
    const model = textModel(["Refund ", "approved."]);
    const graph = supportGraph(model);
    const chat = new GraphChat({
      runner,
      graph,
      checkpointer,
      input: ({ text }) => ({ question: text }),
      localSingleUser: true,
    });
    const stored = async () => ({
      record: await checkpointer.getWorkflow("chat/local/chat-s"),
      steps: await checkpointer.getSteps("chat/local/chat-s", { includeInputs: true }),
    });
    const first = await messageOf(await chat.stream({ id: "chat-s", messages: [userMessage("refund?")] }));
    const shown = first.parts.find((p) => p.type === "data-node-suspense")?.data as { visit: number };
    expect(shown.visit).toBe((await checkpointer.getWorkflow("chat/local/chat-s"))?.lastSuperstep);
    // Another tab answers it; then the chat's next turn pauses at the approval again, at a new visit.
    await messageOf(
      await chat.stream({
        id: "chat-s",
        resume: { responseKey: "decision", value: { approved: true }, visit: shown.visit },
      }),
    );
    const second = await messageOf(await chat.stream({ id: "chat-s", messages: [userMessage("and another?")] }));
    const again = second.parts.find((p) => p.type === "data-node-suspense")?.data as { visit: number };
    expect(again.visit).toBeGreaterThan(shown.visit);
    const before = await stored();
    const stale = await chat
      .stream({ id: "chat-s", resume: { responseKey: "decision", value: { approved: false }, visit: shown.visit } })
      .catch((e: unknown) => e);
    expect(stale).toMatchObject({
      _tag: "ChatRequestError",
      code: "stale_answer",
      status: 409,
      workflowId: "chat/local/chat-s",
    });
    expect((stale as Error).message).toBe(
      `Workflow 'chat/local/chat-s' is no longer paused at the pause this answer is for (visit ${shown.visit}): it waits at 'approval' (visit ${again.visit}); nothing was stored.\n  How to fix: reconnect to show the current pause, and answer that one.`,
    );
    const badVisit = await chat
      .stream({ id: "chat-s", resume: { responseKey: "decision", value: { approved: false }, visit: "3" as never } })
      .catch((e: unknown) => e);
    expect(badVisit).toMatchObject({ code: "invalid_request", status: 400 });
    expect(await stored()).toEqual(before);
    expect(model.doStreamCalls).toHaveLength(2);
  });

  it("a client that reloads mid-run gets the answer from its first token and the rest live, from the one run", async () => {
    const { runner, checkpointer } = sqliteRunner();
    const words = Array.from({ length: 12 }, (_, i) => `w${i} `);
    const model = textModel(words, { delayMs: 40 });
    const chat = new GraphChat({
      runner,
      graph: supportGraph(model),
      checkpointer,
      input: ({ text }) => ({ question: text }),
      localSingleUser: true,
    });

    const stream = await chat.stream({ id: "chat-2", messages: [userMessage("hello")] });
    const reader = stream.getReader();
    const seen: string[] = [];
    while (seen.length < 3) {
      const { value } = await reader.read();
      if (value?.type === "text-delta") seen.push(value.delta);
    }
    await reader.cancel(); // the page reloads: the request goes away, the run does not
    expect(chat.isRunning("chat/local/chat-2")).toBe(true);
    await expect(chat.stream({ id: "chat-2", messages: [userMessage("again")] })).rejects.toMatchObject({
      code: "run_in_progress",
      status: 409,
    });

    const again = await chat.reconnect("chat-2");
    if (again === undefined) throw new Error("expected the live run");
    const message = await messageOf(again);
    expect(message.parts.filter((p) => p.type === "text").map((p) => (p as { text: string }).text)).toEqual([
      words.join(""),
    ]);
    expect(message.parts.at(-1)).toMatchObject({ type: "data-run", data: { status: "paused" } });
    expect(model.doStreamCalls).toHaveLength(1);
    expect(seen).toEqual(["w0 ", "w1 ", "w2 "]);

    // A server that restarted (a new GraphChat on the same store) shows the stored state and the pending pause.
    const restarted = new GraphChat({
      runner,
      graph: supportGraph(model),
      checkpointer,
      input: ({ text }) => ({ question: text }),
      localSingleUser: true,
    });
    const paused = await restarted.reconnect("chat-2");
    if (paused === undefined) throw new Error("expected the stored pause");
    const chunks = await chunksOf(paused);
    expect(chunks.filter((c) => c.type.startsWith("data-"))).toEqual([
      { type: "data-state", data: { node: "", values: { question: "hello", draft: words.join("") } } },
      {
        type: "data-node-suspense",
        data: {
          nodeName: "approval",
          name: "approval",
          responseKey: "decision",
          value: words.join(""),
          workflowId: "chat/local/chat-2",
          visit: 3,
        },
      },
      { type: "data-run", data: { status: "paused", workflowId: "chat/local/chat-2", runId: "" } },
    ]);
    expect(await restarted.reconnect("nobody")).toBeUndefined();
    expect((await restarted.GET(new Request("http://x/api/chat/nobody/stream"), "nobody")).status).toBe(204);
  });

  it("stop ends the run and aborts the model call", async () => {
    const { runner, checkpointer } = sqliteRunner();
    const model = textModel(
      Array.from({ length: 50 }, (_, i) => `t${i} `),
      { delayMs: 30 },
    );
    const chat = new GraphChat({
      runner,
      graph: supportGraph(model),
      checkpointer,
      input: ({ text }) => ({ question: text }),
      localSingleUser: true,
    });
    const stream = await chat.stream({ id: "chat-3", messages: [userMessage("long answer")] });
    const chunks: { type: string }[] = [];
    let stops = 0;
    for await (const chunk of stream as unknown as AsyncIterable<{ type: string }>) {
      chunks.push(chunk);
      if (stops === 0 && chunks.filter((c) => c.type === "text-delta").length === 3) {
        stops++;
        expect(await chat.stop("chat-3")).toBe(true);
      }
    }
    expect(stops).toBe(1);
    expect(model.doStreamCalls[0]?.abortSignal?.aborted).toBe(true);
    const deltas = chunks.filter((c) => c.type === "text-delta").length;
    expect(deltas).toBeLessThan(10);
    expect(chunks.at(-2)).toMatchObject({
      type: "data-run",
      data: { status: "stopped", workflowId: "chat/local/chat-3" },
    });
    // The open text part was closed, so the message reads as a finished (partial) answer.
    const ends = chunks.filter((c) => c.type === "text-end");
    expect(ends).toHaveLength(1);
    expect((await checkpointer.getWorkflow("chat/local/chat-3"))?.status).toBe("stopped");
  });
});

describe("GraphChat inputs", () => {
  it("input is typed by the graph's inputs; a run missing inputs sends their names to the client and logs the error", async () => {
    const runner = new Runner();
    closers.push(() => runner.close());
    const graph = supportGraph(textModel(["x"]));
    const common = { runner, graph, localSingleUser: true } as const;
    // @ts-expect-error: 'qeustion' is not an input of the graph
    new GraphChat({ ...common, input: ({ text }) => ({ qeustion: text }) });
    // @ts-expect-error: 'question' is a string
    new GraphChat({ ...common, input: () => ({ question: 42 }) });
    expectTypeOf<Parameters<GraphChat<typeof graph>["stream"]>[0]>().toEqualTypeOf<ChatRequest>();

    const logged: { error: unknown; info: unknown }[] = [];
    const chat = new GraphChat({
      ...common,
      input: () => ({}),
      onRunError: (error, info) => logged.push({ error, info }),
    });
    const message = await messageOf(await chat.stream({ id: "c-missing", messages: [userMessage("hi")] }));
    expect(message.parts.at(-1)).toEqual({
      type: "data-run",
      id: expect.any(String),
      data: {
        status: "failed",
        workflowId: "chat/local/c-missing",
        runId: expect.any(String),
        error: "MissingInputError: the run needs 'question'",
      },
    });
    await vi.waitFor(() => expect(logged).toHaveLength(1));
    expect(logged[0]?.error).toMatchObject({ _tag: "MissingInputError", missing: ["question"] });
    expect(logged[0]?.info).toEqual({ workflowId: "chat/local/c-missing", chatId: "c-missing" });
  });
});

describe("GraphChat options", () => {
  it("refuses to construct without authorize unless localSingleUser is set, and refuses unknown or bad options", () => {
    const runner = new Runner();
    closers.push(() => runner.close());
    const graph = supportGraph(textModel(["x"]));
    const input = ({ text }: { text: string }) => ({ question: text });
    const error = (options: unknown) => {
      try {
        new GraphChat(options as never);
      } catch (e) {
        return e as InvalidOptionError;
      }
      throw new Error("expected the constructor to throw");
    };
    const none = error({ runner, graph, input });
    expect(none).toMatchObject({ _tag: "InvalidOptionError", option: "authorize" });
    expect(none.message).toContain("no 'authorize': any client could read, answer or stop any other user's chats");
    expect(none.message).toContain("localSingleUser: true");
    expect(error({ runner, graph, input, localSingleUser: false })).toMatchObject({ option: "localSingleUser" });
    expect(error({ runner, graph, input, localSingleUser: true, authorize: () => "u" })).toMatchObject({
      option: "localSingleUser",
    });
    expect(error({ runner, graph, input, authorize: "alice" })).toMatchObject({ option: "authorize" });
    expect(error({ runner, graph, input, localSingleUser: true, workflowPrefix: "a/b" })).toMatchObject({
      option: "workflowPrefix",
    });
    const typo = error({ runner, graph, input, localSingleUser: true, checkpionter: {} });
    expect(typo).toMatchObject({ option: "checkpionter" });
    expect(typo.message).toContain("unknown option 'checkpionter'");
    expect(new GraphChat({ runner, graph, input, localSingleUser: true }).workflowIdOf("c1", "local")).toBe(
      "chat/local/c1",
    );
    expect(
      new GraphChat({ runner, graph, input, authorize: () => "u1", workflowPrefix: "support" }).workflowIdOf(
        "c1",
        "u1",
      ),
    ).toBe("support/u1/c1");
  });

  it("with authorize, every call needs the caller's request", async () => {
    const runner = new Runner();
    closers.push(() => runner.close());
    const chat = new GraphChat({
      runner,
      graph: supportGraph(textModel(["x"])),
      input: ({ text }) => ({ question: text }),
      authorize: ({ request }) => request.headers.get("x-user") ?? false,
    });
    await expect(chat.reconnect("c1")).rejects.toMatchObject({ _tag: "InvalidOptionError", option: "request" });
    await expect(chat.stop("c1", new Request("http://x/"))).rejects.toMatchObject({ code: "forbidden", status: 403 });
    expect(await chat.stop("c1", new Request("http://x/", { headers: { "x-user": "u1" } }))).toBe(false);
  });
});

describe("toUIMessageStream and stopping", () => {
  it("a reader that cancels stops the run and its model call; stopOnCancel: false leaves it running", async () => {
    const model = textModel(
      Array.from({ length: 40 }, (_, i) => `x${i}`),
      { delayMs: 25 },
    );
    const answer = node({ output: "answer" }, async function* answer({ q }: { q: string }, ctx) {
      return yield* streamModel(streamText({ model, prompt: q, abortSignal: ctx.signal }));
    });
    const graph = new Graph([answer]);
    const runner = new Runner();
    closers.push(() => runner.close());

    const handle = runner.start(graph, { values: { q: "go" } });
    const reader = toUIMessageStream(handle).getReader();
    for (let deltas = 0; deltas < 2; ) if ((await reader.read()).value?.type === "text-delta") deltas++;
    await reader.cancel();
    expect((await handle.result).status).toBe("stopped");
    expect(model.doStreamCalls[0]?.abortSignal?.aborted).toBe(true);

    const kept = runner.start(graph, { values: { q: "go" } });
    const keptReader = toUIMessageStream(kept, { stopOnCancel: false }).getReader();
    await keptReader.read();
    await keptReader.cancel();
    const result = await kept.result;
    expect(result.status).toBe("completed");
    expect(result.values.answer).toBe(Array.from({ length: 40 }, (_, i) => `x${i}`).join(""));
  });

  it("an aborted signal stops the run", async () => {
    const model = textModel(
      Array.from({ length: 40 }, (_, i) => `y${i}`),
      { delayMs: 25 },
    );
    const answer = node({ output: "answer" }, async function* answer({ q }: { q: string }, ctx) {
      return yield* streamModel(streamText({ model, prompt: q, abortSignal: ctx.signal }));
    });
    const runner = new Runner();
    closers.push(() => runner.close());
    const controller = new AbortController();
    const handle = runner.start(new Graph([answer]), { values: { q: "go" } });
    const messages: GraphUIMessage[] = [];
    setTimeout(() => controller.abort(), 120);
    messages.push(await messageOf(toUIMessageStream(handle, { signal: controller.signal })));
    expect(messages[0]?.parts.at(-1)).toMatchObject({ type: "data-run", data: { status: "stopped" } });
    expect(model.doStreamCalls[0]?.abortSignal?.aborted).toBe(true);
  });
});
