/**
 * The error `compile` (and so `selectTree`) throws for a pattern that is not valid syntax.
 *
 * @module
 */

import { TaggedError } from "@graph/errors";

/**
 * Why a pattern was rejected — a closed union, so `switch (error.reason)` is exhaustive.
 *
 * - `"NotAString"`: the pattern was not a string (only reachable from untyped JavaScript).
 * - `"EmptyPattern"`: the pattern is `""`.
 * - `"EmptySegment"`: a leading `/`, a trailing `/`, or `//`.
 * - `"GlobstarInSegment"`: `**` next to other characters in one segment (`***`, `**x`, `a**b`).
 * - `"InvalidCharacter"`: one of `. \ [ ] { } ? !` or a control character.
 *
 * @example
 * ```ts
 * import { compile, isSelectPatternError, type SelectPatternErrorReason } from "@graph/select";
 *
 * let reason: SelectPatternErrorReason | undefined;
 * try {
 *   compile("rag//docs");
 * } catch (error) {
 *   if (isSelectPatternError(error)) reason = error.reason; // "EmptySegment"
 * }
 * ```
 */
export type SelectPatternErrorReason =
  | "NotAString"
  | "EmptyPattern"
  | "EmptySegment"
  | "GlobstarInSegment"
  | "InvalidCharacter";

/**
 * A select pattern has invalid syntax. Thrown by `compile` before any matching happens.
 *
 * Match it by `_tag`, with {@link isSelectPatternError} or with `instanceof`: all three check the `@graph` brand and
 * the tag, so they agree even when two copies of this package are loaded. The message names the pattern, points at `position`
 * with a caret line, and says how to fix it, for example:
 *
 * ```text
 * Invalid select pattern "rag//docs" at position 4: empty segment ("//").
 *   rag//docs
 *       ^
 * How to fix: levels are separated by exactly one "/"; remove the extra "/". Did you mean "rag/docs"?
 * ```
 *
 * @example
 * ```ts
 * import { compile, SelectPatternError } from "@graph/select";
 *
 * try {
 *   compile(["answer", "rag.docs"]);
 * } catch (error) {
 *   if (error instanceof SelectPatternError) {
 *     error._tag; // "SelectPatternError"
 *     error.pattern; // "rag.docs"
 *     error.position; // 3
 *   }
 * }
 * ```
 */
export class SelectPatternError extends TaggedError("SelectPatternError")<{
  /** The offending pattern exactly as given (`""` when the value was not a string). */
  readonly pattern: string;
  /** 0-based index (UTF-16 code unit) into `pattern` where the problem is. */
  readonly position: number;
  /** Which rule the pattern broke. */
  readonly reason: SelectPatternErrorReason;
}> {
  /**
   * Normally created by `compile`; the constructor is public so tests and adapters can build one.
   */
  constructor(details: {
    readonly pattern: string;
    readonly position: number;
    readonly reason: SelectPatternErrorReason;
    readonly message: string;
  }) {
    const { pattern, position, reason, message } = details;
    super({ pattern, position, reason, message });
  }
}

/**
 * True when `value` is a {@link SelectPatternError}, from this or any other copy of the package: it checks
 * the `Symbol.for("@graph/error")` brand and the `_tag`, not the prototype chain.
 *
 * @example
 * ```ts
 * import { compile, isSelectPatternError } from "@graph/select";
 *
 * try {
 *   compile("a/***");
 * } catch (error) {
 *   if (isSelectPatternError(error)) console.error(error.message);
 *   else throw error;
 * }
 * ```
 */
export const isSelectPatternError = (value: unknown): value is SelectPatternError => SelectPatternError.is(value);
