// Safe text for error messages about values an untyped caller passed. A template literal on a symbol, or String()
// on an object without a prototype, throws a raw TypeError — exactly what a "you passed the wrong thing" message
// must never do. Everything here works for any value.

/** What a value is, for "expected X, got …": `null`, `a symbol (Symbol(s))`, `an array`, `a number (NaN)`. */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  if (isArray(value)) return "an array";
  switch (typeof value) {
    case "string":
      return value === "" ? "an empty string" : `a string (${showName(value)})`;
    case "number":
    case "boolean":
      return `a ${typeof value} (${String(value)})`;
    case "bigint":
      return `a bigint (${String(value)}n)`;
    case "symbol":
      return `a symbol (${value.toString()})`;
    case "function":
      return "a function";
    default: {
      const proto = prototypeOf(value);
      if (proto === null || proto === undefined || proto === Object.prototype) return "an object";
      const ctor = (proto as { constructor?: { name?: unknown } }).constructor?.name;
      return typeof ctor === "string" && ctor !== "" ? `a ${ctor}` : "an object";
    }
  }
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]|\p{Cs}/gu;

/**
 * A name for a message, in single quotes: a string as itself (control characters shown as `\n`, `\u0000`, so
 * the message stays one readable line), anything else described.
 */
export function showName(value: unknown): string {
  if (typeof value !== "string") return `<${describeValue(value)}>`;
  const shown = value.length > 80 ? `${value.slice(0, 77)}…` : value;
  return `'${shown.replace(INVISIBLE, (c) => (c === "\n" ? "\\n" : c === "\t" ? "\\t" : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`))}'`;
}

/** True for `{}`-like objects (prototype Object.prototype or null): what option bags and rename maps must be. */
export function isPlainRecord(value: unknown): boolean {
  if (typeof value !== "object" || value === null || isArray(value)) return false;
  const proto = prototypeOf(value);
  return proto === Object.prototype || proto === null;
}

// A revoked Proxy throws on every operation, Array.isArray and getPrototypeOf included: these helpers describe it
// as "an object" and refuse it as an options object, so the caller gets a GraphConfigError instead.
function isArray(value: unknown): boolean {
  try {
    return Array.isArray(value);
  } catch {
    return false;
  }
}

/** The prototype, or `undefined` for an object that refuses to say. */
function prototypeOf(value: object): unknown {
  try {
    return Object.getPrototypeOf(value);
  } catch {
    return undefined;
  }
}
