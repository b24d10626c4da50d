import { describe, expect, it } from "vitest";
import * as z from "zod";
import { FunctionNode, Graph, type NodeFunction, node } from "../src/index.js";
import { ctx, errorOf, fromSource } from "./helpers.js";

describe("node(): inputs from an explicit list", () => {
  it("takes the names in order, without defaults", () => {
    const split = node({ name: "split", inputs: ["x", "y"], output: ["first", "second"] }, ({ x, y }) => [x, y]);
    expect(split).toBeInstanceOf(FunctionNode);
    expect(split.name).toBe("split");
    expect(split.inputs).toEqual(["x", "y"]);
    expect(split.outputs).toEqual(["first", "second"]);
    expect(split.hasDefault("x")).toBe(false);
    expect(split.defaultValue("x")).toBeUndefined();
  });

  it("uses options.defaults for array-form inputs, fresh per call", () => {
    const n = node({ name: "n", inputs: ["x", "config"], defaults: { config: { tags: ["a"] } } }, ({ x, config }) => [
      x,
      config,
    ]);
    expect(n.hasDefault("config")).toBe(true);
    expect(n.hasDefault("x")).toBe(false);
    const first = n.defaultValue("config")!;
    const second = n.defaultValue("config")!;
    expect(first).toEqual({ value: { tags: ["a"] } });
    expect(first.value).not.toBe(second.value);
    (first.value as { tags: string[] }).tags.push("mutated");
    expect(n.defaultValue("config")).toEqual({ value: { tags: ["a"] } });
  });

  it("rejects a default for a name that is not an input", () => {
    const error = errorOf(() => node({ name: "n", inputs: ["x"], defaults: { y: 1 } }, () => 1));
    expect(error._tag).toBe("GraphConfigError");
    expect(error.message).toBe("Node 'n' has a default for 'y', which is not one of its inputs ('x').");
  });

  it("a node with no inputs takes none", () => {
    expect(node({ name: "now", output: "t" }, () => 1).inputs).toEqual([]);
  });
});

describe("node(): inputs from a zod record", () => {
  const retrieve = node(
    { inputs: { text: z.string(), topK: z.number().default(5), filter: z.string().optional() }, output: "args" },
    function retrieve(args: { text: string; topK: number }) {
      return args;
    },
  );

  it("reads the names; zod defaults and optional schemas make an input optional", () => {
    expect(retrieve.inputs).toEqual(["text", "topK", "filter"]);
    expect(retrieve.hasDefault("text")).toBe(false);
    expect(retrieve.hasDefault("topK")).toBe(true);
    expect(retrieve.hasDefault("filter")).toBe(true);
    // zod applies its own default inside invoke: nothing for the runner to pass.
    expect(retrieve.defaultValue("topK")).toBeUndefined();
    const graph = new Graph([retrieve]);
    expect(graph.inputs.required).toEqual(new Set(["text"]));
    expect(graph.inputs.optional).toEqual(new Set(["topK", "filter"]));
  });

  it("invoke validates and applies zod defaults before the call", () => {
    expect(retrieve.invoke({ text: "q" }, ctx)).toEqual({ text: "q", topK: 5 });
    expect(retrieve.invoke({ text: "q", topK: 9 }, ctx)).toEqual({ text: "q", topK: 9 });
  });

  it("a validation failure names the node and the input", () => {
    const error = errorOf(() => retrieve.invoke({ text: 42 }, ctx));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toMatch(/^Input 'text' of node 'retrieve' is invalid: /);
    expect(error.message).toContain("expected string");
  });

  it("validation follows renames: the message uses the public name", () => {
    const renamed = retrieve.withInputs({ text: "query" });
    expect(renamed.invoke({ query: "q" }, ctx)).toEqual({ text: "q", topK: 5 });
    expect(errorOf(() => renamed.invoke({ query: 1 }, ctx)).message).toMatch(
      /^Input 'query' of node 'retrieve' is invalid/,
    );
  });

  it("rejects a record entry that is not a zod schema", () => {
    const error = errorOf(() => node({ name: "n", inputs: { text: "string" as never } }, () => 1));
    expect(error._tag).toBe("GraphConfigError");
    expect(error.message).toContain("Input 'text' of node 'n' is not a zod schema.");
  });
});

