// A bad-input fuzzer kept as a property test: random wrong values for every public function of @graph/select.
// Whatever is thrown must be a tagged @graph error, never a raw TypeError/RangeError from inside the package.
import { isGraphError } from "@graph/errors";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  compile,
  isSelectInputError,
  isSelectPatternError,
  plainObjectAdapter,
  runResultAdapter,
  type SelectInputError,
  type SelectPatternError,
  selectTree,
  type TreeAdapter,
} from "../src/index.js";

// FUZZ_SEED / FUZZ_RUNS explore further locally; the suite always runs the fixed seed.
const SEED = Number(process.env["FUZZ_SEED"] ?? 20_220_522);
const RUNS = Number(process.env["FUZZ_RUNS"] ?? 1_000);

const cyclic: Record<string, unknown> = { a: 1 };
cyclic["self"] = cyclic;

const oddAtoms: readonly unknown[] = [
  undefined,
  null,
  true,
  0,
  Number.NaN,
  -1,
  10n,
  Symbol("s"),
  "",
  "a",
  "a/b",
  "**",
  "a//b",
  "\u0000",
  "\ud800",
  [],
  [null],
  [Symbol("in-array")],
  {},
  Object.create(null),
  { cursor: 1 },
  { cursor: () => null },
  { children: 1, rebuild: 2 },
  { children: () => null, rebuild: () => null },
  { children: () => 5, rebuild: () => 5 },
  new Date(0),
  new Map([["a", 1]]),
  new Set(["a"]),
  () => 1,
  cyclic,
  { status: "completed", values: cyclic },
  { status: "completed", values: null },
  new Proxy({}, {}),
];

const bad: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    { weight: 6, arbitrary: fc.constantFrom(...oddAtoms) },
    { weight: 2, arbitrary: fc.string({ maxLength: 5 }) },
    { weight: 1, arbitrary: fc.array(tie("value"), { maxLength: 3 }) },
    {
      weight: 2,
      arbitrary: fc.dictionary(fc.constantFrom("a", "b", "values", "status", "__proto__"), tie("value"), {
        maxKeys: 3,
      }),
    },
  ),
})).value;

const either = <T>(good: fc.Arbitrary<T>): fc.Arbitrary<unknown> => fc.oneof(good, bad);
const pattern = fc.constantFrom("a", "a/b", "*", "**", "**/a", "a/*", "*/b", "values/*");
const patterns = either(fc.oneof(pattern, fc.array(either(pattern), { maxLength: 3 })));
const path = either(
  fc.oneof(fc.constantFrom("", "a", "a/b"), fc.array(either(fc.constantFrom("a", "b")), { maxLength: 3 })),
);
const adapter = either(fc.constantFrom(plainObjectAdapter, runResultAdapter));
const options = either(fc.record({ adapter }, { requiredKeys: [] }));

interface Op {
  readonly label: string;
  readonly run: () => unknown;
}

const loose = (f: unknown) => f as (...args: unknown[]) => unknown;
type LooseMatcher = { [K in "matches" | "couldMatchBelow" | "cursor"]: (path?: unknown) => unknown };
type LooseCursor = { child(name: unknown): unknown };

function op(label: string, args: readonly unknown[], run: () => unknown): Op {
  return { label, run, [fc.toStringMethod]: () => `${label}(${args.map((a) => fc.stringify(a)).join(", ")})` } as Op;
}

const matcher = compile(["a/b", "**/x", "c*d"]);

