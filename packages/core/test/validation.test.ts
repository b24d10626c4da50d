import { describe, expect, it } from "vitest";
import * as z from "zod";
import { END, Graph, ifElse, interrupt, isGraphConfigError, node, route } from "../src/index.js";
import { errorOf, fromSource } from "./helpers.js";

const fn = (name: string, inputs: string, output?: string | string[]) =>
  node(output === undefined ? {} : { output }, fromSource(`function ${name}({ ${inputs} }) { return 1; }`));
const gate = (
  name: string,
  inputs: string,
  targets: (string | typeof END)[],
  options: { multiTarget?: boolean; defaultOpen?: boolean } = {},
) => route({ targets, ...options }, fromSource(`function ${name}({ ${inputs} }) { return undefined; }`));

/** Expects a GraphConfigError and returns its message. */
const configError = (run: () => unknown): string => {
  const error = errorOf(run);
  expect(isGraphConfigError(error)).toBe(true);
  expect(error._tag).toBe("GraphConfigError");
  return error.message;
};

describe("1. gate targets must exist", () => {
  const retrieve = fn("retrieve", "q", "docs");

  it("an unknown target is an error with Did you mean", () => {
    const message = configError(() => new Graph([gate("decide", "q", ["retreive", END]), retrieve], { name: "rag" }));
    expect(message).toBe(
      "Gate 'decide' targets 'retreive', but there is no node named 'retreive' in graph 'rag'. Did you mean 'retrieve'?\n" +
        "  → Nodes: 'decide', 'retrieve'\n" +
        "  How to fix: add the node, or fix the name in the gate's targets.",
    );
  });

  it("nodes named by their functions (the README's style): a misspelled target compiles, the build names it", () => {
    // TypeScript types a function's `name` as `string`, so the checker can't tell 'drfat' from a node called so; this
    // file compiles (no @ts-expect-error), and `new Graph` — at module load, before any run — throws.
    const draft = node({ output: "draft" }, function draft({ topic }: { topic: string }) {
      return `On ${topic}`;
    });
    const decide = route({ targets: ["drfat", END] }, function decide({ draft }: { draft: string }) {
      return draft.length > 3 ? END : "drfat";
    });
    expect(configError(() => new Graph([draft, decide], { name: "writer" }))).toBe(
      "Gate 'decide' targets 'drfat', but there is no node named 'drfat' in graph 'writer'. Did you mean 'draft'?\n" +
        "  → Nodes: 'draft', 'decide'\n" +
        "  How to fix: add the node, or fix the name in the gate's targets.",
    );
  });

  it("no suggestion when nothing is close", () => {
    expect(configError(() => new Graph([gate("decide", "q", ["zzzzzz"]), retrieve]))).not.toContain("Did you mean");
  });

  it("quiet when the targets exist or are END", () => {
    expect(new Graph([gate("decide", "q", ["retrieve", END]), retrieve]).hasGates).toBe(true);
  });

  it("a gate renamed onto one of its own targets is rejected by the graph", () => {
    const renamed = gate("decide", "q", ["other", END]).withName("other");
    expect(configError(() => new Graph([renamed]))).toBe(
      "Gate 'other' targets itself in this graph; a gate can't route to itself.\n  How to fix: rename the gate (.withName(\"…\")) or remove 'other' from its targets.",
    );
  });
});