describe("node(): inputs from a destructured first parameter", () => {
  const cases: readonly [label: string, source: string, names: string[], defaults: boolean[]][] = [
    ["arrow", "({ a, b }) => a + b", ["a", "b"], [false, false]],
    ["arrow with a default", "({ a, b = 1 }) => a + b", ["a", "b"], [false, true]],
    ["async function", "async function f({ a }) { return a; }", ["a"], [false]],
    ["generator", "function* g({ a }) { yield a; }", ["a"], [false]],
    ["async generator", "async function* h({a}) { yield a; }", ["a"], [false]],
    ["minified", "({a:e,b:t=1})=>e+t", ["a", "b"], [false, true]],
    ["quoted keys", `({ "quoted": q, 'single': s }) => q + s`, ["quoted", "single"], [false, false]],
    ["comments", "({ a /* not, b */, // c, d\n  e }) => a", ["a", "e"], [false, false]],
    [
      "defaults with commas, braces, arrows and strings",
      `({ a = { x: [1, 2] }, b = (x) => x, c = "a,b" }) => a`,
      ["a", "b", "c"],
      [true, true, true],
    ],
    ["template literal default", "({ a = `x${ {y: 1}.y },z`, b }) => a", ["a", "b"], [true, false]],
    [
      "URL string default (contains //)",
      `({ url = "https://example.com/a,b", retries = 3 }) => url`,
      ["url", "retries"],
      [true, true],
    ],
    ["regex literal default", "({ pattern = /[,)}]/g, flags }) => pattern", ["pattern", "flags"], [true, false]],
    ["ternary default", "({ a = x ? 1 : 2, b: alias = 3 }) => a", ["a", "b"], [true, true]],
    ["nested pattern", "({ a: { inner }, b }) => inner", ["a", "b"], [false, false]],
    ["pattern with a whole-object default and a ctx parameter", "({ a = 1 } = {}, ctx) => a", ["a"], [true]],
    ["trailing comma", "({ a, b, }) => a", ["a", "b"], [false, false]],
    ["comment before the pattern", "function f(/* inputs */ { a }) { return a; }", ["a"], [false]],
    ["no parameter", "() => 1", [], []],
  ];

  for (const [label, source, names, defaults] of cases) {
    it(label, () => {
      const n = node({ name: "n" }, fromSource<NodeFunction>(source));
      expect(n.inputs).toEqual(names);
      expect(names.map((name) => n.hasDefault(name))).toEqual(defaults);
    });
  }

  it("uses the function's name", () => {
    expect(node({}, fromSource("async function embed({ text }) { return text; }")).name).toBe("embed");
    const named = ({ q }: { q: string }) => q;
    expect(node({}, named).name).toBe("named");
  });

  it("a pattern default belongs to the function: defaultValue is undefined", () => {
    const n = node({ name: "n" }, fromSource("({ topK = 5 }) => topK"));
    expect(n.hasDefault("topK")).toBe(true);
    expect(n.defaultValue("topK")).toBeUndefined();
  });

  it("rejects a rest element", () => {
    const error = errorOf(() => node({ name: "n" }, fromSource("({ a, ...rest }) => a")));
    expect(error._tag).toBe("GraphConfigError");
    expect(error.message).toContain("Cannot read the inputs of node 'n': its pattern uses a rest element '...rest'");
    expect(error.message).toContain('pass inputs: ["a", "b"]');
  });

  it("rejects a rest parameter", () => {
    const error = errorOf(() => node({ name: "n" }, fromSource("(...args) => args")));
    expect(error.message).toContain("its first parameter is a rest parameter");
  });

  it("rejects a non-destructured parameter when inputs are not given", () => {
    const error = errorOf(() => node({ name: "n" }, fromSource("(input) => input.a")));
    expect(error._tag).toBe("GraphConfigError");
    expect(error.message).toContain("its first parameter 'input' is not destructured ({ a, b })");
    // ...and accepts it with explicit inputs.
    expect(node({ name: "n", inputs: ["a"] }, fromSource("(input) => input.a")).inputs).toEqual(["a"]);
  });

  it("rejects a computed key", () => {
    const error = errorOf(() => node({ name: "n" }, fromSource("({ [key]: value }) => value")));
    expect(error.message).toContain("its pattern uses a computed key '[key]: value'");
  });

  it("rejects a bound function (no source to read)", () => {
    const bound = fromSource<NodeFunction>("function f({ a }) { return a; }").bind(null);
    expect(errorOf(() => node({ name: "n" }, bound)).message).toContain("it is a native or bound function");
  });

  it("an anonymous function without a name option is an error asking for a name", () => {
    const error = errorOf(() => node({}, fromSource("({ a }) => a")));
    expect(error._tag).toBe("GraphConfigError");
    expect(error.message).toContain("A node needs a name, and its function is anonymous.");
    expect(error.message).toContain('pass { name: "…" }');
  });

  it("an empty name option is an error that says so", () => {
    const error = errorOf(() => node({ name: "" }, function f() {}));
    expect(error._tag).toBe("GraphConfigError");
    expect(error.message).toContain("A node was given an empty name.");
  });

  it("bad arguments are GraphConfigErrors, not crashes", () => {
    expect(errorOf(() => node(undefined as never, () => 1)).message).toContain(
      "node() expects an options object as its first argument, got undefined.",
    );
    expect(errorOf(() => node({ name: "n" }, 5 as never)).message).toBe(
      'node() expects a function as its second argument, got a number (5).\n  How to fix: node({ output: "x" }, ({ text }) => …).',
    );
  });
});

