// Building SelectInputErrors: safe text for "got …" (works for symbols and objects without a prototype).
import { SelectInputError } from "../SelectInputError.js";

/** What a value is, for "got …" (safe for symbols and prototype-less objects). */
export function describeInput(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return value === "" ? "an empty string" : `a string (${JSON.stringify(value)})`;
  if (typeof value === "symbol") return `a symbol (${value.toString()})`;
  if (typeof value === "bigint") return `a bigint (${String(value)}n)`;
  if (typeof value === "number" || typeof value === "boolean") return `a ${typeof value} (${String(value)})`;
  return typeof value === "function" ? "a function" : "an object";
}

export function invalidPath(what: string): SelectInputError {
  return new SelectInputError({
    reason: "InvalidPath",
    message:
      `Invalid path: ${what}; a path is a string ("rag/docs") or an array of names (["rag", "docs"]).\n` +
      'How to fix: pass "" or [] for the root, "a/b" or ["a", "b"] below it (the array form when a name holds "/").',
  });
}