const operations: fc.Arbitrary<Op> = fc.oneof(
  patterns.map((p) => op("compile", [p], () => loose(compile)(p))),
  fc.tuple(bad, patterns, options).map(([t, p, o]) => op("selectTree", [t, p, o], () => loose(selectTree)(t, p, o))),
  fc
    .tuple(either(fc.dictionary(fc.constantFrom("a", "b", "x"), bad, { maxKeys: 3 })), patterns, options)
    .map(([t, p, o]) => op("selectTree(object)", [t, p, o], () => loose(selectTree)(t, p, o))),
  fc
    .tuple(fc.constantFrom("matches", "couldMatchBelow", "cursor") as fc.Arbitrary<keyof LooseMatcher>, path)
    .map(([method, p]) => op(`matcher.${method}`, [p], () => (matcher as unknown as LooseMatcher)[method](p))),
  fc
    .array(either(fc.constantFrom("a", "b", "cxd", "x")), { maxLength: 3 })
    .map((names) =>
      op("cursor.child", names, () => names.reduce((c, n) => (c as LooseCursor).child(n), matcher.cursor())),
    ),
  fc
    .tuple(fc.constantFrom(plainObjectAdapter, runResultAdapter), bad, bad)
    .map(([a, original, children]) =>
      op("adapter", [original, children], () => [a.children(original), loose(a.rebuild)(original, children)]),
    ),
);

/** FUZZ_COLLECT=1 keeps going and lists every distinct problem at the end; otherwise the first one fails (and shrinks). */
function report(problems: readonly string[]): boolean {
  if (process.env["FUZZ_COLLECT"] !== undefined) return true;
  throw new Error(problems[problems.length - 1]);
}

describe("bad input to @graph/select (fuzzed)", () => {
  it(`throws only tagged errors (${RUNS} cases, seed ${SEED})`, () => {
    const untagged: string[] = [];
    fc.assert(
      fc.property(operations, (op) => {
        try {
          op.run();
        } catch (error) {
          if (!isGraphError(error)) {
            untagged.push(`${op.label}: ${String(error).slice(0, 160)}`);
            return report(untagged);
          }
          expect(error.message.length).toBeGreaterThan(0);
        }
        return true;
      }),
      { seed: SEED, numRuns: RUNS },
    );
    expect([...new Set(untagged)]).toEqual([]);
  }, 20_000);
});

// ---------------------------------------------------------------------------------------------------------------
// Each kind of bad input the audit's fuzzer saw as a raw TypeError, pinned to its tagged error.

function inputError(run: () => unknown): SelectInputError {
  try {
    run();
  } catch (error) {
    expect(isSelectInputError(error)).toBe(true);
    return error as SelectInputError;
  }
  throw new Error("expected a SelectInputError, nothing was thrown");
}

