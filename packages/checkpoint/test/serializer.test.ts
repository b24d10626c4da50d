import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Serializer } from "../src/index.js";
import {
  type CheckpointError,
  defaultSerializer,
  deserializeStored,
  isCheckpointError,
  serializeStored,
} from "../src/index.js";

const roundTrip = (value: unknown): unknown => defaultSerializer.deserialize(defaultSerializer.serialize(value));

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

/** Keys that stress the codec: the escape key, prototype-ish names and odd characters. */
const keyArb = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 6 }) },
  { weight: 1, arbitrary: fc.constantFrom("$t", "v", "__proto__", "toString", "valueOf", "a b", "0", "") },
);

const leafArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.string(),
  fc.string({ unit: "grapheme" }),
  fc.double(), // includes NaN, ±Infinity and -0
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.bigInt(),
  fc.date(), // includes invalid dates
  fc.uint8Array({ maxLength: 8 }),
);

const valueArb: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leafArb,
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(keyArb, tie("value"), { maxKeys: 4, noNullPrototype: true }),
    fc.array(fc.tuple(tie("value"), tie("value")), { maxLength: 3 }).map((entries) => new Map(entries)),
    fc.array(tie("value"), { maxLength: 3 }).map((items) => new Set(items)),
    fc.dictionary(fc.constantFrom("$t", "v"), tie("value"), { minKeys: 1, noNullPrototype: true }),
  ),
})).value;

