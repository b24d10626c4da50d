import { describe, expect, it } from "vitest";
import { createSerializer, defaultSerializer, isCheckpointError } from "../src/index.js";

class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
  norm(): number {
    return Math.hypot(this.x, this.y);
  }
}
class Shape {
  constructor(
    readonly name: string,
    readonly corners: Point[],
    readonly meta: Map<string, Date>,
  ) {}
}

const point = {
  name: "Point",
  type: Point,
  encode: (p: Point) => [p.x, p.y],
  decode: ([x, y]: number[]) => new Point(x!, y!),
};
const shape = {
  name: "Shape",
  type: Shape,
  encode: (s: Shape) => ({ name: s.name, corners: s.corners, meta: s.meta }),
  decode: (v: { name: string; corners: Point[]; meta: Map<string, Date> }) => new Shape(v.name, v.corners, v.meta),
};
const errorClass = {
  name: "Error",
  type: Error,
  encode: (e: Error) => ({ message: e.message }),
  decode: (v: { message: string }) => new Error(v.message),
};
const regExp = {
  name: "RegExp",
  type: RegExp,
  encode: (r: RegExp) => ({ source: r.source, flags: r.flags }),
  decode: (v: { source: string; flags: string }) => new RegExp(v.source, v.flags),
};
const serializer = createSerializer({ classes: [point, shape, errorClass, regExp] });

function caught(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("createSerializer({ classes })", () => {
  it("stores an instance as a tagged object in the default format", () => {
    expect(serializer.serialize(new Point(3, 4))).toBe('{"$t":"Class","n":"Point","v":[3,4]}');
    expect(serializer.serialize({ p: new Point(1, 2), at: new Date(0) })).toBe(
      '{"p":{"$t":"Class","n":"Point","v":[1,2]},"at":{"$t":"Date","v":"1970-01-01T00:00:00.000Z"}}',
    );
  });

  it("round-trips instances nested in Maps, Sets, arrays and other registered classes", () => {
    const value = {
      shapes: [new Shape("tri", [new Point(0, 0), new Point(3, 4)], new Map([["made", new Date(5)]]))],
      byKey: new Map<unknown, unknown>([
        [new Point(9, 9), "point as a key"],
        ["err", new Error("boom")],
      ]),
      patterns: new Set([/a+b/giu]),
    };
    const back = serializer.deserialize(serializer.serialize(value)) as typeof value;
    const s = back.shapes[0]!;
    expect(s).toBeInstanceOf(Shape);
    expect(s.corners[1]).toBeInstanceOf(Point);
    expect(s.corners[1]!.norm()).toBe(5);
    expect(s.meta.get("made")).toEqual(new Date(5));
    const [[key, label], [errKey, err]] = [...back.byKey] as [[Point, string], [string, Error]];
    expect(key).toBeInstanceOf(Point);
    expect([key.x, key.y, label, errKey]).toEqual([9, 9, "point as a key", "err"]);
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toBe("boom");
    const re = [...back.patterns][0] as RegExp;
    expect(re).toBeInstanceOf(RegExp);
    expect([re.source, re.flags]).toEqual(["a+b", "giu"]);
  });

  it("matches exact classes only: a subclass stays an error with the path and the registration hint", () => {
    const error = caught(() => serializer.serialize({ list: [new TypeError("x")] }));
    expect(isCheckpointError(error)).toBe(true);
    expect(error).toMatchObject({ path: "list[0]" });
    expect((error as Error).message).toContain("an instance of TypeError, which is not a supported type");
    expect((error as Error).message).toContain("register its class with createSerializer({ classes })");
  });

  it("the default serializer still rejects class instances", () => {
    const error = caught(() => defaultSerializer.serialize({ p: new Point(1, 2) }));
    expect(error).toMatchObject({ _tag: "CheckpointError", path: "p" });
    expect((error as Error).message).toContain("an instance of Point");
  });

  it("a row naming an unregistered class fails with a clear CheckpointError", () => {
    const text = serializer.serialize({ p: new Point(1, 2) });
    const error = caught(() => createSerializer().deserialize(text));
    expect(error).toMatchObject({ _tag: "CheckpointError", path: "p", operation: "deserialize" });
    expect((error as Error).message).toContain("it is an instance of class 'Point', which is not registered");
  });

  it("failures inside encode/decode name the class and the path", () => {
    const broken = createSerializer({
      classes: [
        {
          name: "Point",
          type: Point,
          encode: () => {
            throw new RangeError("no");
          },
          decode: () => {
            throw new RangeError("nope");
          },
        },
      ],
    });
    const encodeError = caught(() => broken.serialize({ a: [new Point(1, 1)] }));
    expect(encodeError).toMatchObject({ _tag: "CheckpointError", path: "a[0]" });
    expect((encodeError as Error).message).toContain(
      "the encode function registered for class 'Point' threw (RangeError: no)",
    );
    const decodeError = caught(() => broken.deserialize('{"a":{"$t":"Class","n":"Point","v":1}}'));
    expect(decodeError).toMatchObject({ _tag: "CheckpointError", path: "a" });
    expect((decodeError as Error).message).toContain(
      "the decode function registered for class 'Point' threw (RangeError: nope)",
    );
  });

  it("an own `$t` key on a plain object is still escaped, not read as a class", () => {
    const value = { $t: "Class", n: "Point", v: [1, 2] };
    expect(serializer.deserialize(serializer.serialize(value))).toEqual(value);
  });

  it("rejects two classes under one name, one class twice, built-in types and malformed entries", () => {
    class Other {}
    const collision = caught(() =>
      createSerializer({
        classes: [point, { name: "Point", type: Other, encode: () => 1, decode: () => new Other() }],
      }),
    );
    expect(collision).toMatchObject({ _tag: "CheckpointError", operation: "createSerializer" });
    expect((collision as Error).message).toBe(
      "createSerializer: two classes are registered under the name 'Point' (Point and Other). " +
        "Stored rows name their class, so each name must be unique: rename one of them.",
    );
    const twice = caught(() => createSerializer({ classes: [point, { ...point, name: "Point2" }] }));
    expect((twice as Error).message).toBe(
      "createSerializer: class Point is registered twice (as 'Point' and 'Point2'). Keep one entry.",
    );
    const builtIn = caught(() =>
      createSerializer({
        classes: [{ name: "D", type: Date, encode: (d: Date) => d.getTime(), decode: (n: number) => new Date(n) }],
      }),
    );
    expect((builtIn as Error).message).toContain("Date is already stored by the default format");
    const noDecode = caught(() =>
      createSerializer({ classes: [{ name: "P", type: Point, encode: () => 1 } as never] }),
    );
    expect((noDecode as Error).message).toBe(
      "createSerializer: classes[0] ('P'): decode must be a function, got undefined.",
    );
    const noName = caught(() => createSerializer({ classes: [{ ...point, name: "" }] }));
    expect((noName as Error).message).toContain("classes[0].name must be a non-empty string");
  });
});
