/**
 * The brand every `@graph/*` error carries (`Symbol.for("@graph/error")`). It is a registered symbol, so two copies
 * of a package loaded in one process (where `instanceof` fails) still recognise each other's errors.
 *
 * @example
 * ```ts
 * import { ERROR_BRAND } from "@graph/errors";
 * const branded = (e: unknown) => typeof e === "object" && e !== null && ERROR_BRAND in e;
 * ```
 */
export const ERROR_BRAND: unique symbol = Symbol.for("@graph/error") as never;

/**
 * What every {@link TaggedError} constructor accepts besides its message.
 *
 * @example
 * ```ts
 * const options: TaggedErrorOptions = { cause: new Error("disk full") };
 * ```
 */
export interface TaggedErrorOptions {
  /** The underlying failure. Left unset (not `undefined`) when absent, so `"cause" in error` is false. */
  readonly cause?: unknown;
}

/**
 * Base class of every `@graph/*` error: a literal `_tag` to match on (`switch (e._tag)`), the {@link ERROR_BRAND}
 * so guards work across package copies, and an optional `cause`.
 *
 * Subclasses declare their tag as a literal, take every field in the constructor and keep them `readonly`: an
 * error is a value, never mutated after it is thrown. Set `name` too, so stack traces survive minifiers.
 *
 * @example
 * ```ts
 * import { TaggedError } from "@graph/errors";
 *
 * class QuotaError extends TaggedError<"QuotaError"> {
 *   readonly _tag = "QuotaError" as const;
 *   override readonly name = "QuotaError";
 *   readonly limit: number;
 *   constructor(limit: number) {
 *     super(`Quota of ${limit} requests exceeded. How to fix: wait a minute or raise the quota.`);
 *     this.limit = limit;
 *   }
 * }
 * ```
 */
export abstract class TaggedError<Tag extends string> extends Error {
  /** The discriminant: a string literal, the same in every copy of the package. */
  abstract readonly _tag: Tag;
  /** The `@graph` brand; guards check it together with `_tag`. */
  readonly [ERROR_BRAND] = true as const;

  constructor(message: string, options: TaggedErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
  }
}

/**
 * Any `@graph/*` error, whatever its tag.
 *
 * @example
 * ```ts
 * import type { AnyTaggedError } from "@graph/errors";
 * const tags = (errors: readonly AnyTaggedError[]) => errors.map((e) => e._tag);
 * ```
 */
export type AnyTaggedError = TaggedError<string>;
