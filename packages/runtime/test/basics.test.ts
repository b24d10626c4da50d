import { END, Graph, ifElse, interrupt, node, route } from "@graph/core";
import { describe, expect, it } from "vitest";
import { isMissingInputError, Runner } from "../src/index.js";

describe("basics", () => {
  it("runs a DAG", async () => {
    const calls: string[] = [];
    const double = node({ output: "doubled" }, function double({ x }: { x: number }) {
      calls.push("double");
      return x * 2;
    });
    const inc = node({ output: "result" }, async function inc({ doubled }: { doubled: number }) {
      calls.push("inc");
      return doubled + 1;
    });
    const r = await new Runner().run(new Graph([double, inc]), { values: { x: 5 } });
    expect(r.status).toBe("completed");
    expect(r.values).toEqual({ doubled: 10, result: 11 });
    expect(calls).toEqual(["double", "inc"]);
  });

  it("gated loop counts to 3", async () => {
    const calls: string[] = [];
    const increment = node({ output: "count" }, function increment({ count }: { count: number }) {
      calls.push(`inc${count}`);
      return count + 1;
    });
    const check = route({ targets: ["increment", END] }, function check({ count }: { count: number }) {
      calls.push(`check${count}`);
      return count >= 3 ? END : "increment";
    });
    const after = node({ output: "final" }, function after({ count }: { count: number }) {
      calls.push(`after${count}`);
      return count * 10;
    });
    const r = await new Runner().run(new Graph([increment, check, after]), { values: { count: 0 } });
    expect(calls).toEqual(["inc0", "check1", "inc1", "check2", "inc2", "check3", "after3"]);
    expect(r.values).toMatchObject({ count: 3, final: 30 });
  });

  it("chat feedback loop across turns by passing messages back", async () => {
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
    const chat = new Graph([getResponse, updateMessages]).bind({ messages: [] });
    const runner = new Runner();
    const t1 = await runner.run(chat, { values: { userInput: "hi" } });
    expect(t1.values).toEqual({ response: "echo(hi) after 0", messages: ["hi", "echo(hi) after 0"] });
    const t2 = await runner.run(chat, { values: { userInput: "more", messages: t1.values.messages } });
    expect(t2.values.messages).toEqual(["hi", "echo(hi) after 0", "more", "echo(more) after 2"]);
  });

  it("nested graphs and mapOver", async () => {
    const sq = node({ output: "sq" }, function sq({ x }: { x: number }) {
      return x * x;
    });
    const inner = new Graph([sq], { name: "inner" });
    const sum = node({ output: "total" }, function sum({ sq }: { sq: number[] }) {
      return sq.reduce((a, b) => a + b, 0);
    });
    const outer = new Graph([inner.asNode().mapOver("x"), sum]);
    const r = await new Runner().run(outer, { values: { x: [1, 2, 3] } });
    expect(r.values.total).toBe(14);
    expect(r.get("inner/sq")).toEqual([1, 4, 9]);
  });

  it("interrupt pauses and resumes", async () => {
    const draft = node({ output: "draft" }, function draft({ topic }: { topic: string }) {
      return `about ${topic}`;
    });
    const approval = interrupt({ name: "approval", input: "draft", response: "decision" });
    const finalize = node(
      { output: "final" },
      function finalize({ draft, decision }: { draft: string; decision: string }) {
        return `${draft}: ${decision}`;
      },
    );
    const g = new Graph([draft, approval, finalize]);
    const runner = new Runner();
    const r1 = await runner.run(g, { values: { topic: "cats" } });
    expect(r1.status).toBe("paused");
    expect(r1.pause).toEqual({
      reason: "human_input",
      nodeName: "approval",
      value: "about cats",
      responseKey: "decision",
    });
    const r2 = await runner.run(g, { values: { topic: "cats", decision: "ok" } });
    expect(r2.values.final).toBe("about cats: ok");
  });

  it("missing inputs", async () => {
    const a = node({ output: "y" }, function a({ query }: { query: string }) {
      return query;
    });
    // @ts-expect-error: misspelled input 'qurey' (a static error too)
    await expect(new Runner().run(new Graph([a]), { values: { qurey: "x" } })).rejects.toSatisfy(
      (e: unknown) =>
        isMissingInputError(e) && (e as Error).message.includes("Did you mean 'query' instead of 'qurey'"),
    );
  });

  it("ifElse", async () => {
    const check = ifElse({ whenTrue: "fast", whenFalse: "slow" }, function check({ q }: { q: string }) {
      return q.length < 3;
    });
    const fast = node({ output: "answer" }, function fast({ q }: { q: string }) {
      return `fast ${q}`;
    });
    const slow = node({ output: "answer" }, function slow({ q }: { q: string }) {
      return `slow ${q}`;
    });
    const r = await new Runner().run(new Graph([check, fast, slow]), { values: { q: "hello" } });
    expect(r.values).toEqual({ answer: "slow hello" });
  });
});
