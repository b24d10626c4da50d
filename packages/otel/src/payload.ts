/**
 * A value as JSON for a span attribute, cut to `maxLength` characters (with a trailing `…`). Values JSON can't
 * represent (cycles, BigInt) fall back to `String(value)`.
 *
 * @example
 * ```ts
 * payload({ text: "hello" }, 10); // '{"text":"…'
 * ```
 */
export function payload(value: unknown, maxLength: number): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length <= maxLength ? text : `${text.slice(0, Math.max(0, maxLength - 1))}…`;
}

/**
 * The `error.type` of a failure: the tagged error's `_tag`, else the error's `name`, else `"unknown"`.
 *
 * @example
 * ```ts
 * errorType(new TypeError("x")); // "TypeError"
 * ```
 */
export function errorType(error: unknown): string {
  if (typeof error === "object" && error !== null) {
    const e = error as { _tag?: unknown; name?: unknown };
    if (typeof e._tag === "string") return e._tag;
    if (typeof e.name === "string" && e.name !== "") return e.name;
  }
  return "unknown";
}
