import { ERROR_BRAND } from "./brand.js";
import type { GraphError } from "./TaggedError.js";

/**
 * True when `value` carries the `@graph` brand and the `_tag` `tag`: the guard for a tag you have as a string (a
 * tag from another package, a union of error classes). With the class at hand, `X.is(value)` says the same and
 * narrows to `X`. Checks the brand, not the prototype chain, so it works across duplicated package copies.
 *
 * On a union of error classes it narrows to the members with that tag; on `unknown` to `GraphError<tag>`.
 *
 * @example
 * ```ts
 * import { isTaggedError } from "@graph/errors";
 *
 * try {
 *   await save();
 * } catch (e) {
 *   if (isTaggedError(e, "CheckpointError")) console.error(e._tag, e.message);
 * }
 * ```
 */
export function isTaggedError<const Tag extends string>(value: unknown, tag: Tag): value is GraphError<Tag>;
/** @deprecated Narrow to a class with `X.is(value)`: it takes the tag from the class. */
export function isTaggedError<E extends GraphError>(value: unknown, tag: E["_tag"]): value is E;
export function isTaggedError(value: unknown, tag: string): boolean {
  return isGraphError(value) && value._tag === tag;
}

/**
 * True for any `@graph/*` error (it carries the brand and a string `_tag`).
 *
 * @example
 * ```ts
 * import { isGraphError } from "@graph/errors";
 * process.on("unhandledRejection", (e) => console.error(isGraphError(e) ? `[${e._tag}] ${e.message}` : e));
 * ```
 */
export function isGraphError(value: unknown): value is GraphError {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { [ERROR_BRAND]?: unknown })[ERROR_BRAND] === true &&
    typeof (value as { _tag?: unknown })._tag === "string"
  );
}
