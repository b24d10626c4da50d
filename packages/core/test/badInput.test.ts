// A bad-input fuzzer kept as a property test: random wrong values for every public builder and option of core.
// Whatever is thrown must be a tagged @graph error (never a raw TypeError/RangeError from inside core), and every
// graph that does build must render Mermaid text whose labels hold no raw markup.
import { isGraphError } from "@graph/errors";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { closestName, END, Graph, ifElse, interrupt, isGraphConfigError, node, route } from "../src/index.js";
import { errorOf } from "./helpers.js";

// FUZZ_SEED / FUZZ_RUNS explore further locally; the suite always runs the fixed seed.
const SEED = Number(process.env["FUZZ_SEED"] ?? 20_220_522);
const RUNS = Number(process.env["FUZZ_RUNS"] ?? 1_000);

// ---------------------------------------------------------------------------------------------------------------
// Bad values: everything an untyped caller (or a JSON config) could pass where a name, a list or an object goes.

const oddStrings = [
  "",
  " ",
  "a/b",
  "a.b",
  "END",
  "__proto__",
  "constructor",
  "toString",
  "<img src=x onerror=alert(1)>",
  'say "hi"',
  "a\nb",
  "tab\there",
  "\u0000",
  "\u007f",
  "\u0085",
  "\u2028",
  "\ud800",
  "`md`",
  "#quot;",
  "a&amp;b",
  "style:#fff;",
  "x".repeat(3_000),
];

const oddAtoms: readonly unknown[] = [
  undefined,
  null,
  true,
  false,
  0,
  -0,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  -1,
  1.5,
  2 ** 53,
  10n,
  Symbol("s"),
  Symbol.iterator,
  END,
  ...oddStrings,
  [],
  [null],
  [[]],
  [Symbol("in-array")],
  {},
  Object.create(null),
  { toString: 1, valueOf: 1 },
  new Date(0),
  new Map([["a", 1]]),
  new Set(["a"]),
  /re/,
  new Error("not a value"),
  () => 1,
  function named() {
    return 1;
  },
  async () => 1,
  function* gen() {
    yield 1;
  },
  Object.freeze(["a", "b"]),
  new Proxy({}, {}),
];

/**
 * A Proxy that throws on every operation (even Array.isArray): the most hostile "object" a caller can pass. Not in
 * the fuzzer's pool (fast-check itself can't copy one); the option bags are checked against it below.
 */
function revoked(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

const atom = fc.constantFrom(...oddAtoms);
const bad: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    { weight: 6, arbitrary: atom },
    { weight: 2, arbitrary: fc.string({ maxLength: 6 }) },
    { weight: 1, arbitrary: fc.double() },
    { weight: 1, arbitrary: fc.array(tie("value"), { maxLength: 3 }) },
    {
      weight: 1,
      arbitrary: fc.dictionary(fc.constantFrom("a", "b", "x", "__proto__", ""), tie("value"), { maxKeys: 3 }),
    },
  ),
})).value;

/** A value that is right half the time, so validation gets past the first check and reaches the deeper ones. */
const either = <T>(good: fc.Arbitrary<T>): fc.Arbitrary<unknown> => fc.oneof(good, bad);
const goodName = fc.constantFrom("a", "b", "x", "y", "step", "my-node", "n_1");
const name = either(goodName);
const nameList = either(fc.array(name, { maxLength: 3 }));

// ---------------------------------------------------------------------------------------------------------------
// Well-formed pieces the operations below are applied to.

const produce = node({ output: "x" }, function produce({ a }: { a: number }) {
  return a + 1;
});
const consume = node({ output: "y" }, function consume({ x }: { x: number }) {
  return x * 2;
});
const gate = route({ targets: ["consume", END] }, function gate({ x }: { x: number }) {
  return x > 1 ? "consume" : END;
});
const branch = ifElse({ whenTrue: "consume", whenFalse: END }, function branch({ x }: { x: number }) {
  return x > 1;
});
const approval = interrupt({ name: "approval", input: "y", response: "decision" });
const inner = new Graph([produce, consume], { name: "inner" });
const innerNode = inner.asNode();
const goodNodes = [produce, consume, gate, branch, approval, innerNode] as const;
const goodNode = fc.constantFrom(...goodNodes);