describe("2. multiple producers", () => {
  const fast = fn("fastPath", "query", "answer");
  const full = fn("fullRag", "query", "answer");

  it("two unrelated producers: error naming both", () => {
    const message = configError(() => new Graph([fast, full]));
    expect(message).toMatch(/^Multiple nodes produce 'answer' in this graph: 'fastPath' and 'fullRag'\./);
    expect(message).toContain("How to fix: rename one output");
  });

  it("quiet when they are the two branches of an ifElse", () => {
    const check = ifElse(
      { whenTrue: "fastPath", whenFalse: "fullRag" },
      fromSource("function check({ query }) { return true; }"),
    );
    expect(new Graph([check, fast, full]).outputs).toEqual(["answer"]);
  });

  it("quiet for the branches of a route without multiTarget (also further down each branch)", () => {
    const pick = gate("pick", "query", ["prepareA", "fullRag", END]);
    const prepareA = fn("prepareA", "query", "prepared");
    const finishA = fn("finishA", "prepared", "answer");
    expect(new Graph([pick, prepareA, finishA, full]).outputs).toEqual(["prepared", "answer"]);
  });

  it("loud for a multiTarget route: both branches may run", () => {
    const fan = gate("fan", "query", ["fastPath", "fullRag"], { multiTarget: true });
    expect(configError(() => new Graph([fan, fast, full]))).toContain(
      "Multiple nodes produce 'answer' in this graph: 'fastPath' and 'fullRag'.",
    );
  });

  it("quiet for a producer further down a branch that only that branch reaches", () => {
    const check = ifElse(
      { whenTrue: "fastPath", whenFalse: "slow" },
      fromSource("function check({ query }) { return true; }"),
    );
    const slow = fn("slow", "query", "draft");
    const finish = fn("finish", "draft, query", "answer");
    expect(new Graph([check, fast, slow, finish]).outputs).toEqual(["answer", "draft"]);
  });

  it("loud when both producers are in the same branch", () => {
    const check = ifElse(
      { whenTrue: "first", whenFalse: "fullRag" },
      fromSource("function check({ query }) { return true; }"),
    );
    const first = fn("first", "query", ["answer", "hint"]);
    const refine = fn("refine", "hint", "answer");
    expect(configError(() => new Graph([check, first, refine, full]))).toContain(
      "Multiple nodes produce 'answer' in this graph: 'first' and 'refine'.",
    );
  });

  it("loud when one producer sits after the branches join", () => {
    const check = ifElse(
      { whenTrue: "first", whenFalse: "second" },
      fromSource("function check({ query }) { return true; }"),
    );
    const first = fn("first", "query", ["answer", "x"]);
    const second = fn("second", "query", "y");
    const join = fn("join", "x = null, y = null", "answer");
    expect(configError(() => new Graph([check, first, second, join]))).toContain("'first' and 'join'");
  });

  it("loud when a producer is outside the gate", () => {
    const check = ifElse(
      { whenTrue: "fastPath", whenFalse: "fullRag" },
      fromSource("function check({ query }) { return true; }"),
    );
    expect(configError(() => new Graph([check, fast, full, fn("third", "query", "answer")]))).toContain(
      "'fastPath' and 'third'",
    );
  });
});

describe("3. cycles with a gate need a way out", () => {
  const generate = fn("generate", "messages", "response");
  const accumulate = fn("accumulate", "messages, response", "messages");

  it("a gate that only routes back: 'Cycle has no termination path' listing the cycle", () => {
    const message = configError(() => new Graph([generate, accumulate, gate("check_done", "messages", ["generate"])]));
    expect(message).toBe(
      "Cycle has no termination path in this graph: generate → accumulate → check_done → generate.\n" +
        "  → Its gates ('check_done') only route back into the cycle.\n" +
        "  How to fix: let a gate return END (add END to its targets) or route to a node outside the cycle.",
    );
  });

  it("quiet when a gate can return END", () => {
    expect(new Graph([generate, accumulate, gate("check_done", "messages", ["generate", END])]).hasCycles).toBe(true);
  });

  it("quiet when a gate can route outside the cycle", () => {
    const finish = fn("finish", "messages", "final");
    expect(
      new Graph([generate, accumulate, gate("check_done", "messages", ["generate", "finish"]), finish]).hasCycles,
    ).toBe(true);
  });

  it("quiet for a gateless feedback loop (and a self-consuming node)", () => {
    const getResponse = fn("getResponse", "messages, userInput", "response");
    const updateMessages = fn("updateMessages", "messages, userInput, response", "messages");
    expect(new Graph([getResponse, updateMessages]).hasCycles).toBe(true);
    expect(new Graph([fn("counter", "count", "count")]).hasCycles).toBe(true);
  });
});

describe("4. cycles must be able to start (deadlock)", () => {
  // Every node of the cycle is a target of a defaultOpen: false gate of the same cycle.
  const work = fn("work", "x", "a");
  const first = (defaultOpen: boolean) => gate("first", "y", ["work", "second", END], { defaultOpen });
  const second = gate("second", "a", ["first", END], { defaultOpen: false });

  it("is an error listing the cycle and the closed gates", () => {
    const message = configError(() => new Graph([work, first(false), second], { name: "loop" }));
    expect(message).toBe(
      "Cycle cannot start (deadlock) in graph 'loop': work → first → second → work.\n" +
        "  → Every node waits on the cycle: each is a target of a gate with defaultOpen: false ('first', 'second') that has not decided yet.\n" +
        "  How to fix: set entrypoint to the node that should run first, or defaultOpen: true on the gate.",
    );
  });

  it("quiet with an entrypoint that opens the cycle", () => {
    const graph = new Graph([work, first(false), second], { entrypoint: "first" });
    expect(graph.analysis.entries.get(graph.analysis.componentOf.get("work")!)).toEqual(["first"]);
  });

  it("an entrypoint that leaves an inner cycle of closed gates still deadlocks (names that inner cycle)", () => {
    // `work` runs first, then `first` and `second` wait on each other's first decision.
    expect(configError(() => new Graph([work, first(false), second], { entrypoint: "work" }))).toMatch(
      /^Cycle cannot start \(deadlock\) in this graph: first → second → first\./,
    );
  });

  it("quiet when the gate is defaultOpen", () => {
    const graph = new Graph([work, first(true), second]);
    expect(graph.analysis.entries.get(graph.analysis.componentOf.get("work")!)).toEqual(["work"]);
  });

  it("a closed gate steers the entry to a node it does not hold back", () => {
    const generate = fn("generate", "messages", "response");
    const accumulate = fn("accumulate", "messages, response", "messages");
    const done = gate("check_done", "messages", ["generate", END], { defaultOpen: false });
    const graph = new Graph([generate, accumulate, done]);
    expect(graph.analysis.entries.get(graph.analysis.componentOf.get("generate")!)).toEqual(["check_done"]);
  });
});