describe("node(): outputs", () => {
  it("one output stores the return value as-is (an array stays an array)", () => {
    const n = node({ name: "one", inputs: ["x"], output: "list" }, ({ x }) => [x, x]);
    expect(n.outputs).toEqual(["list"]);
    expect(n.collectOutputs([1, 2])).toEqual({ list: [1, 2] });
    expect(n.collectOutputs(undefined)).toEqual({ list: undefined });
  });

  it("no output: a side-effect node", () => {
    const log = node({ inputs: ["msg"] }, function log() {});
    expect(log.outputs).toEqual([]);
    expect(log.collectOutputs("ignored")).toEqual({});
    // output: [] declares no outputs too: whatever the function returns is ignored.
    const empty = node({ name: "empty", inputs: ["msg"], output: [] }, () => undefined);
    expect(empty.outputs).toEqual([]);
    expect(empty.collectOutputs(undefined)).toEqual({});
  });

  it("several outputs from an array of exactly that arity", () => {
    const split = node({ name: "split", inputs: ["x"], output: ["first", "second"] }, ({ x }) => [x, x + 1]);
    expect(split.collectOutputs([1, 2])).toEqual({ first: 1, second: 2 });
    const error = errorOf(() => split.collectOutputs([1, 2, 3]));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toMatch(/^Node 'split' has 2 outputs but returned 3 values/);
    expect(error.message).toContain("'first', 'second'");
  });

  it("several outputs from an object keyed by (original) output name", () => {
    const split = node({ name: "split", inputs: ["x"], output: ["first", "second"] }, ({ x }) => ({
      first: x,
      second: x,
    }));
    expect(split.collectOutputs({ first: 1, second: 2, extra: 3 })).toEqual({ first: 1, second: 2 });
    expect(split.withOutputs({ first: "head" }).collectOutputs({ first: 1, second: 2 })).toEqual({
      head: 1,
      second: 2,
    });
    expect(errorOf(() => split.collectOutputs({ first: 1 })).message).toBe(
      "Node 'split' has 2 outputs but its returned object lacks 'second'.",
    );
    expect(errorOf(() => split.collectOutputs(7)).message).toBe(
      "Node 'split' has 2 outputs and must return an array or an object keyed by output name, but returned number.",
    );
    expect(errorOf(() => split.collectOutputs(null)).message).toContain("but returned null.");
  });

  it("validates outputSchema (one schema, or one per output) and keeps the parsed value", () => {
    const one = node({ name: "one", inputs: ["x"], output: "n", outputSchema: z.coerce.number() }, ({ x }) => x);
    expect(one.collectOutputs("42")).toEqual({ n: 42 });
    const strict = node({ name: "strict", inputs: ["x"], output: "n", outputSchema: z.number() }, ({ x }) => x);
    const error = errorOf(() => strict.collectOutputs("no"));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toMatch(/^Output 'n' of node 'strict' does not match its outputSchema: /);
    const many = node({ name: "many", inputs: ["x"], output: ["a", "b"], outputSchema: { b: z.string() } }, ({ x }) => [
      x,
      x,
    ]);
    expect(many.collectOutputs([1, "s"])).toEqual({ a: 1, b: "s" });
    expect(errorOf(() => many.collectOutputs([1, 2])).message).toMatch(/^Output 'b' of node 'many'/);
  });

  it("outputValues: the same outputs as a list in output order (the scheduler's form), same errors", () => {
    const one = node({ name: "one", inputs: ["x"], output: "list" }, ({ x }) => [x]);
    const none = node({ name: "none", inputs: ["x"] }, () => undefined);
    const split = node({ name: "split", inputs: ["x"], output: ["first", "second"] }, ({ x }) => [x, x]);
    const renamed = split.withOutputs({ first: "head" });
    const parsed = node({ name: "parsed", inputs: ["x"], output: "n", outputSchema: z.coerce.number() }, ({ x }) => x);
    const cases: Array<[string, { outputValues(v: unknown): unknown[] }, unknown, unknown[]]> = [
      ["one output: the value as-is", one, [1, 2], [[1, 2]]],
      ["one output: undefined", one, undefined, [undefined]],
      ["no output", none, "ignored", []],
      ["an array of the outputs", split, [1, 2], [1, 2]],
      ["an object by original name", split, { second: 2, first: 1, extra: 3 }, [1, 2]],
      ["renamed outputs read the original names", renamed, { first: 1, second: 2 }, [1, 2]],
      ["the schema's parsed value", parsed, "42", [42]],
    ];
    for (const [what, n, returned, expected] of cases) expect(n.outputValues(returned), what).toEqual(expected);
    expect(errorOf(() => split.outputValues([1])).message).toMatch(/^Node 'split' has 2 outputs but returned 1 values/);
    expect(errorOf(() => split.outputValues({ first: 1 })).message).toBe(
      "Node 'split' has 2 outputs but its returned object lacks 'second'.",
    );
    expect(errorOf(() => parsed.outputValues("x")).message).toMatch(/^Output 'n' of node 'parsed' does not match/);
  });

  it("directCall: the function itself only when inputs pass through unchanged", () => {
    const fn = ({ x }: { x: number }) => x;
    const plain = node({ name: "plain", output: "y" }, fn);
    expect(plain.directCall).toBe(fn);
    expect(plain.withInputs({ x: "z" }).directCall).toBeUndefined();
    expect(node({ name: "typed", inputs: { x: z.number() }, output: "y" }, fn).directCall).toBeUndefined();
  });

  it("rejects outputSchema configurations that cannot match", () => {
    expect(errorOf(() => node({ name: "m", output: ["a", "b"], outputSchema: z.string() }, () => 1)).message).toBe(
      "Node 'm' has 2 outputs; give outputSchema as a record keyed by output name.",
    );
    expect(errorOf(() => node({ name: "m", output: ["a"], outputSchema: { c: z.string() } }, () => 1)).message).toBe(
      "Node 'm' has an outputSchema for 'c', which is not one of its outputs.",
    );
  });

  it("rejects a duplicate output", () => {
    const error = errorOf(() => node({ name: "dup", output: ["x", "x"] }, () => [1, 2]));
    expect(error._tag).toBe("GraphConfigError");
    expect(error.message).toContain("Node 'dup' declares output 'x' twice.");
  });
});

