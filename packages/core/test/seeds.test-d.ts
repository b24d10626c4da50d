import { describe, expectTypeOf, test } from "vitest";
import { END, Graph, type InputsOf, node, route } from "../src/index.js";

type Message = { role: "user" | "assistant" | "tool"; text: string };

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

  test("not detected: a seed fed back by another node of the loop (A → B → C → A) stays optional", () => {
    // The runtime requires `x` here (A is the loop's entry), but which node is the entry depends on the whole
    // loop's shape: the checker does not compute it (see docs/types.md, "What stays untyped").
    const A = node({ name: "A", output: "y" }, ({ x }: { x: number }) => x + 1);
    const B = node({ name: "B", output: "z" }, ({ y }: { y: number }) => y);
    const check = route({ name: "check", targets: ["C", END] }, ({ z }: { z: number }) => (z >= 3 ? END : "C"));
    const C = node({ name: "C", output: "x" }, ({ z }: { z: number }) => z);
    const g = new Graph([A, B, check, C], { entrypoint: "A" });
    expectTypeOf<InputsOf<typeof g>>().toEqualTypeOf<Record<never, never>>();
  });
});