const goodFn = fc.constantFrom<unknown>(
  function f({ a }: { a: unknown }) {
    return a;
  },
  ({ x }: { x: unknown }) => x,
  async function g({ a }: { a: unknown }) {
    return a;
  },
  function* h({ a }: { a: unknown }) {
    yield a;
  },
);

const retry = either(
  fc.record(
    {
      attempts: either(fc.integer({ min: 1, max: 3 })),
      initialDelayMs: either(fc.nat(100)),
      maxDelayMs: either(fc.nat(1_000)),
      backoff: either(fc.constantFrom("exponential", "linear", "constant")),
      retryOn: either(fc.constant(() => true)),
    },
    { requiredKeys: ["attempts"] },
  ),
);

const nodeOptions = either(
  fc.record(
    {
      name,
      inputs: either(fc.oneof(fc.array(name, { maxLength: 3 }), fc.dictionary(goodName, bad, { maxKeys: 2 }))),
      output: either(fc.oneof(name, fc.array(name, { maxLength: 3 }))),
      defaults: either(fc.dictionary(goodName, bad, { maxKeys: 2 })),
      outputSchema: bad,
      cache: either(fc.boolean()),
      retry,
      timeoutMs: either(fc.integer({ min: 1, max: 1_000 })),
    },
    { requiredKeys: [] },
  ),
);

const target = either(fc.oneof(goodName, fc.constant(END)));
const routeOptions = either(
  fc.record(
    {
      targets: either(fc.array(target, { maxLength: 3 })),
      name,
      inputs: nameList,
      fallback: target,
      multiTarget: either(fc.boolean()),
      defaultOpen: either(fc.boolean()),
    },
    { requiredKeys: [] },
  ),
);
const ifElseOptions = either(
  fc.record(
    { whenTrue: target, whenFalse: target, name, inputs: nameList, defaultOpen: either(fc.boolean()) },
    { requiredKeys: [] },
  ),
);
const interruptOptions = either(
  fc.record({ name, input: name, response: name, handler: either(fc.constant(() => undefined)) }, { requiredKeys: [] }),
);
const edge = either(fc.tuple(name, name, fc.option(nameList, { nil: undefined })));
const graphOptions = either(
  fc.record(
    {
      name,
      strictTypes: either(fc.boolean()),
      completeOnStop: either(fc.boolean()),
      entrypoint: either(fc.oneof(name, nameList)),
      edges: either(fc.array(edge, { maxLength: 3 })),
    },
    { requiredKeys: [] },
  ),
);
const renames = either(fc.dictionary(fc.constantFrom("a", "x", "y", "decision", "zz"), name, { maxKeys: 2 }));
const bindValues = either(fc.dictionary(fc.constantFrom("a", "x", "b", "__proto__"), bad, { maxKeys: 2 }));

// ---------------------------------------------------------------------------------------------------------------
// Operations: each is one call a user could make, with its arguments drawn from the arbitraries above.

interface Op {
  readonly label: string;
  readonly run: () => unknown;
}

/** The builders as an untyped caller (plain JavaScript, a JSON config) sees them. */
const loose = (f: unknown) => f as (...args: unknown[]) => unknown;
type LooseNode = {
  withName(v: unknown): unknown;
  withInputs(v: unknown): unknown;
  withOutputs(v: unknown): unknown;
  readonly definitionHash: string;
};

/** An operation that prints as the call it makes, so a counterexample reads `withOutputs(<node consume>, null)`. */
function op(label: string, args: readonly unknown[], run: () => unknown): Op {
  return {
    label,
    run,
    [fc.toStringMethod]: () => `${label}(${args.map((a) => show(a)).join(", ")})`,
  } as Op;
}

function show(value: unknown): string {
  if (typeof value === "object" && value !== null && "nodeType" in value)
    return `<node ${String((value as unknown as { name: unknown }).name)}>`;
  return fc.stringify(value);
}

