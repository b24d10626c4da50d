import { describe, expect, expectTypeOf, it } from "vitest";
import { ERROR_BRAND, isGraphError, isTaggedError, TaggedError, tagGuard } from "../src/index.js";

class QuotaError extends TaggedError<"QuotaError"> {
  readonly _tag = "QuotaError" as const;
  override readonly name = "QuotaError";
  readonly limit: number;
  constructor(limit: number, cause?: unknown) {
    super(`Quota of ${limit} exceeded.`, { cause });
    this.limit = limit;
  }
}

class OtherError extends TaggedError<"OtherError"> {
  readonly _tag = "OtherError" as const;
  override readonly name = "OtherError";
}

describe("TaggedError", () => {
  it("carries its tag, name, brand, message, fields and cause", () => {
    const cause = new Error("upstream");
    const error = new QuotaError(3, cause);
    expect(error).toBeInstanceOf(Error);
    expect(error._tag).toBe("QuotaError");
    expect(error.name).toBe("QuotaError");
    expect(error[ERROR_BRAND]).toBe(true);
    expect(ERROR_BRAND).toBe(Symbol.for("@graph/error"));
    expect(error.message).toBe("Quota of 3 exceeded.");
    expect(error.limit).toBe(3);
    expect(error.cause).toBe(cause);
    expect(String(error)).toBe("QuotaError: Quota of 3 exceeded.");
    expect(error.stack).toContain("QuotaError: Quota of 3 exceeded.");
  });

  it("leaves cause unset when none is given", () => {
    expect("cause" in new QuotaError(1)).toBe(false);
    expect("cause" in new OtherError("x")).toBe(false);
  });
});

describe("guards", () => {
  it("isTaggedError checks brand and tag, not the prototype chain", () => {
    const error = new QuotaError(1);
    expect(isTaggedError(error, "QuotaError")).toBe(true);
    expect(isTaggedError(error, "OtherError")).toBe(false);
    const foreign = Object.assign(new Error("x"), { _tag: "QuotaError", [Symbol.for("@graph/error")]: true });
    expect(isTaggedError(foreign, "QuotaError")).toBe(true);
    expect(isTaggedError({ _tag: "QuotaError" }, "QuotaError")).toBe(false);
    expect(isTaggedError(null, "QuotaError")).toBe(false);
    expect(isTaggedError("QuotaError", "QuotaError")).toBe(false);
  });

  it("isGraphError accepts any branded error with a string tag", () => {
    expect(isGraphError(new QuotaError(1))).toBe(true);
    expect(isGraphError(new OtherError("x"))).toBe(true);
    expect(isGraphError(new Error("x"))).toBe(false);
    expect(isGraphError({ [ERROR_BRAND]: true })).toBe(false);
    expect(isGraphError(undefined)).toBe(false);
  });

  it("tagGuard builds a guard for one class", () => {
    const isQuotaError = tagGuard<QuotaError>("QuotaError");
    expect(isQuotaError(new QuotaError(2))).toBe(true);
    expect(isQuotaError(new OtherError("x"))).toBe(false);
  });

  it("narrows without casts", () => {
    const unknownValue: unknown = new QuotaError(5);
    if (isTaggedError<QuotaError>(unknownValue, "QuotaError")) {
      expectTypeOf(unknownValue).toEqualTypeOf<QuotaError>();
      expect(unknownValue.limit).toBe(5);
    }
    if (isTaggedError(unknownValue, "QuotaError")) expectTypeOf(unknownValue._tag).toEqualTypeOf<"QuotaError">();
    const union = new QuotaError(7) as QuotaError | OtherError;
    if (isTaggedError(union, "QuotaError")) {
      expectTypeOf(union).toEqualTypeOf<QuotaError>();
      expect(union.limit).toBe(7);
    } else expect.unreachable();
    const isQuotaError = tagGuard<QuotaError>("QuotaError");
    if (isQuotaError(unknownValue)) expectTypeOf(unknownValue).toEqualTypeOf<QuotaError>();
    // @ts-expect-error the tag must be the class's own tag
    isTaggedError<QuotaError>(unknownValue, "OtherError");
  });
});
