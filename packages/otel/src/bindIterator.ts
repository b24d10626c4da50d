import { type Context, context } from "@opentelemetry/api";

type AnyIterator = {
  next(...args: unknown[]): unknown;
  return?(...args: unknown[]): unknown;
  throw?(...args: unknown[]): unknown;
};

const isIterator = (value: unknown): value is AnyIterator =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as { next?: unknown }).next === "function" &&
  (Symbol.iterator in value || Symbol.asyncIterator in value);

/**
 * A generator node's body runs on each `next()`, after the call that created it has returned: bind every step to
 * the node's context so code between two `yield`s sees the node span too. Other values pass through unchanged.
 */
export function bindIterator<T>(value: T, ctx: Context): T {
  if (!isIterator(value)) return value;
  const it = value;
  const bound = (method: "next" | "return" | "throw") => {
    const f = it[method];
    return f === undefined ? undefined : (...args: unknown[]) => context.with(ctx, () => f.apply(it, args));
  };
  const wrapper: Record<PropertyKey, unknown> = { next: bound("next") };
  if (it.return !== undefined) wrapper.return = bound("return");
  if (it.throw !== undefined) wrapper.throw = bound("throw");
  if (Symbol.asyncIterator in it) wrapper[Symbol.asyncIterator] = () => wrapper;
  if (Symbol.iterator in it) wrapper[Symbol.iterator] = () => wrapper;
  return wrapper as T;
}
