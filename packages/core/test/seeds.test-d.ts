import { describe, expectTypeOf, test } from "vitest";
import { END, Graph, type InputsOf, node, route } from "../src/index.js";

type Message = { role: "user" | "assistant" | "tool"; text: string };
type SeedChoice<G> = G extends { readonly "~types": { readonly meta: { readonly seedChoice: infer C } } } ? C : "none";

// The LangGraph-style agent: the model and the tools both read the conversation and write it back.
const agent = node({ output: "messages" }, function agent({ messages }: { messages: Message[] }) {
  return [...messages, { role: "assistant" as const, text: "call a tool" }];
});
const tools = node({ output: "messages" }, function tools({ messages }: { messages: Message[] }) {
  return [...messages, { role: "tool" as const, text: "42" }];
});
const next = route({ targets: ["tools", END] }, function next({ messages }: { messages: Message[] }) {
  return messages.length > 4 ? END : "tools";
});

describe("loop seeds the runtime requires are required inputs", () => {
  test("a value every producer reads back without a default (the agent's messages) is required", () => {
    const chat = new Graph([agent, next, tools]);
    expectTypeOf<InputsOf<typeof chat>>().toEqualTypeOf<{ messages: Message[] }>();
  });

  test("one accumulating node with another input: both required", () => {
    const record = node({ output: "notes" }, ({ notes, verdict }: { notes: string[]; verdict: string }) => [
      ...notes,
      verdict,
    ]);
    const g = new Graph([record]);
    expectTypeOf<InputsOf<typeof g>>().toEqualTypeOf<{ notes: string[]; verdict: string }>();
  });

  test("a default in the reading node's parameter, or a bound value, makes the seed optional", () => {
    const withDefault = node({ output: "messages" }, ({ messages = [] }: { messages?: Message[] }) => [
      ...messages,
      { role: "assistant" as const, text: "hi" },
    ]);
    const withDefaultGraph = new Graph([withDefault]);
    // Not an input at all (a produced value; run values may still pass it, see runtime's types.test-d.ts).
    expectTypeOf<InputsOf<typeof withDefaultGraph>>().toEqualTypeOf<Record<never, never>>();
    const bound = new Graph([agent, next, tools]).bind({ messages: [] });
    expectTypeOf<InputsOf<typeof bound>>().toEqualTypeOf<{ messages?: Message[] }>();
  });

  test("a nested graph that needs its seed passes the requirement on", () => {
    const inner = new Graph([agent, next, tools], { name: "chat" });
    const log = node({ output: "logged" }, function log({ messages }: { messages: Message[] }) {
      return messages.length;
    });
    const outer = new Graph([inner.asNode(), log]);
    expectTypeOf<InputsOf<typeof outer>>().toEqualTypeOf<{ messages: Message[] }>();
  });

  test("a value with a producer that does not read it back stays optional (it may run first)", () => {
    const start = node({ output: "messages" }, function start({ prompt }: { prompt: string }): Message[] {
      return [{ role: "user", text: prompt }];
    });
    const gate = route({ targets: ["start", "agent"] }, function gate({ fresh }: { fresh: boolean }) {
      return fresh ? "start" : "agent";
    });
    const g = new Graph([gate, start, agent]);
    expectTypeOf<InputsOf<typeof g>>().toEqualTypeOf<{ fresh: boolean; prompt: string }>();
  });

  test("a seed fed back by another node of the loop (A → B → C → A), entrypoint named: required", () => {
    // The runtime requires `x`: A is the loop's entry, and `x` comes back to it around the loop.
    const A = node({ name: "A", output: "y" }, ({ x }: { x: number }) => x + 1);
    const B = node({ name: "B", output: "z" }, ({ y }: { y: number }) => y);
    const check = route({ name: "check", targets: ["C", END] }, ({ z }: { z: number }) => (z >= 3 ? END : "C"));
    const C = node({ name: "C", output: "x" }, ({ z }: { z: number }) => z);
    const g = new Graph([A, B, check, C], { entrypoint: "A" });
    expectTypeOf<InputsOf<typeof g>>().toEqualTypeOf<{ x: number }>();
    expectTypeOf<SeedChoice<typeof g>>().toEqualTypeOf<never>();
    // Any node order, an entrypoint list.
    const reordered = new Graph([C, check, B, A], { entrypoint: ["A"] });
    expectTypeOf<InputsOf<typeof reordered>>().toEqualTypeOf<{ x: number }>();
  });

  test("a loop whose entry the checker can't tell (nodes named by their functions): one of its values", () => {
    // The README's style: the gate targets 'draft' by name, which the checker can't map to a node. The runtime reads
    // `feedback` first (the gate's target starts the loop); the types require one of the loop's values.
    const draft = node({ output: "text" }, function draft({ topic, feedback }: { topic: string; feedback: string }) {
      return `${topic}: ${feedback}`;
    });
    const critique = node({ output: "feedback" }, function critique({ text }: { text: string }) {
      return text.length > 40 ? "ok" : "longer";
    });
    const decide = route({ targets: ["draft", END] }, function decide({ feedback }: { feedback: string }) {
      return feedback === "ok" ? END : "draft";
    });
    const publish = node({ output: "url" }, function publish({ text }: { text: string }) {
      return `/posts/${text.length}`;
    });
    const refine = new Graph([draft, critique, decide, publish], { name: "refine" });
    expectTypeOf<InputsOf<typeof refine>>().toEqualTypeOf<{ topic: string }>();
    // Values downstream of the loop (`url`) are not in the choice: passing one would not start it.
    expectTypeOf<SeedChoice<typeof refine>>().toEqualTypeOf<"feedback" | "text">();
    // A default in the reading node, or a bound value of the loop, settles it.
    const withDefault = node(
      { output: "text" },
      function draft({ topic, feedback = "" }: { topic: string; feedback?: string }) {
        return `${topic}: ${feedback}`;
      },
    );
    const settled = new Graph([withDefault, critique, decide, publish], { name: "refine" });
    expectTypeOf<SeedChoice<typeof settled>>().toEqualTypeOf<never>();
    const bound = refine.bind({ feedback: "" });
    expectTypeOf<SeedChoice<typeof bound>>().toEqualTypeOf<never>();
    // Binding an input outside the loop leaves it.
    const boundTopic = refine.bind({ topic: "graphs" });
    expectTypeOf<SeedChoice<typeof boundTopic>>().toEqualTypeOf<"feedback" | "text">();
  });

  test("explicit edges: the wiring is not the names', nothing is inferred", () => {
    const A = node({ name: "A", output: "y" }, ({ x }: { x: number }) => x + 1);
    const B = node({ name: "B", output: "x" }, ({ y }: { y: number }) => y);
    const g = new Graph([A, B], {
      edges: [
        ["A", "B"],
        ["B", "A"],
      ],
    });
    expectTypeOf<SeedChoice<typeof g>>().toEqualTypeOf<never>();
  });
});