describe("node(): execution modes", () => {
  it("detects the four modes", () => {
    const sync = node({ name: "s" }, () => 1);
    const async_ = node({ name: "a" }, async () => 1);
    const gen = node({ name: "g" }, function* () {
      yield 1;
    });
    const asyncGen = node({ name: "ag" }, async function* () {
      yield 1;
    });
    expect([sync.mode, async_.mode, gen.mode, asyncGen.mode]).toEqual([
      "sync",
      "async",
      "sync-generator",
      "async-generator",
    ]);
    expect([sync.isAsync, async_.isAsync, gen.isAsync, asyncGen.isAsync]).toEqual([false, true, false, true]);
    expect([sync.isStreaming, async_.isStreaming, gen.isStreaming, asyncGen.isStreaming]).toEqual([
      false,
      false,
      true,
      true,
    ]);
  });

  it("invoke returns what the function returns (the runner drives promises and iterators)", async () => {
    const a = node({ name: "a", inputs: ["x"] }, async ({ x }) => x * 2);
    await expect(a.invoke({ x: 2 }, ctx) as Promise<number>).resolves.toBe(4);
    const g = node({ name: "g", inputs: ["x"] }, function* ({ x }) {
      yield x;
      return "done";
    });
    const iterator = g.invoke({ x: 1 }, ctx) as Generator<number, string>;
    expect([...iterator]).toEqual([1]);
  });

  it("passes the context as the second argument", () => {
    const n = node({ name: "n", inputs: [] }, (_inputs, c) => c.workflowId);
    expect(n.invoke({}, ctx)).toBe("w");
  });
});

