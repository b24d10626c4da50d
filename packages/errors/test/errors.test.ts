import { describe, expect, expectTypeOf, it } from "vitest";
import { ERROR_BRAND, GraphError, isGraphError, isTaggedError, TaggedError } from "../src/index.js";

class QuotaError extends TaggedError("QuotaError")<{ readonly limit: number }> {
  constructor(limit: number, cause?: unknown) {
    super({ limit, message: `Quota of ${limit} exceeded.`, cause });
  }
}

class OtherError extends TaggedError("OtherError") {
  constructor(message: string) {
    super({ message });
  }
}

/** Declared with the factory's own constructor: fields, message and cause in one object. */
class PlainError extends TaggedError("PlainError")<{ readonly where?: string; readonly count: number }> {}

describe("TaggedError", () => {
  it("carries its tag, name, brand, message, fields and cause", () => {
    const cause = new Error("upstream");
    const error = new QuotaError(3, cause);
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(GraphError);
    expect(error._tag).toBe("QuotaError");
    expect(error.name).toBe("QuotaError");
    expect(QuotaError.name).toBe("QuotaError");
    expect(error[ERROR_BRAND]).toBe(true);
    expect(ERROR_BRAND).toBe(Symbol.for("@graph/error"));
    expect(error.message).toBe("Quota of 3 exceeded.");
    expect(error.limit).toBe(3);
    expect(error.cause).toBe(cause);
    expect(String(error)).toBe("QuotaError: Quota of 3 exceeded.");
    expect(error.stack).toContain("QuotaError: Quota of 3 exceeded.");
  });

  it("sets the fields given as own properties after the tag and name, never message or cause", () => {
    const error = new PlainError({ count: 2, message: "two", cause: "why" });
    expect(Object.keys(error)).toEqual(["_tag", "name", "count"]);
    expect(Object.getOwnPropertySymbols(error)).toEqual([ERROR_BRAND]);
    expect(error.count).toBe(2);
    expect(error.message).toBe("two");
    expect(error.cause).toBe("why");
    expect(Object.getOwnPropertyDescriptor(error, "message")?.enumerable).toBe(false);
    expect(Object.getOwnPropertyDescriptor(error, "cause")?.enumerable).toBe(false);
  });

  it("leaves cause and undefined fields unset", () => {
    expect("cause" in new QuotaError(1)).toBe(false);
    expect("cause" in new OtherError("x")).toBe(false);
    const error = new PlainError({ count: 1, message: "m" });
    expect("where" in error).toBe(false);
    expect("where" in new PlainError({ count: 1, where: "here", message: "m" })).toBe(true);
  });

  it("ignores reserved keys an untyped caller slips in", () => {
    const error = new PlainError({ count: 1, message: "m", _tag: "Fake", name: "Fake", stack: "s" } as never);
    expect(error._tag).toBe("PlainError");
    expect(error.name).toBe("PlainError");
    expect(error.stack).not.toBe("s");
  });

  it("refuses fields named like what every error has, at compile time", () => {
    // @ts-expect-error `message` is not a field: it is the error's message
    class Bad extends TaggedError("Bad")<{ readonly message: number }> {}
    // @ts-expect-error `_tag` is the class's own
    class Worse extends TaggedError("Worse")<{ readonly _tag: "x" }> {}
    expect([Bad.name, Worse.name]).toEqual(["Bad", "Worse"]);
  });
});

describe("guards", () => {
  it("X.is and isTaggedError check brand and tag, not the prototype chain", () => {
    const error = new QuotaError(1);
    expect(QuotaError.is(error)).toBe(true);
    expect(OtherError.is(error)).toBe(false);
    expect(isTaggedError(error, "QuotaError")).toBe(true);
    expect(isTaggedError(error, "OtherError")).toBe(false);
    const foreign = Object.assign(new Error("x"), { _tag: "QuotaError", [Symbol.for("@graph/error")]: true });
    expect(QuotaError.is(foreign)).toBe(true);
    expect(isTaggedError(foreign, "QuotaError")).toBe(true);
    expect(QuotaError.is({ _tag: "QuotaError" })).toBe(false);
    expect(isTaggedError({ _tag: "QuotaError" }, "QuotaError")).toBe(false);
    expect(isTaggedError(null, "QuotaError")).toBe(false);
    expect(isTaggedError("QuotaError", "QuotaError")).toBe(false);
  });

  it("instanceof agrees with X.is, also for an error from another copy of the class", () => {
    // A second declaration of the same tag stands for the class as another copy of the package declares it.
    class QuotaErrorCopy extends TaggedError("QuotaError")<{ readonly limit: number }> {}
    const fromCopy = new QuotaErrorCopy({ limit: 4, message: "copy" });
    expect(fromCopy instanceof QuotaError).toBe(true);
    expect(QuotaError.is(fromCopy)).toBe(true);
    expect(new QuotaError(1) instanceof QuotaErrorCopy).toBe(true);
    expect(fromCopy instanceof OtherError).toBe(false);
    expect(new Error("x") instanceof QuotaError).toBe(false);
    expect(fromCopy instanceof GraphError).toBe(true);
    expect(new Error("x") instanceof GraphError).toBe(false);
  });

  it("a class derived from a declared error matches only its own instances", () => {
    class SpecialQuotaError extends QuotaError {}
    const special = new SpecialQuotaError(2);
    expect(special instanceof SpecialQuotaError).toBe(true);
    expect(special instanceof QuotaError).toBe(true);
    expect(new QuotaError(2) instanceof SpecialQuotaError).toBe(false);
    expect(special._tag).toBe("QuotaError");
  });

  it("isGraphError accepts any branded error with a string tag", () => {
    expect(isGraphError(new QuotaError(1))).toBe(true);
    expect(isGraphError(new OtherError("x"))).toBe(true);
    expect(isGraphError(new Error("x"))).toBe(false);
    expect(isGraphError({ [ERROR_BRAND]: true })).toBe(false);
    expect(isGraphError(undefined)).toBe(false);
  });

  it("narrows without casts", () => {
    const unknownValue: unknown = new QuotaError(5);
    if (QuotaError.is(unknownValue)) {
      expectTypeOf(unknownValue).toEqualTypeOf<QuotaError>();
      expect(unknownValue.limit).toBe(5);
    } else expect.unreachable();
    if (isTaggedError(unknownValue, "QuotaError")) expectTypeOf(unknownValue._tag).toEqualTypeOf<"QuotaError">();
    const union = new QuotaError(7) as QuotaError | OtherError;
    if (isTaggedError(union, "QuotaError")) {
      expectTypeOf(union).toEqualTypeOf<QuotaError>();
      expect(union.limit).toBe(7);
    } else expect.unreachable();
    const other: unknown = new OtherError("x");
    if (isGraphError(other)) expectTypeOf(other).toEqualTypeOf<GraphError>();
    expectTypeOf(new PlainError({ count: 1, message: "m" }).where).toEqualTypeOf<string | undefined>();
    // @ts-expect-error a missing field
    new PlainError({ message: "m" });
    // @ts-expect-error a missing message
    new PlainError({ count: 1 });
  });
});
