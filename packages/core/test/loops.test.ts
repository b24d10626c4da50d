import { describe, expect, it } from "vitest";
import { END, Graph, type NodeFunction, node, route } from "../src/index.js";
import { errorOf, fromSource } from "./helpers.js";

const worker = (name: string) =>
  node({ name, output: "messages" }, ({ messages }: { messages: string[] }) => [...messages, name]);
const supervisor = node({ name: "supervisor", output: "next" }, ({ messages }: { messages: string[] }) =>
  messages.length > 2 ? "FINISH" : "researcher",
);
const routeToWorker = (options: { multiTarget?: boolean; defaultOpen?: boolean } = {}) =>
  route(
    { name: "routeToWorker", targets: ["researcher", "chart_generator", END], ...options },
    ({ next }: { next: string }) => (next === "FINISH" ? END : options.multiTarget ? [next] : next),
  );

describe("exclusive producers inside a loop", () => {
  it("two targets of one single-choice route in a loop may both write 'messages' (with an entrypoint)", () => {
    const graph = new Graph([supervisor, routeToWorker(), worker("researcher"), worker("chart_generator")], {
      entrypoint: "supervisor",
    });
    expect(graph.analysis.loops.regions.get("routeToWorker")).toEqual(
      new Map([
        ["researcher", new Set(["researcher"])],
        ["chart_generator", new Set(["chart_generator"])],
      ]),
    );
  });

  it("writers deeper in the branches (a formatter after each worker) are exclusive too", () => {
    const researcher = node({ name: "researcher", output: "draftR" }, ({ messages }: { messages: string[] }) =>
      messages.join(),
    );
    const chart = node({ name: "chart_generator", output: "draftC" }, ({ messages }: { messages: string[] }) =>
      messages.join(),
    );
    const formatR = node({ name: "formatR", output: "messages" }, ({ draftR }: { draftR: string }) => [draftR]);
    const formatC = node({ name: "formatC", output: "messages" }, ({ draftC }: { draftC: string }) => [draftC]);
    const graph = new Graph([supervisor, routeToWorker(), researcher, chart, formatR, formatC], {
      entrypoint: "supervisor",
    });
    expect(graph.analysis.loops.regions.get("routeToWorker")?.get("researcher")).toEqual(
      new Set(["researcher", "formatR"]),
    );
  });

  it("without an entrypoint (defaultOpen) both may run before the gate decides: rejected, saying why", () => {
    const error = errorOf(
      () => new Graph([supervisor, routeToWorker(), worker("researcher"), worker("chart_generator")]),
    );
    expect(error._tag).toBe("GraphConfigError");
    expect(error.message).toContain(
      "'researcher' and 'chart_generator' are in exclusive branches of gate 'routeToWorker', but that gate is in a loop with no entrypoint, so both may run before it first decides",
    );
    expect(error.message).toContain("How to fix: set entrypoint");
  });

  it("a second gate with defaultOpen: false over the same two writers does not make them safe, in any listing", () => {
    // `pick` (defaultOpen) can't decide before `write` has run, so both writers may start the loop through it; `check`
    // also separates them but waits to be chosen. A target runs when any of its gates permits it: refused either way.
    const nodes = [
      route({ name: "pick", targets: ["writeA", "writeB"] }, ({ turn }: { turn: number }) =>
        turn % 2 === 0 ? "writeA" : "writeB",
      ),
      node({ name: "writeA", output: ["log", "res"] }, ({ log }: { log: number }) => [log + 1, "a"]),
      node({ name: "writeB", output: ["turn", "res"] }, ({ log }: { log: number }) => [log, "b"]),
      route({ name: "again", targets: ["pick", END], defaultOpen: false }, ({ log }: { log: number }) =>
        log > 3 ? END : "pick",
      ),
      route({ name: "check", targets: ["writeA", "writeB", END], defaultOpen: false }, ({ log }: { log: number }) =>
        log > 3 ? END : "writeA",
      ),
    ];
    for (const listing of [nodes, [...nodes].reverse()]) {
      const error = errorOf(() => new Graph(listing));
      expect(error._tag).toBe("GraphConfigError");
      expect(error.message).toContain(
        "are in exclusive branches of gate 'pick', but that gate is in a loop with no entrypoint",
      );
    }
  });

  it("defaultOpen: false without an entrypoint is accepted (nothing runs a branch before the gate chooses it)", () => {
    expect(
      () =>
        new Graph([supervisor, routeToWorker({ defaultOpen: false }), worker("researcher"), worker("chart_generator")]),
    ).not.toThrow();
  });

  it("a multiTarget gate, or an ungated second writer, is rejected as before", () => {
    expect(
      errorOf(
        () =>
          new Graph(
            [supervisor, routeToWorker({ multiTarget: true }), worker("researcher"), worker("chart_generator")],
            { entrypoint: "supervisor" },
          ),
      ).message,
    ).toMatch(/^Multiple nodes produce 'messages' in this graph: 'researcher' and 'chart_generator'\./);
    const intruder = node({ name: "intruder", output: "messages" }, ({ next }: { next: string }) => [next]);
    expect(
      errorOf(
        () =>
          new Graph([supervisor, routeToWorker(), worker("researcher"), worker("chart_generator"), intruder], {
            entrypoint: "supervisor",
          }),
      ),
    ).toMatchObject({ _tag: "GraphConfigError", where: "intruder" });
  });
});

