/**
 * The brand every `@graph/*` error carries (`Symbol.for("@graph/error")`). It is a registered symbol, so two copies
 * of a package loaded in one process (where the prototype chains differ) still recognise each other's errors.
 *
 * @example
 * ```ts
 * import { ERROR_BRAND } from "@graph/errors";
 * const branded = (e: unknown) => typeof e === "object" && e !== null && ERROR_BRAND in e;
 * ```
 */
export const ERROR_BRAND: unique symbol = Symbol.for("@graph/error") as never;
