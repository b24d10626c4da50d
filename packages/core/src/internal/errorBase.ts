/** Brand shared by every @graph error so guards work across duplicated package copies (no `instanceof`). */
export const ERROR_BRAND: unique symbol = Symbol.for("@graph/error") as never;

/**
 * Base class of every @graph error: a `_tag` to match on and a brand so guards work across package copies.
 *
 * @example
 * ```ts
 * class MyError extends GraphError<"MyError"> { readonly _tag = "MyError" as const; }
 * ```
 */
export abstract class TaggedError<Tag extends string> extends Error {
  abstract readonly _tag: Tag;
  readonly [ERROR_BRAND] = true as const;
}

export function hasTag<T extends string>(value: unknown, tag: T): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as Record<PropertyKey, unknown>)[Symbol.for("@graph/error")] === true &&
    (value as { _tag?: unknown })._tag === tag
  );
}