const operations: fc.Arbitrary<Op> = fc.oneof(
  fc.tuple(nodeOptions, either(goodFn)).map(([o, f]) => op("node", [o, f], () => loose(node)(o, f))),
  fc.tuple(routeOptions, either(goodFn)).map(([o, f]) => op("route", [o, f], () => loose(route)(o, f))),
  fc.tuple(ifElseOptions, either(goodFn)).map(([o, f]) => op("ifElse", [o, f], () => loose(ifElse)(o, f))),
  interruptOptions.map((o) => op("interrupt", [o], () => loose(interrupt)(o))),
  fc
    .tuple(either(fc.array(either(goodNode), { maxLength: 4 })), graphOptions)
    .map(([ns, o]) => op("new Graph", [ns, o], () => new Graph(ns as never, o as never))),
  fc.tuple(goodNode, name).map(([n, v]) => op("withName", [n, v], () => (n as LooseNode).withName(v))),
  fc.tuple(goodNode, renames).map(([n, r]) => op("withInputs", [n, r], () => (n as LooseNode).withInputs(r))),
  fc.tuple(goodNode, renames).map(([n, r]) => op("withOutputs", [n, r], () => (n as LooseNode).withOutputs(r))),
  bindValues.map((v) => op("bind", [v], () => inner.bind(v as never))),
  fc
    .array(either(fc.constantFrom("a", "x", "zz")), { maxLength: 3 })
    .map((keys) => op("unbind", keys, () => inner.bind({ a: 1 }).unbind(...(keys as never[])))),
  either(fc.record({ name, completeOnStop: either(fc.boolean()) }, { requiredKeys: [] })).map((o) =>
    op("asNode", [o], () => inner.asNode(o as never)),
  ),
  fc
    .tuple(either(fc.oneof(fc.constant("a"), fc.array(fc.constant("a"), { maxLength: 2 }))), bad)
    .map(([params, mode]) => op("mapOver", [params, mode], () => innerNode.mapOver(params as never, mode as never))),
  bad.map((mode) => op("mapOver(mode)", [mode], () => innerNode.mapOver("a", { mode } as never))),
  fc
    .tuple(bad, either(fc.array(either(goodName), { maxLength: 3 })))
    .map(([n, list]) => op("closestName", [n, list], () => loose(closestName)(n, list))),
  fc.tuple(name, name, name).map(([a, b, c]) =>
    // Valid wiring, names drawn from the bad pool: either a tagged refusal or Mermaid text that is safe.
    op("names → toMermaid", [a, b, c], () => {
      const first = node({ name: a as string, inputs: ["in"], output: "mid" }, ({ in: v }) => v);
      const second = node({ name: b as string, inputs: ["mid"], output: c as string }, ({ mid }) => mid);
      const graph = new Graph([first, second], { name: "g" });
      const nested = new Graph([graph.asNode({ name: "wrap" })]);
      return [graph.toMermaid(), nested.toMermaid()];
    }),
  ),
);