describe("defaultSerializer round trips", () => {
  it("round-trips arbitrary values built from the supported types exactly", () => {
    fc.assert(
      fc.property(valueArb, (value) => {
        expect(roundTrip(value)).toStrictEqual(value);
      }),
      { numRuns: 500 },
    );
  });

  it("round-trips fc.anything with dates, maps, sets and bigints", () => {
    fc.assert(
      fc.property(
        fc.anything({
          withBigInt: true,
          withDate: true,
          withMap: true,
          withSet: true,
          withNullPrototype: false,
          withBoxedValues: false,
          withTypedArray: false,
          withSparseArray: false,
          withObjectString: true,
          withUnicodeString: true,
        }),
        (value) => {
          expect(roundTrip(value)).toStrictEqual(value);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("produces JSON text", () => {
    fc.assert(
      fc.property(valueArb, (value) => {
        expect(() => JSON.parse(defaultSerializer.serialize(value))).not.toThrow();
      }),
      { numRuns: 100 },
    );
  });

  it("keeps undefined as a present property and as an array item", () => {
    const back = roundTrip({ a: undefined, list: [1, undefined, 3] }) as Record<string, unknown>;
    expect(Object.keys(back)).toEqual(["a", "list"]);
    expect("a" in back).toBe(true);
    expect(back["list"]).toStrictEqual([1, undefined, 3]);
    expect(roundTrip(undefined)).toBeUndefined();
  });

  it("reads array holes back as undefined", () => {
    // biome-ignore lint/suspicious/noSparseArray: the hole is what this test is about.
    const back = roundTrip([1, , 3]) as unknown[];
    expect(back).toHaveLength(3);
    expect(1 in back).toBe(true);
    expect(back[1]).toBeUndefined();
  });

  it("keeps special numbers, including -0", () => {
    const back = roundTrip([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0, 0]) as number[];
    expect(back[0]).toBeNaN();
    expect(back[1]).toBe(Number.POSITIVE_INFINITY);
    expect(back[2]).toBe(Number.NEGATIVE_INFINITY);
    expect(Object.is(back[3], -0)).toBe(true);
    expect(Object.is(back[4], 0)).toBe(true);
  });

  it("escapes user objects that use the escape key", () => {
    const value = { $t: "Date", v: "2020-01-01T00:00:00.000Z" };
    expect(roundTrip(value)).toStrictEqual(value);
    const nested = { $t: { $t: "undefined" } };
    expect(roundTrip(nested)).toStrictEqual(nested);
  });

  it("keeps an own __proto__ key as data, never as a prototype", () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "x": 1}') as Record<string, unknown>;
    const back = roundTrip(value) as Record<string, unknown>;
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
    expect(Object.keys(back)).toEqual(["__proto__", "x"]);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  it("stores Buffer as Uint8Array and respects views", () => {
    const backing = new Uint8Array([9, 1, 2, 3, 9]);
    const view = backing.subarray(1, 4);
    expect(roundTrip(view)).toStrictEqual(new Uint8Array([1, 2, 3]));
    expect(roundTrip(Buffer.from([4, 5]))).toStrictEqual(new Uint8Array([4, 5]));
  });

  it("uses a readable tagged format", () => {
    expect(JSON.parse(defaultSerializer.serialize({ at: new Date(0), n: 1n }))).toEqual({
      at: { $t: "Date", v: "1970-01-01T00:00:00.000Z" },
      n: { $t: "BigInt", v: "1" },
    });
  });
});

/** A non-serialisable value, and (for circular references) how to wire it to the root. */
const badArb: fc.Arbitrary<{ readonly kind: string; readonly make: (root: object) => unknown }> = fc.constantFrom(
  { kind: "function", make: () => () => 1 },
  { kind: "symbol", make: () => Symbol("s") },
  { kind: "class instance", make: () => new (class Custom {})() },
  { kind: "WeakMap", make: () => new WeakMap() },
  { kind: "Promise", make: () => Promise.resolve(1) },
  { kind: "RegExp", make: () => /x/ },
  { kind: "Error", make: () => new Error("e") },
  { kind: "Int32Array", make: () => new Int32Array(2) },
  { kind: "circular", make: (root: object) => root },
);

type Segment = { readonly key: string } | { readonly index: number };

const segmentArb: fc.Arbitrary<Segment> = fc.oneof(
  keyArb.map((key) => ({ key })),
  fc.nat(3).map((index) => ({ index })),
);

function expectedPath(segments: readonly Segment[]): string {
  let path = "";
  for (const segment of segments) {
    if ("index" in segment) path += `[${segment.index}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(segment.key)) path += path === "" ? segment.key : `.${segment.key}`;
    else path += `[${JSON.stringify(segment.key)}]`;
  }
  return path;
}

function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

describe("defaultSerializer rejections", () => {
  it("rejects every non-serializable value with a CheckpointError naming its path", () => {
    const goodLeaf = fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.date({ noInvalidDate: true }));
    fc.assert(
      fc.property(
        fc.array(segmentArb, { minLength: 1, maxLength: 5 }),
        fc.array(fc.tuple(keyArb, goodLeaf), { maxLength: 3 }),
        badArb,
        (segments, siblings, bad) => {
          // Build containers along the path; siblings are serialisable, the leaf is not.
          const containers: Array<Record<string, unknown> | unknown[]> = segments.map((segment) =>
            "index" in segment ? [] : {},
          );
          const root = containers[0]!;
          segments.forEach((segment, depth) => {
            const container = containers[depth]!;
            const child = depth + 1 < segments.length ? containers[depth + 1] : bad.make(root);
            if ("index" in segment) {
              const array = container as unknown[];
              for (let i = 0; i < segment.index; i++) array.push(siblings[i % Math.max(1, siblings.length)]?.[1] ?? i);
              array.push(child);
            } else {
              const object = container as Record<string, unknown>;
              for (const [key, value] of siblings) if (key !== segment.key) define(object, key, value);
              define(object, segment.key, child);
            }
          });
          const error = thrown(() => defaultSerializer.serialize(root));
          expect(isCheckpointError(error)).toBe(true);
          expect((error as CheckpointError)._tag).toBe("CheckpointError");
          expect((error as CheckpointError).path).toBe(expectedPath(segments));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("names map values, map keys and set items in paths", () => {
    const fn = () => 1;
    expect((thrown(() => defaultSerializer.serialize({ m: new Map([["k", fn]]) })) as CheckpointError).path).toBe(
      'm.get("k")',
    );
    expect((thrown(() => defaultSerializer.serialize({ m: new Map([[1, [fn]]]) })) as CheckpointError).path).toBe(
      "m.get(1)[0]",
    );
    expect((thrown(() => defaultSerializer.serialize(new Map([[fn, 1]]))) as CheckpointError).path).toBe(
      ".entries()[0][0]",
    );
    expect((thrown(() => defaultSerializer.serialize({ s: new Set([1, fn]) })) as CheckpointError).path).toBe(
      "s.values()[1]",
    );
  });

  it("rejects symbol keys and top-level functions", () => {
    expect((thrown(() => defaultSerializer.serialize({ a: { [Symbol("k")]: 1 } })) as CheckpointError).path).toBe("a");
    const top = thrown(() => defaultSerializer.serialize(() => 1)) as CheckpointError;
    expect(top._tag).toBe("CheckpointError");
    expect(top.path).toBeUndefined();
    expect(top.message).toContain("the value itself");
  });

  it("accepts shared (non-circular) references", () => {
    const shared = { x: 1 };
    expect(roundTrip({ a: shared, b: [shared] })).toStrictEqual({ a: { x: 1 }, b: [{ x: 1 }] });
  });

  it("reports corrupt text with a CheckpointError", () => {
    for (const text of [
      "{",
      '{"$t":"Nope"}',
      '{"$t":"BigInt","v":"x"}',
      '{"$t":"Map","v":[1]}',
      '{"$t":"Date","v":"?"}',
    ]) {
      const error = thrown(() => defaultSerializer.deserialize(text)) as CheckpointError;
      expect(error._tag).toBe("CheckpointError");
      expect(error.operation).toBe("deserialize");
    }
  });
});

describe("serializeStored / deserializeStored", () => {
  it("prefixes the serializer path and names workflow and node", () => {
    const error = thrown(() =>
      serializeStored(
        defaultSerializer,
        { doc: { meta: [1, 2, () => 3] } },
        {
          workflowId: "wf-1",
          nodeName: "embed",
          operation: "saveStep",
          path: "values",
        },
      ),
    ) as CheckpointError;
    expect(error._tag).toBe("CheckpointError");
    expect(error.path).toBe("values.doc.meta[2]");
    expect(error.workflowId).toBe("wf-1");
    expect(error.nodeName).toBe("embed");
    expect(error.operation).toBe("saveStep");
    expect(error.message).toContain("values.doc.meta[2]");
    expect(error.message).toContain("embed");
    expect(error.message).toContain("wf-1");
    expect(error.message).toContain("it is a function");
  });

  it("wraps failures of custom serializers", () => {
    const broken: Serializer = {
      serialize: () => {
        throw new TypeError("nope");
      },
      deserialize: () => {
        throw new TypeError("bad row");
      },
    };
    const write = thrown(() => serializeStored(broken, 1, { workflowId: "w", operation: "saveStep", path: "values" }));
    expect((write as CheckpointError)._tag).toBe("CheckpointError");
    expect((write as CheckpointError).path).toBe("values");
    expect((write as CheckpointError).cause).toBeInstanceOf(TypeError);
    const read = thrown(() => deserializeStored(broken, "x", { workflowId: "w", operation: "getSteps" }));
    expect((read as CheckpointError)._tag).toBe("CheckpointError");
    expect((read as CheckpointError).message).toContain("bad row");
    const notText = thrown(() =>
      serializeStored({ serialize: () => 1 as unknown as string, deserialize: (t) => t }, 1, {
        workflowId: "w",
        operation: "x",
      }),
    );
    expect((notText as CheckpointError)._tag).toBe("CheckpointError");
  });
});
