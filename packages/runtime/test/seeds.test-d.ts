import { END, Graph, node, route, type UnknownValuesOf } from "@graph/core";
import { Effect } from "effect";
import { describe, expectTypeOf, test } from "vitest";
import { makeRunner } from "../src/effect.js";
import { Runner } from "../src/index.js";

type Message = { role: "user" | "assistant" | "tool"; text: string };

// The README-style agent: every node named by its function, the model and the tools append to `messages`.
const agent = node({ output: "messages" }, function agent({ messages }: { messages: Message[] }) {
  return [...messages, { role: "assistant" as const, text: "call a tool" }];
});
const tools = node({ output: "messages" }, function tools({ messages }: { messages: Message[] }) {
  return [...messages, { role: "tool" as const, text: "42" }];
});
const next = route({ targets: ["tools", END] }, function next({ messages }: { messages: Message[] }) {
  return messages.length > 4 ? END : "tools";
});
const chat = new Graph([agent, next, tools], { name: "chat" });
const runner = new Runner();
const first: Message[] = [{ role: "user", text: "hi" }];

describe("a loop's first-run inputs are required by every run signature", () => {
  test("runner.run(agent) without the seed does not compile; with it, or bound, it does", () => {
    // @ts-expect-error the agent's first-run 'messages' are required: runner.run(chat) throws MissingInputError
    void runner.run(chat);
    // @ts-expect-error 'messages' is missing from the values
    void runner.run(chat, { values: {} });
    void runner.run(chat, { values: { messages: first } });
    // A literal union in the values keeps its contextual type (no widening to string).
    void runner.run(chat, { values: { messages: [{ role: "user", text: "hi" }] } });
    void runner.run(chat.bind({ messages: [] }));
    void runner.run(chat.bind({ messages: [] }), { values: { messages: first } });
  });

  test("a resume or a fork may leave the seed out (the stored values hold it)", () => {
    void runner.run(chat, { workflowId: "chat-1" });
    void runner.run(chat, { workflowId: "chat-1", values: { messages: first } });
    // @ts-expect-error even on a resume, 'messages' keeps its type
    void runner.run(chat, { workflowId: "chat-1", values: { messages: "hi" } });
  });

  test("start, stream, runSync and the Effect runner check the same", () => {
    // @ts-expect-error 'messages' is required
    runner.start(chat);
    // @ts-expect-error 'messages' is required
    runner.stream(chat, { values: {} });
    // @ts-expect-error 'messages' is required
    runner.runSync(chat);
    void runner.start(chat, { values: { messages: first } }).result;
    void runner.runSync(chat, { values: { messages: first } });
    void Effect.scoped(
      Effect.gen(function* () {
        const effectRunner = yield* makeRunner();
        // @ts-expect-error 'messages' is required
        yield* effectRunner.run(chat);
        return yield* effectRunner.run(chat, { values: { messages: first } });
      }),
    );
  });
});