describe("bad input to selectTree and matchers: tagged errors that say what and how to fix", () => {
  it("a tree that is not an object", () => {
    for (const tree of [undefined, null, 42, "answer", Symbol("t"), 10n, () => ({})]) {
      const error = inputError(() => selectTree(tree, "a"));
      expect(error.reason).toBe("TreeNotAnObject");
      expect(error.path).toEqual([]);
    }
    expect(inputError(() => selectTree(Symbol("t"), "a")).message).toBe(
      "selectTree: expected the tree to be an object, got a symbol (Symbol(t)).\n" +
        "How to fix: pass a result's values (or a RunResult with { adapter: runResultAdapter }); a single value has nothing to select from.",
    );
  });

  it("a cycle on the walked path names the path", () => {
    const error = inputError(() => selectTree({ x: { loop: cyclic } }, "**/nothing"));
    expect(error.reason).toBe("CyclicTree");
    expect(error.path).toEqual(["x", "loop", "self"]);
    expect(error.message).toBe(
      'selectTree: the tree contains a cycle at "x/loop/self"; results must be acyclic trees.\n' +
        "How to fix: remove the back-reference, or select a pattern that does not walk into it.",
    );
  });

  it("patterns that are neither patterns nor a Matcher", () => {
    for (const patterns of [undefined, null, 5, {}, new Set(["a"])]) {
      const error = (() => {
        try {
          selectTree({ a: 1 }, patterns as never);
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(isSelectPatternError(error)).toBe(true);
      expect((error as SelectPatternError).reason).toBe("NotAString");
    }
    expect(() => selectTree({}, null as never)).toThrow(
      "selectTree: expected a pattern string, an array of them, or a Matcher from compile(), got null.",
    );
  });

  it("options and adapters of the wrong shape", () => {
    const options = inputError(() => selectTree({}, "a", 5 as never));
    expect([options.reason, options.message.split("\n")[0]]).toEqual([
      "InvalidArgument",
      "selectTree: options must be an object ({ adapter }), got a number (5).",
    ]);
    const adapter = inputError(() => selectTree({}, "a", { adapter: { children: () => undefined } as never }));
    expect(adapter.reason).toBe("InvalidAdapter");
    expect(adapter.message).toContain(
      "the adapter option must have children(value) and rebuild(original, prunedChildren) functions, got an object.",
    );
    const nullChildren: TreeAdapter = {
      children: (v) => (v === 1 ? (null as never) : plainObjectAdapter.children(v)),
      rebuild: plainObjectAdapter.rebuild,
    };
    const returned = inputError(() => selectTree({ a: { b: 1 } }, "a/b/c", { adapter: nullChildren }));
    expect([returned.reason, returned.path]).toEqual(["InvalidAdapter", ["a", "b"]]);
    expect(returned.message).toContain(`the adapter's children() returned null for "a/b".`);
  });

  it("a hand-written matcher whose cursors are not cursors", () => {
    const noRoot = inputError(() => selectTree({ a: 1 }, { cursor: () => null } as never));
    expect([noRoot.reason, noRoot.message.split("\n")[0]]).toEqual([
      "InvalidMatcher",
      "selectTree: the matcher's cursor() returned null, not a MatchCursor ({ matched, canDescend, child(name) }).",
    ]);
    const brokenChild = { matched: false, canDescend: true, child: () => 7 };
    const error = inputError(() => selectTree({ a: 1 }, { cursor: () => brokenChild } as never));
    expect(error.message.split("\n")[0]).toBe(
      `selectTree: the matcher's child("a") returned a number (7), not a MatchCursor ({ matched, canDescend, child(name) }).`,
    );
  });

  it("paths and names that are not strings", () => {
    const matcher = compile("a/*");
    for (const run of [
      () => matcher.matches(null as never),
      () => matcher.couldMatchBelow(5 as never),
      () => matcher.cursor({} as never),
      () => matcher.matches(["a", 1] as never),
      () => matcher.cursor().child(Symbol("s") as never),
      () => matcher.cursor("zzz").child(null as never),
    ]) {
      expect(inputError(run).reason).toBe("InvalidPath");
    }
    expect(inputError(() => matcher.matches(["a", 1] as never)).message).toBe(
      'Invalid path: level 1 of the path is a number (1); a path is a string ("rag/docs") or an array of names (["rag", "docs"]).\n' +
        'How to fix: pass "" or [] for the root, "a/b" or ["a", "b"] below it (the array form when a name holds "/").',
    );
  });

  it("the built-in adapters' rebuild with non-objects", () => {
    for (const adapter of [plainObjectAdapter, runResultAdapter]) {
      expect(inputError(() => adapter.rebuild(null, {})).reason).toBe("InvalidArgument");
      expect(inputError(() => adapter.rebuild({}, 5 as never)).message).toContain(
        "'prunedChildren' must be an object, got a number (5).",
      );
    }
  });

  it("a tree 100,000 levels deep is walked without overflowing the stack", () => {
    const depth = 100_000;
    let tree: Record<string, unknown> = { leaf: "bottom" };
    for (let i = 0; i < depth; i++) tree = { down: tree, noise: i };
    const selected = selectTree(tree, "**/leaf");
    let node: unknown = selected;
    let levels = 0;
    let extraKeys = 0; // "noise" must be pruned at every level
    while (typeof node === "object" && node !== null && "down" in node) {
      if (Object.keys(node).length !== 1) extraKeys++;
      node = (node as { down: unknown }).down;
      levels++;
    }
    expect([levels, extraKeys, node]).toEqual([depth, 0, { leaf: "bottom" }]);
  });
});
