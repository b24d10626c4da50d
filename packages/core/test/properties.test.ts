import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type AnyNode, closestName, END, Graph, isGraphConfigError, node, route, type Target } from "../src/index.js";
import { editDistance } from "../src/internal/suggest.js";
import { ctx, fromSource } from "./helpers.js";

const RESERVED = new Set(
  (
    "break case catch class const continue debugger default delete do else enum export extends false finally for function if import in " +
    "instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface package " +
    "private protected public await async arguments eval undefined NaN Infinity END"
  ).split(" "),
);

const identifier = fc.stringMatching(/^[A-Za-z_$][A-Za-z0-9_$]{0,7}$/).filter((s) => !RESERVED.has(s));

/** Default-value expressions that contain every character the parser must not split on. */
const defaultExpression = fc.constantFrom(
  "1",
  '"a,b"',
  "'}'",
  "{ x: [1, 2] }",
  "(x) => x",
  "x => ({ y: 1 })",
  "[1, [2, 3]]",
  "`t${1},${ {a: 2}.a }`",
  '"http://example.com/a,b"',
  "/[,)}]/g",
  "c ? 1 : 2",
  "a >= 2",
  "(1, 2)",
  "null",
);

interface Param {
  readonly hasDefault: boolean;
  readonly expression: string;
  readonly quoted: boolean;
  readonly comment: boolean;
}

const param: fc.Arbitrary<Param> = fc.record({
  hasDefault: fc.boolean(),
  expression: defaultExpression,
  quoted: fc.boolean(),
  comment: fc.boolean(),
});

/** Renders a destructuring pattern for the given names, in normal or minified form. */
function renderPattern(names: readonly string[], params: readonly Param[], minified: boolean): string {
  const entries = names.map((name, i) => {
    const p = params[i]!;
    const key = p.quoted ? JSON.stringify(name) : name;
    const comment = p.comment ? "/* a, b = { */ " : "";
    if (minified) return `${key}:v${i}${p.hasDefault ? `=${p.expression}` : ""}`;
    // A quoted key needs a local binding name.
    const binding = p.quoted ? `${key}: v${i}` : key;
    return `${comment}${binding}${p.hasDefault ? ` = ${p.expression}` : ""}`;
  });
  return minified ? `{${entries.join(",")}}` : `{ ${entries.join(", ")} }`;
}

const wrappers: readonly ((pattern: string) => string)[] = [
  (p) => `(${p}) => 0`,
  (p) => `(${p})=>0`,
  (p) => `async (${p}) => 0`,
  (p) => `(${p}, ctx) => 0`,
  (p) => `function f(${p}) { return 0; }`,
  (p) => `async function f(${p}) { return 0; }`,
  (p) => `function* f(${p}) { yield 0; }`,
  (p) => `async function* f(${p}) { yield 0; }`,
  (p) => `function f(${p} = {}, ctx) { return 0; }`,
];

describe("property: the destructuring parser", () => {
  it("reads exactly the destructured names and which have defaults, in every form", () => {
    fc.assert(
      fc.property(
        fc
          .uniqueArray(identifier, { minLength: 0, maxLength: 6 })
          .chain((names) =>
            fc.tuple(
              fc.constant(names),
              fc.array(param, { minLength: names.length, maxLength: names.length }),
              fc.boolean(),
              fc.nat(wrappers.length - 1),
            ),
          ),
        ([names, params, minified, wrapperIndex]) => {
          const source = wrappers[wrapperIndex]!(renderPattern(names, params, minified));
          const n = node({ name: "n" }, fromSource(source));
          expect(n.inputs).toEqual(names);
          expect(names.map((name) => n.hasDefault(name))).toEqual(params.map((p) => p.hasDefault));
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe("property: closestName", () => {
  const limitFor = (name: string, candidate: string) =>
    Math.max(2, Math.ceil(Math.max(name.length, candidate.length) / 3));

  it("never suggests something farther than its limit, and only a candidate", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 12 }),
        fc.array(fc.string({ maxLength: 12 }), { maxLength: 8 }),
        (name, candidates) => {
          const best = closestName(name, candidates);
          if (best === undefined) return;
          expect(candidates).toContain(best);
          expect(editDistance(name.toLowerCase(), best.toLowerCase())).toBeLessThanOrEqual(limitFor(name, best));
          // It is the closest: nothing is strictly nearer.
          for (const c of candidates)
            expect(editDistance(name.toLowerCase(), c.toLowerCase())).toBeGreaterThanOrEqual(
              editDistance(name.toLowerCase(), best.toLowerCase()),
            );
        },
      ),
    );
  });

  it("finds a one-edit typo of a candidate", () => {
    fc.assert(
      fc.property(
        identifier.filter((s) => s.length >= 3),
        fc.nat(),
        (word, position) => {
          const i = position % word.length;
          const typo = word.slice(0, i) + word.slice(i + 1); // one deletion
          expect(
            editDistance(typo.toLowerCase(), closestName(typo, [word])?.toLowerCase() ?? "\u0000".repeat(99)),
          ).toBeLessThanOrEqual(1);
        },
      ),
    );
  });

  it("editDistance is a metric on small strings", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), (a, b, c) => {
        expect(editDistance(a, a)).toBe(0);
        expect(editDistance(a, b)).toBe(editDistance(b, a));
        expect(editDistance(a, c)).toBeLessThanOrEqual(editDistance(a, b) + editDistance(b, c));
      }),
    );
  });
});

