import { ERROR_BRAND } from "./brand.js";
import { isGraphError } from "./guards.js";

/** Keys a tagged error sets itself: a field of one of these names would shadow them. */
const RESERVED: ReadonlySet<string> = new Set(["_tag", "name", "message", "cause", "stack"]);

/**
 * Base of every `@graph/*` error: a literal `_tag` to match on (`switch (e._tag)`), a `name` equal to the tag, the
 * {@link ERROR_BRAND} so guards work across package copies, and an optional `cause`. Declare errors with
 * {@link TaggedError}, not by extending this class; use it to type "any `@graph` error".
 *
 * @example
 * ```ts
 * import { type GraphError, isGraphError } from "@graph/errors";
 * const describe = (e: GraphError) => `[${e._tag}] ${e.message}`;
 * process.on("uncaughtException", (e) => console.error(isGraphError(e) ? describe(e) : e));
 * ```
 */
export abstract class GraphError<Tag extends string = string> extends Error {
  /** The discriminant: a string literal, the same in every copy of the package. */
  readonly _tag: Tag;
  /** The `@graph` brand; guards check it together with `_tag`. */
  readonly [ERROR_BRAND] = true as const;

  protected constructor(tag: Tag, message: string, cause: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this._tag = tag;
    // An own property, as a class field would be: stack traces and minified builds keep it.
    this.name = tag;
  }

  /** Any branded `@graph` error is an instance, whichever copy of a package made it. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return isGraphError(value);
  }
}

/**
 * What the constructor of a {@link TaggedError} class takes: its fields, the `message` and an optional `cause`. A
 * field left `undefined` is not set on the error (like `cause`), so `"field" in error` says whether it was given.
 *
 * @example
 * ```ts
 * const args: TaggedErrorArgs<{ limit: number }> = { limit: 3, message: "Quota of 3 exceeded." };
 * ```
 */
export type TaggedErrorArgs<Fields extends object> = {
  readonly [K in keyof Fields as undefined extends OptionalOnly<Fields, K> ? never : K]: Fields[K];
} & {
  // An optional field also takes `undefined` (it is then left unset): callers need not spread it in conditionally.
  readonly [K in keyof Fields as undefined extends OptionalOnly<Fields, K> ? K : never]?: Fields[K] | undefined;
} & {
  /** What is wrong, where, and how to fix it. */
  readonly message: string;
  /** The underlying failure. */
  readonly cause?: unknown;
};

/** `undefined` when `K` is an optional key of `Fields`, else `never`. */
type OptionalOnly<Fields, K extends keyof Fields> = NoFields extends Pick<Fields, K> ? undefined : never;

/** An object type with no keys: what an error without fields declares. */
type NoFields = Record<never, never>;

/**
 * The fields of a tagged error may not be named like what every error already has (`_tag`, `name`, `message`,
 * `stack`); `cause` may be declared to give it a narrower type.
 */
export type TaggedErrorFields = { readonly [key: string]: unknown } & {
  readonly _tag?: never;
  readonly name?: never;
  readonly message?: never;
  readonly stack?: never;
};

/**
 * The class {@link TaggedError} returns: extend it with the error's fields as a type argument.
 *
 * @example
 * ```ts
 * const Base: TaggedErrorClass<"QuotaError"> = TaggedError("QuotaError");
 * ```
 */
export interface TaggedErrorClass<Tag extends string> {
  new <Fields extends TaggedErrorFields = NoFields>(args: TaggedErrorArgs<Fields>): GraphError<Tag> & Readonly<Fields>;
  readonly prototype: GraphError<Tag>;
  /**
   * True when `value` is an error of this class from any copy of its package: it checks the brand and the tag,
   * not the prototype chain. `instanceof` gives the same answer.
   */
  is<C extends abstract new (...args: never) => GraphError<Tag>>(this: C, value: unknown): value is InstanceType<C>;
}

/**
 * Declares a tagged error class (after Effect's `Data.TaggedError`): `_tag` and `name` are the tag, the fields given
 * to the constructor become readonly properties, `message` and `cause` go where `Error` keeps them, and the
 * `@graph` brand makes `X.is(e)` and `e instanceof X` work across duplicated package copies. Write a constructor of
 * your own when the message is built from the fields.
 *
 * @example
 * ```ts
 * import { TaggedError } from "@graph/errors";
 *
 * class QuotaError extends TaggedError("QuotaError")<{ readonly limit: number }> {
 *   constructor(limit: number) {
 *     super({ limit, message: `Quota of ${limit} requests exceeded. How to fix: wait a minute or raise the quota.` });
 *   }
 * }
 *
 * try {
 *   throw new QuotaError(100);
 * } catch (e) {
 *   if (QuotaError.is(e)) console.error(e._tag, e.limit); // "QuotaError" 100
 * }
 * ```
 */
export function TaggedError<const Tag extends string>(tag: Tag): TaggedErrorClass<Tag> {
  class Tagged extends GraphError<Tag> {
    constructor(args: { readonly message: string; readonly cause?: unknown }) {
      super(tag, args.message, args.cause);
      const self = this as unknown as Record<string, unknown>;
      for (const key of Object.keys(args)) {
        const value = (args as Record<string, unknown>)[key];
        if (value !== undefined && !RESERVED.has(key)) self[key] = value;
      }
    }

    static is(value: unknown): boolean {
      return isGraphError(value) && value._tag === tag;
    }
  }
  Object.defineProperty(Tagged, "name", { value: tag });
  // The class itself and the one class declared on top of it answer by brand and tag; a class derived further (a
  // subclass of a declared error) only by its prototype chain, since the tag can't tell it from its parent.
  // `instanceof` passes the class right of it as `this`.
  Object.defineProperty(Tagged, Symbol.hasInstance, {
    value(this: abstract new (...args: never) => unknown, value: unknown): boolean {
      if (Function.prototype[Symbol.hasInstance].call(this, value)) return true;
      return (this === Tagged || Object.getPrototypeOf(this) === Tagged) && Tagged.is(value);
    },
  });
  // On the prototype too: the stack's first line is written while Error's constructor runs, before `name` is set.
  Object.defineProperty(Tagged.prototype, "name", { value: tag, writable: true, configurable: true });
  return Tagged as unknown as TaggedErrorClass<Tag>;
}