describe("the entry of a loop with no entrypoint: accumulators count as seeded", () => {
  const callModel = node({ name: "callModel", output: "aiMessage" }, ({ messages }: { messages: string[] }) =>
    messages.join(),
  );
  const shouldContinue = route(
    { name: "shouldContinue", targets: ["runTool", END] },
    ({ aiMessage }: { aiMessage: string }) => (aiMessage.length > 9 ? END : "runTool"),
  );
  const runTool = node(
    { name: "runTool", output: "messages" },
    ({ aiMessage, messages }: { aiMessage: string; messages: string[] }) => [...messages, aiMessage],
  );

  it("ReAct: messages is written only by a node that reads it, so callModel is the entry, in every listing", () => {
    const nodes = [callModel, shouldContinue, runTool];
    for (const order of [
      [0, 1, 2],
      [0, 2, 1],
      [1, 0, 2],
      [1, 2, 0],
      [2, 0, 1],
      [2, 1, 0],
    ]) {
      const graph = new Graph(order.map((i) => nodes[i]!));
      expect(graph.analysis.loopEntries("runTool")).toEqual(["callModel"]);
      expect([...graph.inputs.seeds]).toEqual(["messages"]);
      expect(graph.inputs.required.size).toBe(0);
      expect(graph.analysis.isFeedback("runTool", "callModel")).toBe(true);
      expect(graph.warnings).toEqual([]);
    }
  });

  it("a value some writer does not read is no accumulator: the gate's target is the entry", () => {
    // `fresh` writes messages without reading them: messages has no value before the first turn.
    const fresh = node({ name: "runTool", output: "messages" }, ({ aiMessage }: { aiMessage: string }) => [aiMessage]);
    const graph = new Graph([callModel, shouldContinue, fresh]);
    expect(graph.analysis.loopEntries("runTool")).toEqual(["runTool"]);
    expect([...graph.inputs.seeds]).toEqual(["aiMessage"]);
  });

  it("the supervisor team (defaultOpen: false): the supervisor reads the workers' accumulator and starts the loop", () => {
    const graph = new Graph([
      worker("chart_generator"),
      routeToWorker({ defaultOpen: false }),
      worker("researcher"),
      supervisor,
    ]);
    expect(graph.analysis.loopEntries("supervisor")).toEqual(["supervisor"]);
    expect([...graph.inputs.seeds]).toEqual(["messages"]);
    // Only the workers' own cycle (each appends what the other wrote) ties, as it does with the entrypoint named.
    expect(graph.warnings).toEqual(
      new Graph([supervisor, routeToWorker({ defaultOpen: false }), worker("researcher"), worker("chart_generator")], {
        entrypoint: "supervisor",
      }).warnings,
    );
  });
});