describe("property: renames", () => {
  const namesAndPermutation = fc
    .uniqueArray(identifier, { minLength: 1, maxLength: 6 })
    .chain((names) =>
      fc.tuple(fc.constant(names), fc.shuffledSubarray(names, { minLength: names.length, maxLength: names.length })),
    );

  it("a permutation rename then its inverse restores the inputs, the wiring to the function and the hash", () => {
    fc.assert(
      fc.property(namesAndPermutation, ([names, permuted]) => {
        const original = node({ name: "n", inputs: names }, (args: Record<string, unknown>) => args);
        const forward = Object.fromEntries(names.map((name, i) => [name, permuted[i]!]));
        const inverse = Object.fromEntries(names.map((name, i) => [permuted[i]!, name]));
        const renamed = original.withInputs(forward);
        expect(renamed.inputs).toEqual(names.map((name) => forward[name]));
        const values = Object.fromEntries(names.map((name, i) => [name, i]));
        // The function sees its own names: the value supplied under the public name lands on the original one.
        const publicValues = Object.fromEntries(names.map((name) => [forward[name]!, values[name]]));
        expect(renamed.invoke(publicValues, ctx)).toEqual(values);
        const restored = renamed.withInputs(inverse);
        expect(restored.inputs).toEqual(names);
        expect(restored.invoke(values, ctx)).toEqual(values);
        expect(restored.definitionHash).toBe(original.definitionHash);
        expect(original.inputs).toEqual(names);
      }),
    );
  });

  it("the same holds for outputs", () => {
    fc.assert(
      fc.property(namesAndPermutation, ([names, permuted]) => {
        const original = node({ name: "n", output: names }, () => names.map((_, i) => i));
        const forward = Object.fromEntries(names.map((name, i) => [name, permuted[i]!]));
        const inverse = Object.fromEntries(names.map((name, i) => [permuted[i]!, name]));
        const renamed = original.withOutputs(forward);
        expect(renamed.collectOutputs(names.map((_, i) => i))).toEqual(
          Object.fromEntries(names.map((name, i) => [forward[name]!, i])),
        );
        expect(renamed.withOutputs(inverse).outputs).toEqual(names);
      }),
    );
  });
});

describe("property: building random graphs", () => {
  const VALUES = ["a", "b", "c", "d", "e"];
  const nodeSpec = fc.record({
    // Mostly gates, so that cycles of closed gates (deadlocks) and gate chains come up often.
    gate: fc.nat(3).map((n) => n > 0),
    inputs: fc.uniqueArray(fc.constantFrom(...VALUES), { maxLength: 3 }),
    outputs: fc.uniqueArray(fc.constantFrom(...VALUES), { maxLength: 2 }),
    targets: fc.uniqueArray(fc.nat(5), { minLength: 1, maxLength: 3 }),
    end: fc.boolean(),
    defaultOpen: fc.boolean(),
    multiTarget: fc.boolean(),
  });

  it("either builds a consistent graph or throws a GraphConfigError — never a crash", () => {
    fc.assert(
      fc.property(
        fc.array(nodeSpec, { minLength: 1, maxLength: 6 }),
        fc.option(fc.nat(5), { nil: undefined }),
        (specs, entry) => {
          const names = specs.map((_, i) => `n${i}`);
          let graph: Graph;
          try {
            const nodes: AnyNode[] = specs.map((s, i) => {
              if (!s.gate)
                return node({ name: names[i]!, inputs: s.inputs, output: s.outputs }, () => s.outputs.map(() => 1));
              const targets: Target[] = s.targets.map((t) => names[t % names.length]!);
              if (s.end) targets.push(END);
              return route(
                { name: names[i]!, inputs: s.inputs, targets, defaultOpen: s.defaultOpen, multiTarget: s.multiTarget },
                () => undefined,
              );
            });
            graph = new Graph(nodes, entry === undefined ? {} : { entrypoint: names[entry % names.length]! });
          } catch (error) {
            if (!isGraphConfigError(error)) throw error;
            return;
          }
          const { required, optional, seeds, all } = graph.inputs;
          expect(new Set([...required, ...optional, ...seeds])).toEqual(all);
          expect(required.size + optional.size + seeds.size).toBe(all.size);
          for (const c of graph.analysis.cyclic) expect(graph.analysis.entries.get(c)?.length ?? 0).toBeGreaterThan(0);
          for (const s of seeds) expect(graph.analysis.seedValues.has(s)).toBe(true);
          expect(graph.toMermaid().startsWith("flowchart TD")).toBe(true);
          expect(graph.definitionHash).toMatch(/^[0-9a-f]{64}$/);
          // Rebuilding from the same nodes gives the same graph.
          expect(new Graph([...graph.nodes.values()], { entrypoint: graph.entrypoint }).definitionHash).toBe(
            graph.definitionHash,
          );
        },
      ),
      { numRuns: 500 },
    );
  });
});
