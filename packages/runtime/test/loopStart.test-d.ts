import { END, Graph, node, route } from "@graph/core";
import { describe, test } from "vitest";
import { Runner } from "../src/index.js";

// The static types of a loop that names no entrypoint agree with who starts it at run time: the accumulator a loop
// starts from is required, a value only the loop produces is not.

type Msg = { role: string; content: string; tool?: string };
const runner = new Runner();

const callModel = node({ output: "aiMessage" }, function callModel({ messages }: { messages: Msg[] }): Msg {
  return { role: "ai", content: String(messages.length) };
});
const shouldContinue = route({ targets: ["runTool", END] }, function shouldContinue({ aiMessage }: { aiMessage: Msg }) {
  return aiMessage.tool ? "runTool" : END;
});
const runTool = node(
  { output: "messages" },
  function runTool({ aiMessage, messages }: { aiMessage: Msg; messages: Msg[] }): Msg[] {
    return [...messages, aiMessage];
  },
);
const react = new Graph([callModel, shouldContinue, runTool]);

describe("the ReAct loop without an entrypoint", () => {
  test("its history is required (callModel starts it), the model's message is not", () => {
    // @ts-expect-error 'messages' (the entry's seed) is missing: the run would fail with MissingInputError
    void runner.run(react, { values: {} });
    void runner.run(react, { values: { messages: [] } });
    // @ts-expect-error 'messages' is still required when the model's message is given
    void runner.run(react, { values: { aiMessage: { role: "ai", content: "" } } });
  });
});

const inc = node({ name: "inc", output: "c" }, ({ c }: { c: number }) => c + 1);
const check = route({ name: "check", targets: ["inc", END] }, ({ c, l }: { c: number; l: number }) =>
  c >= l ? END : "inc",
);

describe("a while loop without an entrypoint", () => {
  test("the counter and the limit are required", () => {
    const loop = new Graph([inc, check]);
    void runner.run(loop, { values: { c: 0, l: 0 } });
    // @ts-expect-error 'c' is missing: no node of the loop can start
    void runner.run(loop, { values: { l: 0 } });
  });
});