describe("a loop whose first node the checker can't tell needs one of its values on a fresh run", () => {
  // Nodes named by their functions: the gate's target 'draft' is a name the checker can't map to a node, so it can't
  // tell which of the loop's values the first turn reads (the runtime: `feedback`). It requires one of them.
  const draft = node({ output: "text" }, function draft({ topic, feedback }: { topic: string; feedback: string }) {
    return `${topic}: ${feedback}`;
  });
  const critique = node({ output: "feedback" }, function critique({ text }: { text: string }) {
    return text.length > 40 ? "ok" : "longer";
  });
  const decide = route({ targets: ["draft", END] }, function decide({ feedback }: { feedback: string }) {
    return feedback === "ok" ? END : "draft";
  });
  const refine = new Graph([draft, critique, decide], { name: "refine" });

  test("run without options, or with only the inputs, does not compile; with a loop value it does", () => {
    // @ts-expect-error the loop needs a first value: runner.run(refine) would throw MissingInputError
    void runner.run(refine);
    // @ts-expect-error ✖ Missing a first value for the loop of graph 'refine': pass one of 'feedback', 'text' …
    void runner.run(refine, { values: { topic: "graphs" } });
    void runner.run(refine, { values: { topic: "graphs", feedback: "" } });
    // @ts-expect-error a loop value keeps its type
    void runner.run(refine, { values: { topic: "graphs", feedback: 1 } });
  });

  test("a resume, a bound value of the loop, or a default needs none", () => {
    void runner.run(refine, { workflowId: "post-1" });
    void runner.run(refine.bind({ feedback: "" }), { values: { topic: "graphs" } });
    // @ts-expect-error binding an input outside the loop leaves the loop's need
    void runner.run(refine.bind({ topic: "graphs" }));
  });

  test("start, stream, runSync and the Effect runner check the same", () => {
    // @ts-expect-error one of the loop's values is needed
    runner.start(refine, { values: { topic: "graphs" } });
    // @ts-expect-error one of the loop's values is needed
    runner.stream(refine, { values: { topic: "graphs" } });
    // @ts-expect-error one of the loop's values is needed
    runner.runSync(refine, { values: { topic: "graphs" } });
    void runner.start(refine, { values: { topic: "graphs", text: "draft" } }).result;
    void Effect.scoped(
      Effect.gen(function* () {
        const effectRunner = yield* makeRunner();
        // @ts-expect-error one of the loop's values is needed
        yield* effectRunner.run(refine, { values: { topic: "graphs" } });
        return yield* effectRunner.run(refine, { values: { topic: "graphs", feedback: "" } });
      }),
    );
  });
});

describe("unknown run values are messages naming the key", () => {
  const draft = node({ name: "draft", output: "draft" }, ({ topic }: { topic: string }) => topic);
  const writer = new Graph([draft], { name: "writer" });

  test("the message names the key, the graph, and a name one edit away", () => {
    expectTypeOf<UnknownValuesOf<typeof writer, "topc">>().toEqualTypeOf<{
      readonly topc: "✖ Unknown value 'topc' for graph 'writer': no node reads or produces it. Did you mean 'topic'?";
    }>();
    expectTypeOf<
      UnknownValuesOf<typeof writer, "Topic">["Topic"]
    >().toEqualTypeOf<"✖ Unknown value 'Topic' for graph 'writer': no node reads or produces it. Did you mean 'topic'?">();
    expectTypeOf<
      UnknownValuesOf<typeof writer, "tpoic">["tpoic"]
    >().toEqualTypeOf<"✖ Unknown value 'tpoic' for graph 'writer': no node reads or produces it. Did you mean 'topic'?">();
    expectTypeOf<
      UnknownValuesOf<typeof writer, "zzz">["zzz"]
    >().toEqualTypeOf<"✖ Unknown value 'zzz' for graph 'writer': no node reads or produces it. Its inputs: 'topic'.">();
    // Known names (inputs and produced values) are left to the values' own type.
    expectTypeOf<UnknownValuesOf<typeof writer, "topic" | "draft">>().toEqualTypeOf<{
      readonly topic: unknown;
      readonly draft: unknown;
    }>();
    // A graph without a literal name, and an untyped graph (any key allowed).
    expectTypeOf<
      UnknownValuesOf<Graph<{ a: 1 }, { b: 2 }, any>, "xyz">["xyz"]
    >().toEqualTypeOf<"✖ Unknown value 'xyz' for this graph: no node reads or produces it. Its inputs: 'a'.">();
    expectTypeOf<UnknownValuesOf<Graph, "c">>().toEqualTypeOf<{ readonly c: unknown }>();
  });

  test("a misspelled value is one error at the key, on a fresh run and on a resume", () => {
    // @ts-expect-error ✖ Unknown value 'topc' for graph 'writer': no node reads or produces it. Did you mean 'topic'?
    void runner.run(writer, { values: { topic: "t", topc: "t" } });
    // @ts-expect-error ✖ Unknown value 'topc' … (a resume checks the keys too)
    void runner.run(writer, { workflowId: "w", values: { topc: "t" } });
    // Values typed as a plain record (read from JSON, say) are not checked key by key.
    const fromJson: Record<string, unknown> = {};
    void runner.run(new Graph([draft]) as Graph, { values: fromJson });
  });
});