describe("node(): names", () => {
  it.each([
    ["a/b", "it contains '/', which separates levels in result paths ('rag/docs')"],
    ["a.b", "it contains '.', which is reserved"],
    ["END", "'END' is reserved for the END routing sentinel"],
  ])("rejects node name %j", (name, reason) => {
    const error = errorOf(() => node({ name }, () => 1));
    expect(error._tag).toBe("GraphConfigError");
    expect(error.message).toContain(`Invalid node name '${name}' in node '${name}': ${reason}.`);
  });

  it("suggests a usable name", () => {
    expect(errorOf(() => node({ name: "rag/pipeline" }, () => 1)).message).toContain("(e.g. 'rag_pipeline')");
    expect(errorOf(() => node({ name: "END" }, () => 1)).message).toContain("(e.g. 'end_step')");
  });

  it.each(["a/b", "a.b", "END", ""])("rejects output name %j", (output) => {
    const error = errorOf(() => node({ name: "n", output }, () => 1));
    expect(error._tag).toBe("GraphConfigError");
    expect(error.message).toContain(`Invalid output name '${output}' in node 'n'`);
  });

  it("rejects bad input names too (they are value names)", () => {
    expect(errorOf(() => node({ name: "n", inputs: ["a.b"] }, () => 1)).message).toContain(
      "Invalid input name 'a.b' in node 'n'",
    );
    expect(errorOf(() => node({ name: "n", inputs: ["a", "a"] }, () => 1)).message).toContain(
      "Node 'n' declares input 'a' twice.",
    );
  });
});

describe("node(): other options", () => {
  it("keeps cache, retry and timeoutMs", () => {
    const retry = { attempts: 3, initialDelayMs: 10 };
    const n = node({ name: "n", cache: true, retry, timeoutMs: 500 }, () => 1);
    expect([n.cache, n.retry, n.timeoutMs]).toEqual([true, retry, 500]);
    expect(node({ name: "m" }, () => 1).cache).toBe(false);
  });

  it("validates retry.attempts and timeoutMs", () => {
    expect(errorOf(() => node({ name: "n", retry: { attempts: 0 } }, () => 1)).message).toBe(
      `Node 'n': option 'retry.attempts' must be an integer ≥ 1, got a number (0).\n  How to fix: retry: { attempts: 3, initialDelayMs: 100, backoff: "exponential" }.`,
    );
    expect(errorOf(() => node({ name: "n", timeoutMs: 0 }, () => 1)).message).toBe(
      "Node 'n': option 'timeoutMs' must be a number of milliseconds > 0 and ≤ 2147483647, got a number (0).\n  How to fix: timeoutMs: 30_000.",
    );
  });
});

describe("node(): concurrency", () => {
  it("keeps a plain or keyed limit, outside the definition hash", () => {
    const key = ({ tenantId }: Record<string, unknown>) => String(tenantId);
    const plain = node({ name: "n", concurrency: 2 }, async function n() {
      return 1;
    });
    const keyed = node({ name: "n", concurrency: { key, limit: 3 } }, async function n() {
      return 1;
    });
    expect(plain.concurrency).toBe(2);
    expect(keyed.concurrency).toEqual({ key, limit: 3 });
    expect(
      node({ name: "n" }, async function n() {
        return 1;
      }).concurrency,
    ).toBeUndefined();
    expect(plain.definitionHash).toBe(keyed.definitionHash);
    expect(plain.withName("m").concurrency).toBe(2);
  });

  it("names what is wrong and how to write it", () => {
    const how =
      "How to fix: concurrency: 2, or concurrency: { key: ({ tenantId }) => tenantId, limit: 2 } for a limit per key.";
    expect(errorOf(() => node({ name: "n", concurrency: 0 }, () => 1)).message).toBe(
      `Node 'n': option 'concurrency' must be an integer ≥ 1, got a number (0).\n  ${how}`,
    );
    expect(
      errorOf(() => node({ name: "n", concurrency: { key: "tenantId", limit: 2 } as never }, () => 1)).message,
    ).toBe(
      `Node 'n': option 'concurrency.key' must be a function of the node's inputs, got a string ('tenantId').\n  ${how}`,
    );
    expect(errorOf(() => node({ name: "n", concurrency: { key: () => "a", limit: 1.5 } }, () => 1)).message).toContain(
      "option 'concurrency.limit' must be an integer ≥ 1, got a number (1.5).",
    );
    expect(
      errorOf(() => node({ name: "n", concurrency: { key: () => "a", limit: 1, per: "1m" } as never }, () => 1))
        .message,
    ).toContain("option 'concurrency.per' must be absent (the options are key, limit and scope)");
    expect(errorOf(() => node({ name: "n", concurrency: "2" as never }, () => 1))._tag).toBe("GraphConfigError");
  });
});

