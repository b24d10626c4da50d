/**
 * The tagged-error factory and guards shared by every `@graph/*` package.
 *
 * @module
 */

export { ERROR_BRAND } from "./brand.js";
export { isGraphError, isTaggedError } from "./guards.js";
export {
  GraphError,
  TaggedError,
  type TaggedErrorArgs,
  type TaggedErrorClass,
  type TaggedErrorFields,
} from "./TaggedError.js";
