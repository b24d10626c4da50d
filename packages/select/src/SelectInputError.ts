/**
 * The error `selectTree`, a `Matcher` and the built-in adapters throw for an argument that is not what they take.
 *
 * @module
 */

import { TaggedError } from "@graph/errors";

/**
 * What was wrong — a closed union, so `switch (error.reason)` is exhaustive.
 *
 * - `"TreeNotAnObject"`: `selectTree` was given a primitive, `null` or a function as the tree.
 * - `"CyclicTree"`: the walk met an object again on its own path (`path` says where).
 * - `"InvalidArgument"`: an options object, or an argument of an adapter's `rebuild`, of the wrong kind.
 * - `"InvalidAdapter"`: the `adapter` option lacks `children`/`rebuild` functions, or `children` returned
 *   something other than an object or `undefined`.
 * - `"InvalidMatcher"`: a matcher object whose `cursor()` or `child()` did not return a cursor.
 * - `"InvalidPath"`: a path that is not a string or an array of strings (`matches`, `couldMatchBelow`,
 *   `cursor`, `child`).
 *
 * @example
 * ```ts
 * import { isSelectInputError, selectTree, type SelectInputErrorReason } from "@graph/select";
 *
 * let reason: SelectInputErrorReason | undefined;
 * try {
 *   selectTree(null, "answer");
 * } catch (error) {
 *   if (isSelectInputError(error)) reason = error.reason; // "TreeNotAnObject"
 * }
 * ```
 */
export type SelectInputErrorReason =
  | "TreeNotAnObject"
  | "CyclicTree"
  | "InvalidArgument"
  | "InvalidAdapter"
  | "InvalidMatcher"
  | "InvalidPath";

/**
 * A value given to `selectTree`, a `Matcher`, a `MatchCursor` or a built-in adapter is not one it can use. Pattern
 * syntax problems are a {@link SelectPatternError} instead. The message says what was given, where in the tree
 * (when it is about the tree) and how to fix it.
 *
 * Match it by `_tag`, with {@link isSelectInputError} or with `instanceof` (all three agree across package copies).
 *
 * @example
 * ```ts
 * import { isSelectInputError, selectTree } from "@graph/select";
 *
 * const loop: Record<string, unknown> = {};
 * loop["self"] = loop;
 * try {
 *   selectTree({ a: loop }, "**\/x");
 * } catch (error) {
 *   if (isSelectInputError(error)) console.error(error.reason, error.path); // "CyclicTree" ["a", "self"]
 * }
 * ```
 */
export class SelectInputError extends TaggedError("SelectInputError")<{
  /** Which rule the input broke. */
  readonly reason: SelectInputErrorReason;
  /** Where in the tree the problem is (`["a", "self"]`); empty when it is not about a place in the tree. */
  readonly path: readonly string[];
}> {
  /** Normally created by this package; public so tests and adapters can build one. */
  constructor(details: {
    readonly reason: SelectInputErrorReason;
    readonly message: string;
    readonly path?: readonly string[];
  }) {
    super({ reason: details.reason, path: Object.freeze([...(details.path ?? [])]), message: details.message });
  }
}

/**
 * True when `value` is a {@link SelectInputError}, from this or any other copy of the package (brand + `_tag`).
 *
 * @example
 * ```ts
 * import { isSelectInputError, selectTree } from "@graph/select";
 *
 * try {
 *   selectTree(42, "a");
 * } catch (error) {
 *   if (isSelectInputError(error)) console.error(error.message);
 * }
 * ```
 */
export const isSelectInputError = (value: unknown): value is SelectInputError => SelectInputError.is(value);