describe("5. mapOver over a graph with interrupts", () => {
  const draft = fn("write", "topic", "draft");
  const approval = interrupt({ name: "approval", input: "draft", response: "decision" });
  const review = new Graph([draft, approval], { name: "review" });

  it("is rejected, naming the interrupts and suggesting a loop of run", () => {
    const message = configError(() => review.asNode().mapOver("topic"));
    expect(message).toBe(
      "GraphNode 'review' maps over 'topic', but its graph contains interrupts: 'approval'.\n" +
        "  → mapOver runs the graph many times in one batch, while an interrupt pauses for a human; they can't mix.\n" +
        "  How to fix: run the graph with runner.run() in a loop, one item at a time, instead of mapOver/runner.map.",
    );
  });

  it("finds interrupts in deeper graphs too", () => {
    const wrapper = new Graph([review.asNode()], { name: "wrapper" });
    expect(configError(() => wrapper.asNode().mapOver("topic"))).toContain("contains interrupts: 'review/approval'");
  });

  it("quiet without mapOver, or for a graph without interrupts", () => {
    expect(new Graph([review.asNode()]).hasInterrupts).toBe(true);
    expect(new Graph([new Graph([draft], { name: "w" }).asNode().mapOver("topic")]).outputs).toEqual(["draft"]);
  });
});

describe("6. names with '/' or '.'", () => {
  it("explains that '/' separates result paths", () => {
    const message = configError(() => node({ name: "rag/pipeline" }, () => 1));
    expect(message).toContain("it contains '/', which separates levels in result paths ('rag/docs')");
    expect(message).toContain("(e.g. 'rag_pipeline')");
  });

  it("applies to node, output, graph and GraphNode names", () => {
    expect(configError(() => node({ name: "a.b" }, () => 1))).toContain("Invalid node name 'a.b'");
    expect(configError(() => node({ name: "n", output: "x/y" }, () => 1))).toContain(
      "Invalid output name 'x/y' in node 'n'",
    );
    expect(configError(() => new Graph([], { name: "g.v1" }))).toContain("Invalid graph name 'g.v1'");
    expect(configError(() => new Graph([fn("a", "p", "x")]).asNode({ name: "sub/graph" }))).toContain(
      "Invalid node name 'sub/graph'",
    );
  });

  it("quiet for '_' and '-'", () => {
    expect(node({ name: "rag_pipeline-2", output: "out_1" }, () => 1).name).toBe("rag_pipeline-2");
  });
});

describe("7. namespace collision", () => {
  const inner = new Graph([fn("retrieve", "query", "docs")], { name: "rag" });

  it("an output named like a GraphNode is an error", () => {
    const message = configError(() => new Graph([fn("summarize", "docs", "rag"), inner.asNode()]));
    expect(message).toBe(
      "Namespace collision in this graph: node 'summarize' outputs 'rag', which is also the name of a GraphNode.\n" +
        "  → result.values holds outputs and nested results side by side, so result.get('rag') would be ambiguous.\n" +
        '  How to fix: rename the output (.withOutputs({ rag: "rag_value" })) or the GraphNode (graph.asNode({ name: "…" })).',
    );
  });

  it("quiet once either side is renamed", () => {
    expect(new Graph([fn("summarize", "docs", "summary"), inner.asNode()]).outputs).toEqual(["summary", "docs"]);
    expect(new Graph([fn("summarize", "docs", "rag"), inner.asNode({ name: "rag_pipeline" })]).outputs).toEqual([
      "rag",
      "docs",
    ]);
  });
});

