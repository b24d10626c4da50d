import { type AnyTaggedError, ERROR_BRAND, type TaggedError } from "./TaggedError.js";

/**
 * True when `value` carries the `@graph` brand and the `_tag` `tag`. It narrows: on a union of error classes to the
 * members with that tag, on `unknown` to `TaggedError<tag>`. Pass the class as a type argument to narrow `unknown`
 * straight to it (`isTaggedError<NodeExecutionError>(e, "NodeExecutionError")`, the tag is then checked against
 * the class). Checks the brand, not the prototype chain, so it works across duplicated package copies.
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
export function isTaggedError<const Tag extends string>(value: unknown, tag: Tag): value is TaggedError<Tag>;
export function isTaggedError<E extends AnyTaggedError>(value: unknown, tag: E["_tag"]): value is E;
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
export function isGraphError(value: unknown): value is AnyTaggedError {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { [ERROR_BRAND]?: unknown })[ERROR_BRAND] === true &&
    typeof (value as { _tag?: unknown })._tag === "string"
  );
}

/**
 * Builds a guard for one error class, for packages that export `isXError` helpers.
 *
 * @example
 * ```ts
 * import { tagGuard, TaggedError } from "@graph/errors";
 * class QuotaError extends TaggedError<"QuotaError"> { readonly _tag = "QuotaError" as const; }
 * export const isQuotaError = tagGuard<QuotaError>("QuotaError");
 * ```
 */
export function tagGuard<E extends AnyTaggedError>(tag: E["_tag"]): (value: unknown) => value is E {
  return (value: unknown): value is E => isTaggedError<E>(value, tag);
}
