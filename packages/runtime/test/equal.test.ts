// The runtime's structural equality (is a re-supplied input a change?) against `util.isDeepStrictEqual`: the same
// answers on every value a checkpoint can hold, except invalid Dates, which only ours calls equal (Node 20).
import { isDeepStrictEqual } from "node:util";
import { defaultSerializer } from "@graph/checkpoint";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deepEqual } from "../src/internal/equal.js";

const key = fc.string({ maxLength: 3 });
/** Values of the checkpoint format (no invalid Date: that case is checked apart). */
const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.oneof(
      fc.integer({ min: -3, max: 3 }),
      fc.constantFrom(Number.NaN, -0, 0, Number.POSITIVE_INFINITY, 0.5),
      key,
      fc.boolean(),
      fc.constant(null),
      fc.constant(undefined),
      fc.bigInt({ min: -2n, max: 2n }),
      fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(3) }),
      fc.uint8Array({ maxLength: 2, max: 2 }).map((u) => new Uint8Array(u)),
    ),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(key, tie("value"), { maxKeys: 3, noNullPrototype: true }),
    fc
      .array(
        fc.tuple(
          fc.oneof(key, fc.dictionary(key, fc.integer({ min: 0, max: 2 }), { maxKeys: 2, noNullPrototype: true })),
          tie("value"),
        ),
        {
          maxLength: 3,
        },
      )
      .map((entries) => new Map(entries)),
    fc
      .array(fc.oneof(key, fc.dictionary(key, fc.integer({ min: 0, max: 2 }), { maxKeys: 2, noNullPrototype: true })), {
        maxLength: 3,
      })
      .map((items) => new Set(items)),
  ),
}));

const copy = (v: unknown) => defaultSerializer.deserialize(defaultSerializer.serialize(v));

describe("deepEqual", () => {
  it("a value equals its checkpointed copy, as isDeepStrictEqual says too", () => {
    fc.assert(
      fc.property(value, (v) => {
        const c = copy(v);
        expect(deepEqual(v, c)).toBe(true);
        expect(isDeepStrictEqual(v, c)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("gives isDeepStrictEqual's answer on any two values of the checkpoint format", () => {
    fc.assert(
      fc.property(value, value, (a, b) => {
        expect(deepEqual(a, b)).toBe(isDeepStrictEqual(a, b));
        expect(deepEqual(a, copy(b))).toBe(isDeepStrictEqual(a, copy(b)));
      }),
      { numRuns: 2000 },
    );
  });

  it("the cases the journal relies on", () => {
    const cases: Array<[unknown, unknown, boolean]> = [
      [Number.NaN, Number.NaN, true],
      [0, -0, false],
      [new Date(5), new Date(5), true],
      [new Date(5), new Date(6), false],
      [
        new Map([
          [{ id: 1 }, "a"],
          [{ id: 2 }, "b"],
        ]),
        new Map([
          [{ id: 2 }, "b"],
          [{ id: 1 }, "a"],
        ]),
        true,
      ],
      [new Map([[{ id: 1 }, "a"]]), new Map([[{ id: 1 }, "b"]]), false],
      [new Set([{ id: 1 }, { id: 2 }]), new Set([{ id: 2 }, { id: 1 }]), true],
      [new Set([{ id: 1 }, { id: 1 }]), new Set([{ id: 1 }, { id: 2 }]), false],
      [{ a: undefined }, {}, false],
      // A hole against its restored copy (undefined) is no change; against a value it is one.
      // biome-ignore lint/suspicious/noSparseArray: the hole is the point
      [[1, , 3], [1, undefined, 3], true],
      // biome-ignore lint/suspicious/noSparseArray: the hole is the point
      [[1, , 3], [1, 5, 3], false],
    ];
    for (const [a, b, same] of cases) expect([a, b, deepEqual(a, b)]).toEqual([a, b, same]);
    const x: Record<string, unknown> = { v: 1 };
    x.self = x;
    const y: Record<string, unknown> = { v: 1 };
    y.self = y;
    expect(deepEqual(x, y)).toBe(true);
  });

  it("two invalid Dates are equal (the checkpoint format stores them)", () => {
    expect(deepEqual({ at: new Date(Number.NaN) }, copy({ at: new Date(Number.NaN) }))).toBe(true);
  });

  // Why equal.ts is ours: the one case where the platform disagrees.
  it.runIf(process.versions.node.startsWith("20."))(
    "Node 20's isDeepStrictEqual calls two invalid Dates different",
    () => {
      expect(isDeepStrictEqual({ at: new Date(Number.NaN) }, copy({ at: new Date(Number.NaN) }))).toBe(false);
    },
  );
});
