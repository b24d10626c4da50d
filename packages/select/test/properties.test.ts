import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compile, isSelectPatternError, SelectPatternError, selectTree } from "../src/index.js";

// ---------------------------------------------------------------------------------------------------------------
// Arbitraries. A small alphabet makes names collide often, so patterns actually hit tree paths.

const nameChar = fc.constantFrom("a", "b", "c", "_");
const name = fc.string({ unit: nameChar, minLength: 1, maxLength: 3 });
/** Names as they appear in trees: anything without "/" (including "", "*", ".", "__proto__"). */
const treeKey = fc.oneof(
  { weight: 5, arbitrary: name },
  { weight: 1, arbitrary: fc.constantFrom("", "*", "a.b", "__proto__", "constructor", "0", "10", "a b") },
);

type Tree = { [key: string]: Tree | Leaf };
type Leaf = number | string | boolean | null | readonly number[];

const leaf: fc.Arbitrary<Leaf> = fc.oneof(
  fc.integer(),
  fc.string({ maxLength: 3 }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 2 }),
);

const { tree } = fc.letrec<{ tree: Tree; node: Tree | Leaf }>((tie) => ({
  tree: fc.dictionary(treeKey, tie("node"), { maxKeys: 4 }),
  node: fc.oneof({ depthSize: "small", withCrossShrink: true }, leaf, tie("tree")),
}));

/** A valid segment: `**`, `*`, a name, or a name with single `*` wildcards. */
const segment = fc.oneof(
  { weight: 1, arbitrary: fc.constant("**") },
  { weight: 1, arbitrary: fc.constant("*") },
  { weight: 4, arbitrary: name },
  {
    weight: 2,
    arbitrary: fc
      .array(fc.oneof(name, fc.constant("*")), { minLength: 2, maxLength: 4 })
      .map((parts) => parts.join("").replace(/\*+/g, "*"))
      .filter((text) => text !== "**"),
  },
);
const validPattern = fc.array(segment, { minLength: 1, maxLength: 4 }).map((segments) => segments.join("/"));
const patterns = fc.array(validPattern, { minLength: 0, maxLength: 4 });

/** A valid pattern with exactly one kind of fault injected. */
const invalidPattern = fc.oneof(
  fc.constant(""),
  validPattern.map((p) => `/${p}`),
  validPattern.map((p) => `${p}/`),
  fc.tuple(validPattern, validPattern).map(([a, b]) => `${a}//${b}`),
  fc.tuple(validPattern, fc.constantFrom("***", "**a", "a**", "a**b", "****")).map(([p, bad]) => `${p}/${bad}`),
  fc
    .tuple(
      validPattern,
      fc.nat(),
      fc.constantFrom(".", "\\", "[", "]", "{", "}", "?", "!", "\n", "\u0000", "\u007f", "\u0085"),
    )
    .map(([p, at, bad]) => {
      const i = at % (p.length + 1);
      return p.slice(0, i) + bad + p.slice(i);
    }),
);

// ---------------------------------------------------------------------------------------------------------------
// Reference semantics, written the obvious (exponential, backtracking) way — fine for tiny inputs.

