import { type AnyNode, END, Graph, node, route } from "@graph/core";
import { describe, expect, it } from "vitest";
import { isMissingInputError, Runner } from "../src/index.js";

// Who starts a loop that names no entrypoint (docs/semantics.md, "Loops"): the accumulator clause of the entry rule,
// a gate that can decide decides before its targets (a while loop; only an entrypoint makes it do-while), and a
// missing first value is an error only when no node of the loop can start.

function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((x, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((p) => [x, ...p]));
}

type Msg = { role: string; content: string; tool?: string };

/** The ReAct loop as users write it: model, a gate on its tool call, the tool appending to the history. */
function react(calls: string[]) {
  const callModel = node({ output: "aiMessage" }, async function callModel({ messages }: { messages: Msg[] }) {
    calls.push("callModel");
    const tools = messages.filter((m) => m.role === "tool").length;
    return tools < 2 ? { role: "ai", content: "", tool: `search#${tools + 1}` } : { role: "ai", content: "done" };
  });
  const shouldContinue = route(
    { targets: ["runTool", END] },
    function shouldContinue({ aiMessage }: { aiMessage: Msg }) {
      calls.push("shouldContinue");
      return aiMessage.tool ? "runTool" : END;
    },
  );
  const runTool = node(
    { output: "messages" },
    async function runTool({ aiMessage, messages }: { aiMessage: Msg; messages: Msg[] }) {
      calls.push("runTool");
      return [...messages, aiMessage, { role: "tool", content: `result of ${aiMessage.tool}` }];
    },
  );
  return [callModel, shouldContinue, runTool] as AnyNode[];
}

describe("the ReAct loop without an entrypoint", () => {
  it("starts at callModel (messages is an accumulator) and runs until the gate says END, in all 6 listings", async () => {
    for (const order of permutations([0, 1, 2])) {
      const calls: string[] = [];
      const nodes = react(calls);
      const graph = new Graph(order.map((i) => nodes[i]!));
      expect(graph.warnings).toEqual([]);
      expect(graph.analysis.loopEntries("runTool")).toEqual(["callModel"]);
      expect([...graph.inputs.seeds]).toEqual(["messages"]);
      const result = await new Runner().run(graph, { values: { messages: [{ role: "user", content: "hi" }] } });
      expect(result.status).toBe("completed");
      expect(calls).toEqual([
        "callModel",
        "shouldContinue",
        "runTool",
        "callModel",
        "shouldContinue",
        "runTool",
        "callModel",
        "shouldContinue",
      ]);
      expect((result.values.messages as Msg[]).map((m) => m.content)).toEqual([
        "hi",
        "",
        "result of search#1",
        "",
        "result of search#2",
      ]);
      expect(result.values.aiMessage).toEqual({ role: "ai", content: "done" });
    }
  });

  it("with no history, fails before any node with MissingInputError naming the entry's seed only", async () => {
    const calls: string[] = [];
    const graph = new Graph(react(calls));
    // The nodes are listed as AnyNode[] (to try every listing): the static check of loopStart.test-d.ts is not here.
    const error = await new Runner().run(graph, { values: {} }).catch((e) => e);
    expect(isMissingInputError(error)).toBe(true);
    expect(error.missing).toEqual(["messages"]);
    expect(error.message).toContain(
      "'messages' is produced by 'runTool' inside a loop that starts at 'callModel', which reads it on its first run",
    );
    expect(error.message).not.toContain("aiMessage");
    expect(calls).toEqual([]);
  });
});

/** The LangGraph supervisor team: a supervisor picks the next worker through a `defaultOpen: false` gate. */
function supervisorTeam(calls: string[]) {
  const supervisor = node({ name: "supervisor", output: "next" }, async ({ messages }: { messages: string[] }) => {
    calls.push("supervisor");
    return messages.length === 1 ? "researcher" : messages.length === 2 ? "chart_generator" : "FINISH";
  });
  const routeToWorker = route(
    { name: "routeToWorker", targets: ["researcher", "chart_generator", END], defaultOpen: false },
    ({ next }: { next: string }) => (next === "FINISH" ? END : next),
  );
  const worker = (name: string, line: string) =>
    node({ name, output: "messages" }, async ({ messages }: { messages: string[] }) => {
      calls.push(name);
      return [...messages, line];
    });
  return [
    supervisor,
    routeToWorker,
    worker("researcher", "research: GDP figures"),
    worker("chart_generator", "chart: line plot"),
  ] as AnyNode[];
}