describe("8. strictTypes", () => {
  const edge = (produced: z.ZodType | undefined, accepted: z.ZodType | undefined) =>
    new Graph(
      [
        node(
          { output: "v", inputs: { s: z.string() }, ...(produced === undefined ? {} : { outputSchema: produced }) },
          fromSource("function prod({ s }) { return s; }"),
        ),
        node(
          { output: "r", outputSchema: z.unknown(), ...(accepted === undefined ? {} : { inputs: { v: accepted } }) },
          fromSource("function cons({ v }) { return v; }"),
        ),
      ],
      { strictTypes: true },
    );

  it("a data edge without schemas on both ends is an error", () => {
    expect(configError(() => edge(undefined, z.number()))).toBe(
      "strictTypes is on in this graph, but the edge prod → cons ('v') is untyped: 'prod' has no outputSchema for 'v'.\n" +
        "  How to fix: add outputSchema to 'prod' and inputs: { v: z.… } to 'cons', or turn strictTypes off.",
    );
    expect(configError(() => edge(z.number(), undefined))).toContain("'cons' has no zod schema for input 'v'");
    expect(configError(() => edge(undefined, undefined))).toContain(
      "'prod' has no outputSchema for 'v' and 'cons' has no zod schema for input 'v'",
    );
  });

  it("a mismatch names both nodes, the value and both types", () => {
    expect(configError(() => edge(z.string(), z.number()))).toBe(
      `Type mismatch in this graph on 'v': 'prod' produces {"type":"string"} but 'cons' expects {"type":"number"}.\n` +
        "  How to fix: make the schemas agree, or convert the value in a node between them.",
    );
  });

  it.each<[string, z.ZodType, z.ZodType]>([
    ["same type", z.string(), z.string()],
    ["integer → number", z.number().int(), z.number()],
    ["literal → enum superset", z.literal("a"), z.enum(["a", "b"])],
    ["enum → enum superset", z.enum(["a"]), z.enum(["a", "b"])],
    ["object with extra properties", z.object({ a: z.string(), b: z.number() }), z.object({ a: z.string() })],
    ["object → optional property", z.object({ b: z.number() }), z.object({ a: z.string().optional() })],
    ["nullable consumer", z.string(), z.string().nullable()],
    ["union → wider union", z.union([z.string(), z.number()]), z.union([z.number(), z.string(), z.boolean()])],
    ["array of integers → array of numbers", z.array(z.number().int()), z.array(z.number())],
    [
      "tuple → array of its element types",
      z.tuple([z.string(), z.number()]),
      z.array(z.union([z.string(), z.number()])),
    ],
    ["record → same record", z.record(z.string(), z.number()), z.record(z.string(), z.number())],
    ["anything → unknown", z.object({ a: z.string() }), z.unknown()],
    ["optional producer → consumer with a default", z.number().optional(), z.number().default(1)],
    ["producer with a default → required consumer", z.number().default(1), z.number()],
  ])("quiet for compatible schemas: %s", (_label, produced, accepted) => {
    expect(edge(produced, accepted).strictTypes).toBe(true);
  });

  it.each<[string, z.ZodType, z.ZodType, string]>([
    ["number → integer", z.number(), z.number().int(), `produces {"type":"number"}`],
    ["enum → literal", z.enum(["a", "b"]), z.literal("a"), `expects {"type":"string","const":"a"}`],
    [
      "missing required property",
      z.object({ b: z.number() }),
      z.object({ a: z.string() }),
      `'cons' expects {"type":"object"`,
    ],
    ["nullable producer → non-null consumer", z.string().nullable(), z.string(), `produces {"type":["string","null"]}`],
    ["array of strings → array of numbers", z.array(z.string()), z.array(z.number()), `"items":{"type":"string"}`],
    ["union → narrower", z.union([z.string(), z.number()]), z.string(), `expects {"type":"string"}`],
    [
      "record values differ",
      z.record(z.string(), z.number()),
      z.record(z.string(), z.string()),
      `"additionalProperties":{"type":"number"}`,
    ],
    [
      "extra keys into a strict object",
      z.object({ a: z.string(), b: z.number() }),
      z.strictObject({ a: z.string() }),
      `'cons' expects`,
    ],
    [
      "optional producer → required consumer",
      z.number().optional(),
      z.number(),
      `produces {"type":"number"} or undefined`,
    ],
  ])("loud for incompatible schemas: %s", (_label, produced, accepted, part) => {
    const message = configError(() => edge(produced, accepted));
    expect(message).toMatch(/^Type mismatch in this graph on 'v': 'prod' produces .* but 'cons' expects /);
    expect(message).toContain(part);
  });

  it("skips gates and interrupts (they have no schemas)", () => {
    const prod = node(
      { output: "v", outputSchema: z.number(), inputs: { s: z.string() } },
      fromSource("function prod({ s }) { return 1; }"),
    );
    const check = gate("check", "v", ["after", END]);
    const approval = interrupt({ name: "approval", input: "v", response: "decision" });
    const after = node(
      { output: "done", inputs: { decision: z.string() }, outputSchema: z.string() },
      fromSource("function after({ decision }) { return decision; }"),
    );
    expect(new Graph([prod, check, approval, after], { strictTypes: true }).strictTypes).toBe(true);
  });

  it("looks through GraphNodes, wrapping mapped ports in arrays", () => {
    const inner = new Graph(
      [
        node(
          { output: "docs", inputs: { query: z.string() }, outputSchema: z.array(z.string()) },
          fromSource("function retrieve({ query }) { return [query]; }"),
        ),
      ],
      { name: "rag" },
    );
    const consumer = (schema: z.ZodType) =>
      node(
        { output: "n", inputs: { docs: schema }, outputSchema: z.number() },
        fromSource("function count({ docs }) { return 1; }"),
      );
    const queries = node(
      { output: "query", inputs: { raw: z.string() }, outputSchema: z.array(z.string()) },
      fromSource("function split({ raw }) { return [raw]; }"),
    );
    const mapped = inner.asNode().mapOver("query");
    expect(
      new Graph([queries, mapped, consumer(z.array(z.array(z.string())))], { strictTypes: true }).strictTypes,
    ).toBe(true);
    expect(
      configError(() => new Graph([queries, mapped, consumer(z.array(z.string()))], { strictTypes: true })),
    ).toContain("Type mismatch in this graph on 'docs': 'rag' produces");
    const single = node(
      { output: "query", inputs: { raw: z.string() }, outputSchema: z.string() },
      fromSource("function single({ raw }) { return raw; }"),
    );
    // @ts-expect-error: 'query' is produced as a string but consumed as an array (a static error too)
    expect(configError(() => new Graph([single, mapped], { strictTypes: true }))).toContain(
      'on \'query\': \'single\' produces {"type":"string"} but \'rag\' expects {"type":"array"',
    );
  });

  it("off by default: untyped edges are fine", () => {
    expect(new Graph([fn("a", "p", "x"), fn("b", "x", "y")]).strictTypes).toBe(false);
  });
});