describe("regions and sub-cycles of Self-RAG", () => {
  const n = (name: string, inputs: string[], output: string) =>
    node({ name, inputs, output }, () => undefined as unknown);
  const graph = new Graph(
    [
      n("retrieve", ["question"], "documents"),
      n("gradeDocuments", ["question", "documents"], "relevant"),
      route({ name: "decide", targets: ["transformQuery", "generate"] }, ({ relevant }: { relevant: string[] }) =>
        relevant.length === 0 ? "transformQuery" : "generate",
      ),
      n("transformQuery", ["question"], "question"),
      n("generate", ["question", "relevant"], "generation"),
      route(
        { name: "grade", targets: [END, "generate", "transformQuery"] },
        ({ generation }: { generation: string }) => (generation ? END : "generate"),
      ),
    ],
    { entrypoint: "retrieve" },
  );
  const a = graph.analysis;

  it("feedback edges are found recursively: the inner cycle is entered where the loop enters it", () => {
    expect(a.isFeedback("transformQuery", "retrieve")).toBe(true);
    expect(a.isFeedback("transformQuery", "gradeDocuments")).toBe(true);
    expect(a.isFeedback("grade", "generate")).toBe(true);
    // upstream/downstream is an order: never both ways
    expect(a.reachesAcyclic("gradeDocuments", "transformQuery")).toBe(true);
    expect(a.reachesAcyclic("transformQuery", "gradeDocuments")).toBe(false);
  });

  it("the question is the loop's seed; the regions stop at it", () => {
    expect(a.loops.seeds.get(a.componentOf.get("retrieve")!)).toEqual(new Set(["question"]));
    expect(a.loops.regions.get("decide")?.get("transformQuery")).toEqual(new Set(["transformQuery"]));
    expect(a.loops.regions.get("decide")?.get("generate")).toEqual(new Set(["generate", "grade", "transformQuery"]));
    expect(a.isSeedForNonEntry("question", "gradeDocuments")).toBe(true);
    expect(a.isSeedForNonEntry("question", "retrieve")).toBe(false);
    expect(a.gateBetween("gradeDocuments", "transformQuery")).toBe(true);
  });
});

describe("names and targets", () => {
  it.each(["__proto__", "constructor", "hasOwnProperty"])("an output named '%s' is rejected at build", (name) => {
    const error = errorOf(() => node({ name: "bad", output: name }, () => 1));
    expect(error._tag).toBe("GraphConfigError");
    expect(error.message).toContain(`Invalid output name '${name}'`);
    expect(error.message).toContain("reserved JavaScript object key");
  });

  it("an input named '__proto__' is rejected too", () => {
    expect(errorOf(() => node({ name: "bad", inputs: ["__proto__"], output: "x" }, () => 1)).message).toContain(
      "Invalid input name '__proto__'",
    );
  });

  it("a route returning END when END is not declared is a RoutingError", () => {
    const gate = route({ name: "pick", targets: ["a", "b"] }, () => END);
    const error = errorOf(() => gate.decide({}, {}));
    expect(error._tag).toBe("RoutingError");
    expect(error.message).toContain("Gate 'pick' returned END, but END is not one of its targets ('a', 'b')");
    const declared = route({ name: "pick2", targets: ["a", END] }, () => END);
    expect(declared.decide({}, {})).toEqual([END]);
  });
});

describe("downleveled async functions", () => {
  it("a TypeScript __awaiter helper (target < ES2017) is named as the cause, with the fix", () => {
    const compiled = fromSource<NodeFunction>(`function embed(_a) {
      return __awaiter(this, void 0, void 0, function* () { var query = _a.query; return [query.length]; });
    }`);
    const error = errorOf(() => node({ output: "embedding" }, compiled));
    expect(error._tag).toBe("GraphConfigError");
    expect(error.message).toContain("it was compiled from an async function into a '__awaiter' helper call");
    expect(error.message).toContain("'_a'");
    expect(error.message).toContain('"target": "ES2017" or later');
  });

  it("Babel's _asyncToGenerator is recognised too", () => {
    const compiled = fromSource<NodeFunction>(
      `function embed(_x) { return _asyncToGenerator(function* (_ref) { return 1; }).apply(this, arguments); }`,
    );
    expect(errorOf(() => node({ output: "embedding" }, compiled)).message).toContain("'_asyncToGenerator' helper call");
  });
});