describe("the supervisor team (defaultOpen: false gate) without an entrypoint", () => {
  it("starts at the supervisor: supervisor researcher supervisor chart_generator supervisor, in all 24 listings", async () => {
    for (const order of permutations([0, 1, 2, 3])) {
      const calls: string[] = [];
      const nodes = supervisorTeam(calls);
      const graph = new Graph(order.map((i) => nodes[i]!));
      expect(graph.analysis.loopEntries("supervisor")).toEqual(["supervisor"]);
      const result = await new Runner().run(graph, { values: { messages: ["user: plot GDP"] } });
      expect(result.status).toBe("completed");
      expect(calls).toEqual(["supervisor", "researcher", "supervisor", "chart_generator", "supervisor"]);
      expect(result.values.messages).toEqual(["user: plot GDP", "research: GDP figures", "chart: line plot"]);
      expect(result.values.next).toBe("FINISH");
    }
  });
});

/** `inc({c}) → c`, `check({c, l}) → END | inc`: the gate can decide with the caller's values. */
function counter(calls: string[], entrypoint?: string) {
  const inc = node({ name: "inc", output: "c" }, ({ c }: { c: number }) => {
    calls.push("inc");
    return c + 1;
  });
  const check = route({ name: "check", targets: ["inc", END] }, ({ c, l }: { c: number; l: number }) => {
    calls.push("check");
    return c >= l ? END : "inc";
  });
  return new Graph([inc, check], entrypoint === undefined ? {} : { entrypoint });
}

describe("while and do-while", () => {
  it("with no entrypoint the gate decides first (while): { c: 0, l: 0 } runs no inc", async () => {
    const calls: string[] = [];
    const result = await new Runner().run(counter(calls), { values: { c: 0, l: 0 } });
    expect(result.status).toBe("completed");
    expect(calls).toEqual(["check"]);
    expect(result.values).toEqual({});
  });

  it("with no entrypoint, { c: 0, l: 2 } counts to 2, the gate before every inc", async () => {
    const calls: string[] = [];
    const result = await new Runner().run(counter(calls), { values: { c: 0, l: 2 } });
    expect(calls).toEqual(["check", "inc", "check", "inc", "check"]);
    expect(result.values).toEqual({ c: 2 });
  });

  it("only a configured entrypoint makes it do-while: entrypoint inc runs inc once before the gate", async () => {
    const calls: string[] = [];
    const result = await new Runner().run(counter(calls, "inc"), { values: { c: 0, l: 0 } });
    expect(calls).toEqual(["inc", "check"]);
    expect(result.values).toEqual({ c: 1 });
  });

  it("a gate that only reads the loop's seed waits for the loop to write it, so the loop starts at its entry", async () => {
    // check({ c }) relays the fed-back counter: it cannot decide on the caller's value, so inc runs first.
    const calls: string[] = [];
    const inc = node({ name: "inc", output: "c" }, ({ c }: { c: number }) => {
      calls.push("inc");
      return c + 1;
    });
    const check = route({ name: "check", targets: ["inc", END] }, ({ c }: { c: number }) => {
      calls.push("check");
      return c >= 2 ? END : "inc";
    });
    const result = await new Runner().run(new Graph([check, inc]), { values: { c: 0 } });
    expect(calls).toEqual(["inc", "check", "inc", "check"]);
    expect(result.values).toEqual({ c: 2 });
  });

  it("MissingInputError only when no node of the loop can start: { l } alone names the entry's seed 'c'", async () => {
    const calls: string[] = [];
    // @ts-expect-error 'c' is missing
    const error = await new Runner().run(counter(calls), { values: { l: 1 } }).catch((e) => e);
    expect(isMissingInputError(error)).toBe(true);
    expect(error.missing).toEqual(["c"]);
    expect(calls).toEqual([]);
  });

  it("a loop that can start on the caller's values runs although its entry's seed is missing", async () => {
    // Entry `C` (the gate's target) reads `z`; the caller gives `x`, so `A` starts the loop and `z` arrives in time.
    const calls: string[] = [];
    const A = node({ name: "A", output: "y" }, ({ x }: { x: number }) => {
      calls.push("A");
      return x + 1;
    });
    const B = node({ name: "B", output: "z" }, ({ y }: { y: number }) => {
      calls.push("B");
      return y;
    });
    const check = route({ name: "check", targets: ["C", END] }, ({ z }: { z: number }) => (z >= 2 ? END : "C"));
    const C = node({ name: "C", output: "x" }, ({ z }: { z: number }) => {
      calls.push("C");
      return z;
    });
    const graph = new Graph([C, check, B, A]);
    expect(graph.analysis.loopEntries("A")).toEqual(["C"]);
    expect([...graph.inputs.seeds]).toEqual(["z"]);
    const result = await new Runner().run(graph, { values: { x: 0 } } as never);
    expect(calls).toEqual(["A", "B", "C", "A", "B"]);
    expect(result.values).toEqual({ x: 1, y: 2, z: 2 });
  });
});
