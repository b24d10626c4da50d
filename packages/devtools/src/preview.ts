/**
 * A value as JSON text for the page, cut to `maxLength` characters (with `…`). Values JSON can't represent
 * (cycles, BigInt, functions) fall back to `String(value)`; nested `RunResult`s become their `toJSON()`.
 *
 * @example
 * ```ts
 * preview({ reply: "Hello there" }, 12); // '{"reply":"H…'
 * ```
 */
export function preview(value: unknown, maxLength: number): string {
  let text: string;
  try {
    text = JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? `${v}n` : v)) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length <= maxLength ? text : `${text.slice(0, Math.max(0, maxLength - 1))}…`;
}

/** Each value of a record previewed on its own, so the page can show one line per input/output. */
export function previewRecord(values: Readonly<Record<string, unknown>>, maxLength: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) out[k] = preview(v, maxLength);
  return out;
}

/** The message of an error-like value, for the page. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === "object" && error !== null && typeof (error as { message?: unknown }).message === "string")
    return (error as { message: string }).message;
  return String(error);
}