/** Inside a quoted Mermaid label: no raw markup characters, no quote but the closing one. */
function unsafeLabels(mermaid: string): string[] {
  const problems: string[] = [];
  for (const line of mermaid.split("\n")) {
    for (const match of line.matchAll(/"([^"]*)"/g)) {
      if (/[<>&`]/.test(match[1]!)) problems.push(line);
    }
    // Every quote must be paired: an odd number means a label's quote was not escaped.
    if ((line.match(/"/g) ?? []).length % 2 !== 0) problems.push(line);
  }
  return problems;
}

/** FUZZ_COLLECT=1 keeps going and lists every distinct problem at the end; otherwise the first one fails (and shrinks). */
function report(problems: readonly string[]): boolean {
  if (process.env["FUZZ_COLLECT"] !== undefined) return true;
  throw new Error(problems[problems.length - 1]);
}

describe("bad input to core's builders (fuzzed)", () => {
  it(`throws only tagged errors, and what builds renders safe Mermaid (${RUNS} cases, seed ${SEED})`, () => {
    const untagged: string[] = [];
    fc.assert(
      fc.property(operations, (op) => {
        let result: unknown;
        try {
          result = op.run();
          // What was built must also hash, render and nest without a raw error.
          if (result instanceof Graph) result = [result.definitionHash && result.toMermaid()];
          else if (typeof result === "object" && result !== null && "nodeType" in result) {
            const built = result as unknown as LooseNode;
            result = [built.definitionHash && new Graph([built as never]).toMermaid()];
          }
        } catch (error) {
          if (!isGraphError(error)) {
            untagged.push(`${op.label}: ${String(error).slice(0, 160)}`);
            return report(untagged);
          }
          expect(error.message.length).toBeGreaterThan(0);
          return true;
        }
        if (Array.isArray(result) && typeof result[0] === "string") {
          for (const text of result as string[]) {
            const problems = unsafeLabels(text);
            if (problems.length > 0) {
              untagged.push(`${op.label}: unsafe Mermaid ${problems.join(" | ")}`);
              return report(untagged);
            }
          }
        }
        return true;
      }),
      { seed: SEED, numRuns: RUNS },
    );
    expect([...new Set(untagged)]).toEqual([]);
  }, 20_000);
});

// ---------------------------------------------------------------------------------------------------------------
// The cases an outside fuzzer reported as raw built-in errors (issue 22, item 6), each pinned to its message.

describe("bad input reported by the audit: tagged errors that say what and how to fix", () => {
  const configError = (run: () => unknown) => {
    const error = errorOf(run);
    expect(isGraphConfigError(error)).toBe(true);
    return error;
  };

  it("mapOver with something that is not a name or a list of names", () => {
    expect(configError(() => innerNode.mapOver({} as never)).message).toBe(
      `GraphNode 'inner': mapOver takes an input name or an array of input names, got an object.\n` +
        `  → Inputs: 'a'\n` +
        `  How to fix: .mapOver("a") or .mapOver(["a"], { mode: "product" }).`,
    );
    expect(configError(() => innerNode.mapOver(7 as never)).message).toContain("got a number (7)");
    expect(configError(() => innerNode.mapOver([Object.create(null)] as never)).message).toContain("got an array");
    expect(configError(() => innerNode.mapOver("a", null as never)).message).toBe(
      `GraphNode 'inner': mapOver's second argument must be an options object ({ mode, concurrency }), got null.\n` +
        `  How to fix: .mapOver("a") or .mapOver(["a"], { mode: "product" }).`,
    );
    expect(configError(() => innerNode.mapOver("a", { mode: 1n } as never)).message).toContain(
      'mapOver mode must be "zip" or "product", got a bigint (1n).',
    );
  });

  it("unbind with a key that is not a string, or not an input", () => {
    const bound = inner.bind({ a: 1 });
    expect(configError(() => bound.unbind(Symbol("a") as never)).message).toBe(
      `unbind() takes input names as strings, got a symbol (Symbol(a)).\n` +
        `  → Bound inputs: 'a'\n` +
        `  How to fix: graph.unbind("model"), or graph.unbind() to remove every binding.`,
    );
    expect(configError(() => bound.unbind(Object.create(null) as never)).message).toContain("got an object");
    const typo = configError(() => bound.unbind("aa" as never));
    expect(typo.message).toBe(
      "Cannot unbind 'aa': it is not an input of this graph. Did you mean 'a'?\n  → Bound inputs: 'a'",
    );
    expect(typo["where"]).toBe("aa");
    // Unbinding an input that is not bound stays a no-op.
    expect(inner.unbind("a").inputs.bound).toEqual({});
  });

  it("withOutputs / withInputs with null, a non-object or a non-string new name", () => {
    expect(configError(() => consume.withOutputs(null as never)).message).toBe(
      `withOutputs() on node 'consume' expects an object of renames ({ old: "new" }), got null.\n  → Current outputs: 'y'`,
    );
    expect(configError(() => consume.withInputs(new Map([["x", "z"]]) as never)).message).toContain(
      'expects an object of renames ({ old: "new" }), got a Map.',
    );
    const error = configError(() => consume.withOutputs({ y: 5 } as never));
    expect(error.message).toBe(
      `withOutputs() on node 'consume' renames output 'y' to a number (5); a new name must be a string.\n  How to fix: withOutputs({ y: "y_2" }).`,
    );
    expect(error["where"]).toBe("consume");
  });

  it("node({ output: {} }) and other option shapes", () => {
    const f = ({ a }: { a: number }) => a;
    expect(configError(() => node({ name: "n", output: {} as never }, f)).message).toBe(
      `Node 'n': option 'output' must be an output name or an array of output names, got an object.\n` +
        `  How to fix: output: "answer" or output: ["first", "second"].`,
    );
    expect(configError(() => node({ name: "n", output: ["a", 1] as never }, f)).message).toContain(
      "option 'output' must be an output name or an array of output names, got an array.",
    );
    expect(configError(() => node({ name: "n", inputs: "a" as never }, f)).message).toContain(
      "The inputs of node 'n' must be an array of names or a record of zod schemas, got a string ('a').",
    );
    expect(configError(() => node({ name: "n", retry: null as never }, f)).message).toContain(
      "option 'retry' must be an object ({ attempts, … }), got null.",
    );
    expect(
      configError(() => node({ name: "n", retry: { attempts: 2, backoff: "fast" as never } }, f)).message,
    ).toContain(`option 'retry.backoff' must be "exponential", "linear" or "constant", got a string ('fast').`);
    expect(configError(() => node({ name: "n", timeoutMs: Symbol("t") as never }, f)).message).toContain(
      "option 'timeoutMs' must be a number of milliseconds > 0 and ≤ 2147483647, got a symbol (Symbol(t)).",
    );
    expect(configError(() => node({ name: "n", cache: "yes" as never }, f)).message).toContain(
      "option 'cache' must be true or false, got a string ('yes').",
    );
    expect(configError(() => node({ name: "n", outputSchema: { a: 5 } as never, output: "a" }, f)).message).toContain(
      "option 'outputSchema.a' must be a zod schema, got a number (5).",
    );
  });

  it("a symbol or an object without a prototype as a name", () => {
    expect(configError(() => new Graph([], { name: Symbol("g") as never })).message).toBe(
      `Invalid graph name in graph <a symbol (Symbol(g))>: expected a string, got a symbol (Symbol(g)).\n` +
        `  How to fix: name it with a string of letters, digits, '_' or '-' (e.g. 'my_graph').`,
    );
    expect(configError(() => produce.withName(Object.create(null))).message).toContain(
      "Invalid node name in node <an object>: expected a string, got an object.",
    );
    expect(configError(() => inner.asNode({ name: Symbol("n") as never })).message).toContain(
      "expected a string, got a symbol (Symbol(n))",
    );
  });

  it("gates and interrupts with no options object, or flags that are not booleans", () => {
    const f = ({ x }: { x: number }) => x > 1;
    expect(configError(() => ifElse(null as never, f)).message).toBe(
      `ifElse() expects an options object as its first argument, got null.\n` +
        `  How to fix: ifElse({ whenTrue: "fastPath", whenFalse: "fullRag" }, fn).`,
    );
    expect(configError(() => route({ targets: ["a"], multiTarget: 1 as never }, f)).message).toContain(
      "Gate 'f': option 'multiTarget' must be true or false, got a number (1).",
    );
    expect(configError(() => route({ targets: ["a"], fallback: Symbol("b") as never }, f)).message).toContain(
      "has fallback a symbol (Symbol(b)), which is not one of its targets",
    );
    expect(configError(() => interrupt(Symbol("i") as never)).message).toContain(
      "interrupt() needs an options object { name, input, response }, got a symbol (Symbol(i)).",
    );
  });

  it("new Graph: explicit edges of the wrong shape, flags, and node look-alikes", () => {
    expect(configError(() => new Graph([produce], { edges: [5] as never })).message).toBe(
      `Explicit edge 0 in this graph is not [from, to] or [from, to, ["value", …]] with node and value names as strings (got a number (5)).\n` +
        `  How to fix: edges: [["load", "process"], ["load", "report", ["summary"]]].`,
    );
    expect(
      configError(() => new Graph([produce], { edges: [["produce", "consume", "x"]] as never })).message,
    ).toContain("Explicit edge 0 in this graph is not [from, to]");
    expect(configError(() => new Graph([produce], { strictTypes: "yes" as never })).message).toContain(
      "new Graph(): option 'strictTypes' must be true or false, got a string ('yes').",
    );
    const lookalike = { name: "fake", nodeType: "function", inputs: [], outputs: [] };
    expect(configError(() => new Graph([lookalike as never])).message).toContain(
      "It looks like a node from another copy of @graph/core",
    );
    expect(configError(() => new Graph(new Array(2) as never)).message).toContain(
      "Item 0 of the node list is not a node (got undefined).",
    );
  });
});