function segmentMatches(segment: string, key: string): boolean {
  if (!segment.includes("*")) return segment === key;
  const escaped = segment.split("*").map((part) => part.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&"));
  return new RegExp(`^${escaped.join(".*")}$`, "s").test(key);
}

function referenceMatches(segments: readonly string[], path: readonly string[]): boolean {
  if (segments.length === 0) return path.length === 0;
  const [head, ...rest] = segments as [string, ...string[]];
  if (head === "**") {
    for (let skip = 0; skip <= path.length; skip++) if (referenceMatches(rest, path.slice(skip))) return true;
    return false;
  }
  return path.length > 0 && segmentMatches(head, path[0] as string) && referenceMatches(rest, path.slice(1));
}

const isTree = (value: unknown): value is Tree => typeof value === "object" && value !== null && !Array.isArray(value);

/** Every path in `t`: to nested trees and to leaves, each with its value. */
function allPaths(t: Tree, prefix: readonly string[] = []): Array<{ path: string[]; value: unknown }> {
  return Object.keys(t).flatMap((key) => {
    const value = Object.getOwnPropertyDescriptor(t, key)?.value as unknown;
    const path = [...prefix, key];
    return [{ path, value }, ...(isTree(value) ? allPaths(value, path) : [])];
  });
}

/** Paths to leaves and to empty trees: the values a selection keeps or drops. */
function terminalPaths(t: Tree): Array<{ path: string[]; value: unknown }> {
  return allPaths(t).filter(({ value }) => !isTree(value) || Object.keys(value).length === 0);
}

function lookup(t: unknown, path: readonly string[]): { found: boolean; value?: unknown } {
  let current = t;
  for (const key of path) {
    if (!isTree(current) || !Object.hasOwn(current, key)) return { found: false };
    current = Object.getOwnPropertyDescriptor(current, key)?.value as unknown;
  }
  return { found: true, value: current };
}

// ---------------------------------------------------------------------------------------------------------------

describe("properties", () => {
  it("`**` selects everything", () => {
    fc.assert(
      fc.property(tree, (t) => {
        expect(selectTree(t, "**")).toStrictEqual(t);
      }),
    );
  });

  it("selecting twice equals selecting once", () => {
    // Compared through `shape`: vitest's toStrictEqual reads `.constructor` to compare types, which a tree with an
    // own "constructor" key (a prototype-less record here) answers with its own child — two equal copies then
    // differ by identity.
    const shape = (value: unknown): unknown => {
      if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
      const prototype = Object.getPrototypeOf(value) === null ? "null" : "object";
      return { prototype, entries: Object.entries(value).map(([key, child]) => [key, shape(child)]) };
    };
    fc.assert(
      fc.property(tree, patterns, (t, ps) => {
        const once = selectTree(t, ps);
        expect(shape(selectTree(once, ps))).toStrictEqual(shape(once));
      }),
    );
  });

  it("`a/*` never matches `a/b/c`, for any names", () => {
    const anyName = fc.string({ minLength: 1 }).filter((s) => !/[/.\\[\]{}?!*\u0000-\u001f\u007f-\u009f]/.test(s));
    fc.assert(
      fc.property(anyName, fc.string(), fc.string(), fc.array(fc.string()), (a, b, c, more) => {
        const matcher = compile(`${a}/*`);
        expect(matcher.matches([a, b, c, ...more])).toBe(false);
        expect(matcher.matches([a, b])).toBe(true);
      }),
    );
  });

  it("the matcher agrees with a naive backtracking reference", () => {
    const randomPath = fc.array(fc.oneof(name, fc.constantFrom("", "*", "ab*")), { maxLength: 5 });
    // Paths built from a pattern (each `*` and `**` filled in at random) so that matches are common, then
    // perturbed by a random edit so that near-misses are common too.
    const nearPath = (pattern: string): fc.Arbitrary<string[]> =>
      fc
        .tuple(
          fc.infiniteStream(fc.oneof(fc.constant(""), name)),
          fc.infiniteStream(fc.nat({ max: 2 })),
          fc.nat(),
          fc.constantFrom("none", "append", "dropFirst", "dropLast"),
        )
        .map(([names, counts, at, perturb]) => {
          const path: string[] = [];
          for (const segment of pattern.split("/")) {
            if (segment === "**") {
              const count = counts.next().value as number;
              for (let i = 0; i < count; i++) path.push(names.next().value as string);
            } else {
              path.push(segment.split("*").join(names.next().value as string));
            }
          }
          if (perturb !== "none" && path.length > 0) {
            const i = at % path.length;
            const key = path[i] as string;
            if (perturb === "append") path[i] = `${key}a`;
            else path[i] = perturb === "dropFirst" ? key.slice(1) : key.slice(0, -1);
          }
          return path;
        });
    const patternsAndPath = patterns.chain((ps) =>
      fc.tuple(fc.constant(ps), ps.length === 0 ? randomPath : fc.oneof(randomPath, ...ps.map(nearPath))),
    );
    fc.assert(
      fc.property(patternsAndPath, ([ps, p]) => {
        const expected = ps.some((pattern) => referenceMatches(pattern.split("/"), p));
        expect(compile(ps).matches(p)).toBe(expected);
        // couldMatchBelow is exact: true iff some one-level-longer path through an arbitrary name could match
        // eventually — checked from the other side: if a longer path matches, it must have been true.
        const longer = [...p, "a", "b"];
        if (ps.some((pattern) => referenceMatches(pattern.split("/"), longer))) {
          expect(compile(ps).couldMatchBelow(p)).toBe(true);
          expect(compile(ps).couldMatchBelow([...p, "a"])).toBe(true);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it("a wildcard segment agrees with the reference on a two-letter alphabet", () => {
    const ab = fc.string({ unit: fc.constantFrom("a", "b"), maxLength: 6 });
    const wildcard = fc
      .array(fc.oneof(ab, fc.constant("*")), { minLength: 1, maxLength: 6 })
      .map((parts) => parts.join("").replace(/\*+/g, "*"))
      .filter((text) => text !== "" && text !== "**");
    fc.assert(
      fc.property(wildcard, ab, (pattern, key) => {
        expect(compile(pattern).matches([key])).toBe(segmentMatches(pattern, key));
      }),
      { numRuns: 2000 },
    );
  });

  it("a value is kept exactly when its path or an ancestor's path matches", () => {
    fc.assert(
      fc.property(tree, patterns, (t, ps) => {
        const matcher = compile(ps);
        const selected = selectTree(t, matcher);
        for (const { path, value } of terminalPaths(t)) {
          const kept = path.some((_, i) => matcher.matches(path.slice(0, i + 1)));
          const found = lookup(selected, path);
          expect(found.found).toBe(kept);
          if (kept) expect(Object.is(found.value, value) || isTree(value)).toBe(true);
        }
      }),
    );
  });

  it("a union of patterns selects a superset of each single pattern", () => {
    fc.assert(
      fc.property(tree, patterns, (t, ps) => {
        const union = selectTree(t, ps);
        for (const pattern of ps) {
          for (const { path } of allPaths(selectTree(t, pattern))) {
            expect(lookup(union, path).found).toBe(true);
          }
        }
      }),
    );
  });

  it("the selection is a subtree of the input", () => {
    fc.assert(
      fc.property(tree, patterns, (t, ps) => {
        const selected = selectTree(t, ps);
        for (const { path, value } of terminalPaths(selected)) {
          const original = lookup(t, path);
          expect(original.found).toBe(true);
          if (isTree(value)) expect(isTree(original.value)).toBe(true);
          else expect(Object.is(original.value, value)).toBe(true);
        }
        // …and only nested trees with something selected appear, except when matched whole.
        for (const { path, value } of allPaths(selected)) {
          if (isTree(value) && Object.keys(value).length === 0) {
            expect(Object.keys(lookup(t, path).value as Tree)).toEqual([]);
          }
        }
      }),
    );
  });

  it("key order is preserved", () => {
    fc.assert(
      fc.property(tree, patterns, (t, ps) => {
        const selected = selectTree(t, ps);
        for (const { path, value } of [{ path: [] as string[], value: selected as unknown }, ...allPaths(selected)]) {
          if (!isTree(value)) continue;
          const originalKeys = Object.keys(lookup(t, path).value as Tree);
          const keys = Object.keys(value);
          expect(originalKeys.filter((key) => keys.includes(key))).toEqual(keys);
        }
      }),
    );
  });

  it("compile accepts every generated valid pattern", () => {
    fc.assert(
      fc.property(patterns, (ps) => {
        expect(compile(ps).patterns).toEqual(ps);
      }),
    );
  });

  it("compile rejects every generated invalid pattern with a SelectPatternError", () => {
    fc.assert(
      fc.property(invalidPattern, validPattern, (bad, good) => {
        let thrown: unknown;
        try {
          compile([good, bad]);
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(SelectPatternError);
        const error = thrown as SelectPatternError;
        expect(error._tag).toBe("SelectPatternError");
        expect(error.pattern).toBe(bad);
        expect(error.position).toBeGreaterThanOrEqual(0);
        expect(error.position).toBeLessThanOrEqual(Math.max(0, bad.length - 1));
        expect(error.message).toContain(JSON.stringify(bad));
        expect(error.message).toContain("How to fix:");
      }),
    );
  });

  it("compile never throws anything but a SelectPatternError, whatever the string", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string(), fc.string({ unit: fc.constantFrom("*", "/", "a", ".", "?") }))),
        (ps) => {
          try {
            compile(ps);
          } catch (error) {
            expect(isSelectPatternError(error)).toBe(true);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it("a suggested fix is always a valid pattern", () => {
    fc.assert(
      fc.property(invalidPattern, (bad) => {
        try {
          compile(bad);
        } catch (error) {
          const suggestion = /Did you mean (".*")\?$/.exec((error as Error).message)?.[1];
          if (suggestion !== undefined) expect(() => compile(JSON.parse(suggestion) as string)).not.toThrow();
        }
      }),
    );
  });

  it("matching is linear: a pathological wildcard against long runs of one letter", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1_000, max: 50_000 }), (stars, length) => {
        const pattern = `${"*a".repeat(stars)}*b`;
        const input = "a".repeat(length);
        const matcher = compile(pattern);
        expect(matcher.matches(input)).toBe(false);
        expect(matcher.matches(`${input}b`)).toBe(length >= stars);
      }),
      { numRuns: 50 },
    );
  });
});

describe("deep trees", () => {
  // Past a few hundred levels selectTree walks with an explicit stack instead of recursion; both must agree.
  const WRAP = 450;
  const wrap = (t: unknown): unknown => {
    let out = t;
    for (let i = 0; i < WRAP; i++) out = { w: out };
    return out;
  };
  const unwrap = (t: unknown): unknown => {
    let out = t;
    for (let i = 0; i < WRAP; i++) {
      if (!isTree(out) || !Object.hasOwn(out, "w")) return undefined; // nothing selected
      out = out["w"];
    }
    return out;
  };
  const shape = (value: unknown): unknown => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
    const prototype = Object.getPrototypeOf(value) === null ? "null" : "object";
    return { prototype, entries: Object.entries(value).map(([key, child]) => [key, shape(child)]) };
  };
  const prefix = "w/".repeat(WRAP);

  it(`a tree nested ${WRAP} levels down selects exactly like the same tree at the top`, () => {
    fc.assert(
      fc.property(tree, patterns, (t, ps) => {
        const deep = unwrap(
          selectTree(
            wrap(t),
            ps.map((p) => prefix + p),
          ),
        );
        const shallow = selectTree(t, ps);
        if (deep === undefined) expect(Object.keys(shallow)).toEqual([]);
        else expect(shape(deep)).toStrictEqual(shape(shallow));
      }),
      { numRuns: 200 },
    );
  });
});
