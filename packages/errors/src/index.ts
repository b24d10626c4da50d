/**
 * The tagged-error base shared by every `@graph/*` package.
 *
 * @module
 */

export { isGraphError, isTaggedError, tagGuard } from "./guards.js";
export { type AnyTaggedError, ERROR_BRAND, TaggedError, type TaggedErrorOptions } from "./TaggedError.js";