describe("a revoked Proxy as an options object or rename map", () => {
  it("is refused with a GraphConfigError, not the Proxy's own TypeError", () => {
    const f = ({ x }: { x: number }) => x;
    for (const run of [
      () => loose(node)(revoked(), f),
      () => loose(route)(revoked(), f),
      () => loose(ifElse)(revoked(), f),
      () => loose(interrupt)(revoked()),
      () => new Graph([], revoked() as never),
      () => inner.bind(revoked() as never),
      () => inner.asNode(revoked() as never),
      () => consume.withInputs(revoked() as never),
      () => innerNode.mapOver("a", revoked() as never),
    ]) {
      const error = errorOf(run);
      expect(isGraphConfigError(error)).toBe(true);
      expect(error.message).toContain("got an object");
    }
  });
});

describe("names that can't be shown or stored are refused at build time", () => {
  const cases: Array<[string, string, string]> = [
    ["a\nb", "the control character U+000A (a newline), which can't be shown on one line at position 1", "'a_b'"],
    ["tab\there", "the control character U+0009 (a tab), which can't be shown on one line at position 3", "'tab_here'"],
    ["nul\u0000", "the control character U+0000, which can't be shown on one line at position 3", "'nul_'"],
    ["c1\u0085", "the control character U+0085, which can't be shown on one line at position 2", "'c1_'"],
    ["line\u2028", "the control character U+2028, which can't be shown on one line at position 4", "'line_'"],
    ["half\ud800", "a lone surrogate (U+D800), which does not survive UTF-8 storage at position 4", "'half_'"],
  ];
  it.each(cases)("%j", (bad, problem, suggestion) => {
    const error = errorOf(() => node({ name: bad, output: "x" }, () => 1));
    expect(isGraphConfigError(error)).toBe(true);
    expect(error.message).toContain(`: it contains ${problem}.`);
    expect(error.message).toContain(`How to fix: use letters, digits, '_' or '-' (e.g. ${suggestion}).`);
    // The message itself stays on one line per part: the name is shown with escapes, never raw.
    expect(error.message.split("\n")[0]).not.toContain(bad);
  });

  it("applies to every kind of name: node, graph, input, output, renames", () => {
    const f = ({ a }: { a: number }) => a;
    expect(errorOf(() => new Graph([], { name: "g\n" })).message).toContain(
      "Invalid graph name 'g\\n' in graph 'g\\n'",
    );
    expect(errorOf(() => loose(node)({ name: "n", inputs: ["a\r"] }, f)).message).toContain(
      "Invalid input name 'a\\u000d'",
    );
    expect(errorOf(() => node({ name: "n", output: "o\u007f" }, f)).message).toContain(
      "Invalid output name 'o\\u007f'",
    );
    expect(errorOf(() => produce.withOutputs({ x: "x\n" })).message).toContain("Invalid output name 'x\\n'");
    expect(errorOf(() => produce.withName("p\u0001")).message).toContain("Invalid node name 'p\\u0001'");
  });

  it("quotes, angle brackets and other printable characters stay allowed (Mermaid escapes them)", () => {
    const n = node({ name: '<img src=x onerror=alert(1)> "q" `b` #x; a&b: c', output: "o" }, () => 1);
    expect(n.name).toBe('<img src=x onerror=alert(1)> "q" `b` #x; a&b: c');
  });
});