describe("node(): rateLimit", () => {
  it("keeps the window in milliseconds and refuses bad limits with how to write one", () => {
    const n = node({ name: "n", rateLimit: { limit: 60, per: "1m", scope: "openai" } }, async function n() {
      return 1;
    });
    expect(n.rateLimit).toEqual({ limit: 60, per: 60_000, scope: "openai" });
    expect(errorOf(() => node({ name: "n", rateLimit: { limit: 0, per: "1s" } }, () => 1)).message).toContain(
      "option 'rateLimit.limit' must be an integer ≥ 1, got a number (0).",
    );
    const noWindow = errorOf(() => node({ name: "n", rateLimit: { limit: 5 } as never }, () => 1));
    expect(noWindow.message).toContain('option \'rateLimit.per\' must be a window such as "1s" or "1m"');
    expect(noWindow.message).toContain('How to fix: rateLimit: { limit: 60, per: "1m" }');
    const badWindow = errorOf(() => node({ name: "n", rateLimit: { limit: 5, per: "soon" as never } }, () => 1));
    expect(badWindow._tag).toBe("GraphConfigError");
    expect(badWindow.message).toContain("rate limit window of node 'n'");
    expect(
      errorOf(() => node({ name: "n", rateLimit: { limit: 5, per: "1s", scope: "" } }, () => 1)).message,
    ).toContain("option 'rateLimit.scope' must be a non-empty string (nodes with the same scope share the limit)");
  });
});

describe("FunctionNode.definitionHash", () => {
  it("is a sha256 hex, equal for equal definitions", () => {
    const make = () => node({ name: "n", inputs: ["x"], output: "y" }, fromSource("({ x }) => x + 1"));
    expect(make().definitionHash).toMatch(/^[0-9a-f]{64}$/);
    expect(make().definitionHash).toBe(make().definitionHash);
  });

  it("changes with the source, the configuration and the schemas", () => {
    const base = node({ name: "n", inputs: ["x"], output: "y" }, fromSource("({ x }) => x + 1"));
    const variants = [
      node({ name: "n", inputs: ["x"], output: "y" }, fromSource("({ x }) => x + 2")),
      node({ name: "m", inputs: ["x"], output: "y" }, fromSource("({ x }) => x + 1")),
      node({ name: "n", inputs: ["x"], output: "z" }, fromSource("({ x }) => x + 1")),
      node({ name: "n", inputs: ["x"], output: "y", cache: true }, fromSource("({ x }) => x + 1")),
      node({ name: "n", inputs: ["x"], output: "y", defaults: { x: 1 } }, fromSource("({ x }) => x + 1")),
    ];
    for (const v of variants) expect(v.definitionHash).not.toBe(base.definitionHash);
    const withDefault = (d: number) =>
      node({ name: "n", inputs: { k: z.number().default(d) } }, fromSource("({ k }) => k"));
    expect(withDefault(5).definitionHash).toBe(withDefault(5).definitionHash);
    expect(withDefault(5).definitionHash).not.toBe(withDefault(10).definitionHash);
    const withOutputSchema = (s: z.ZodType) => node({ name: "n", output: "o", outputSchema: s }, fromSource("() => 1"));
    expect(withOutputSchema(z.number()).definitionHash).not.toBe(withOutputSchema(z.string()).definitionHash);
  });

  it("hashes shared default values in full (not as a cycle) and survives an invalid Date", () => {
    const shared = { deep: [1, 2, 3] };
    const a = node({ name: "n", inputs: ["x", "y"], defaults: { x: shared, y: shared } }, () => 1);
    const b = node(
      { name: "n", inputs: ["x", "y"], defaults: { x: { deep: [1, 2, 3] }, y: { deep: [1, 2, 3] } } },
      () => 1,
    );
    expect(a.definitionHash).toBe(b.definitionHash);
    expect(node({ name: "n", inputs: ["d"], defaults: { d: new Date(Number.NaN) } }, () => 1).definitionHash).toMatch(
      /^[0-9a-f]{64}$/,
    );
  });
});