describe("9. duplicates and unknown names", () => {
  it("duplicate node names", () => {
    expect(configError(() => new Graph([fn("a", "p", "x"), fn("a", "q", "y")]))).toContain(
      "Duplicate node name 'a' in this graph.",
    );
  });

  it("unknown names in edges and entrypoint", () => {
    const nodes = [fn("alpha", "p", "x"), fn("beta", "x", "y")];
    expect(configError(() => new Graph(nodes, { edges: [["alpah", "beta"]] }))).toContain(
      "names unknown node 'alpah' in this graph. Did you mean 'alpha'?",
    );
    expect(configError(() => new Graph(nodes, { entrypoint: "bta" }))).toContain(
      "Unknown entrypoint 'bta' in this graph. Did you mean 'beta'?",
    );
  });

  it("errors carry where the problem is", () => {
    const error = errorOf(() => new Graph([fn("a", "p", "x"), fn("b", "q", "x")]));
    expect(error.where).toBe("b");
  });
});

describe("mutually exclusive producers behind a looping gate", () => {
  it("two exit targets of a gate that also loops back may produce the same value", () => {
    const write = node(
      { name: "write", output: "draft" },
      ({ feedback }: { feedback: string[] }) => `d${feedback.length}`,
    );
    const review = interrupt({ name: "review", input: "draft", response: "decision" });
    const collect = node(
      { name: "collect", output: "feedback" },
      ({ feedback, decision }: { feedback: string[]; decision: string }) => [...feedback, decision],
    );
    const gate = route(
      { name: "gate", targets: ["write", "accept", "reject", END] },
      ({ decision }: { decision: string }) => (decision === "ok" ? "accept" : "write"),
    );
    const accept = node({ name: "accept", output: "outcome" }, ({ draft }: { draft: string }) => `a:${draft}`);
    const reject = node({ name: "reject", output: "outcome" }, ({ draft }: { draft: string }) => `r:${draft}`);
    expect(() => new Graph([write, review, collect, gate, accept, reject]).bind({ feedback: [] })).not.toThrow();
    const other = node({ name: "other", output: "outcome" }, ({ draft }: { draft: string }) => draft);
    expect(() => new Graph([write, review, collect, gate, accept, reject, other])).toThrow(
      /Multiple nodes produce 'outcome'/,
    );
  });
});
