/** Brand shared by every @graph error so guards work across duplicated package copies (no `instanceof`). */
export const ERROR_BRAND: unique symbol = Symbol.for("@graph/error") as never;

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
