/**
 * Reads input names from a function's destructured first parameter, from its source text:
 * `({ text, topK = 5 }) => …`, `async function f({ a, b }) {…}`, `function* g({ x }) {…}` and minified forms such as
 * `({text:e,topK:t=5})=>…`. A default in the pattern makes the input optional.
 */
interface ParsedParam {
  readonly name: string;
  readonly hasDefault: boolean;
}

export type ParseResult =
  | { readonly ok: true; readonly params: readonly ParsedParam[] }
  | { readonly ok: false; readonly reason: string };

const OPEN = new Set(["(", "[", "{"]);
const CLOSE: Record<string, string> = { ")": "(", "]": "[", "}": "{" };

/** Characters after which a `/` starts a regular expression literal rather than a division. */
const REGEX_PRECEDERS = new Set([
  "(",
  ",",
  "=",
  ":",
  "[",
  "!",
  "&",
  "|",
  "?",
  "{",
  "}",
  ";",
  "+",
  "-",
  "*",
  "%",
  "<",
  ">",
  "~",
  "^",
]);

/** Index just after the regular expression literal starting at i, or i if the `/` there is a division. */
function skipRegex(src: string, i: number): number {
  let k = i - 1;
  while (k >= 0 && /\s/.test(src[k]!)) k--;
  if (k >= 0 && !REGEX_PRECEDERS.has(src[k]!)) return i;
  let inClass = false;
  for (let j = i + 1; j < src.length; j++) {
    const ch = src[j]!;
    if (ch === "\\") j++;
    else if (ch === "\n") return i;
    else if (ch === "[") inClass = true;
    else if (ch === "]") inClass = false;
    else if (ch === "/" && !inClass) {
      let end = j + 1;
      while (end < src.length && /[a-z]/i.test(src[end]!)) end++;
      return end;
    }
  }
  return i;
}

/** Index just after the string/template/comment/regex literal starting at i, or i if none starts there. */
function skipLiteral(src: string, i: number): number {
  const c = src[i];
  if (c === '"' || c === "'" || c === "`") {
    let j = i + 1;
    while (j < src.length && src[j] !== c) {
      if (src[j] === "\\") j++;
      else if (c === "`" && src[j] === "$" && src[j + 1] === "{") {
        const close = matchBracket(src, j + 1);
        // Unbalanced interpolation (should not happen in real source): give up on the rest rather than loop.
        if (close < 0) return src.length;
        j = close;
      }
      j++;
    }
    return j + 1;
  }
  if (c === "/" && src[i + 1] === "/") {
    const end = src.indexOf("\n", i);
    return end < 0 ? src.length : end + 1;
  }
  if (c === "/" && src[i + 1] === "*") {
    const end = src.indexOf("*/", i + 2);
    return end < 0 ? src.length : end + 2;
  }
  if (c === "/") return skipRegex(src, i);
  return i;
}

/** Given the index of an opening bracket, returns the index of its matching closing bracket. */
function matchBracket(src: string, open: number): number {
  const stack: string[] = [];
  for (let i = open; i < src.length; i++) {
    const skipped = skipLiteral(src, i);
    if (skipped !== i) {
      i = skipped - 1;
      continue;
    }
    const c = src[i]!;
    if (OPEN.has(c)) stack.push(c);
    else if (c in CLOSE) {
      if (stack.pop() !== CLOSE[c]) return -1;
      if (stack.length === 0) return i;
    }
  }
  return -1;
}

/**
 * Calls `visit(i)` for every character of `src` at bracket depth 0 that is outside strings, templates, regex
 * literals and comments (brackets themselves excluded); stops when `visit` returns true.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: visitors that never stop early return nothing.
function scanTopLevel(src: string, visit: (i: number) => boolean | void): void {
  let depth = 0;
  for (let i = 0; i < src.length; i++) {
    const skipped = skipLiteral(src, i);
    if (skipped !== i) {
      i = skipped - 1;
      continue;
    }
    const c = src[i]!;
    if (OPEN.has(c)) depth++;
    else if (c in CLOSE) depth--;
    else if (depth === 0 && visit(i) === true) return;
  }
}

/** Splits `src` on top-level commas. */
function splitTopLevel(src: string): string[] {
  const parts: string[] = [];
  let start = 0;
  scanTopLevel(src, (i) => {
    if (src[i] !== ",") return false;
    parts.push(src.slice(start, i));
    start = i + 1;
    return false;
  });
  parts.push(src.slice(start));
  return parts.map((p) => stripComments(p).trim()).filter((p) => p.length > 0);
}

/** Replaces comments with a space, leaving strings, templates and regex literals (which may contain `//`) intact. */
function stripComments(src: string): string {
  let out = "";
  for (let i = 0; i < src.length; i++) {
    const skipped = skipLiteral(src, i);
    if (skipped === i) {
      out += src[i];
      continue;
    }
    const isComment = src[i] === "/" && (src[i + 1] === "/" || src[i + 1] === "*");
    out += isComment ? " " : src.slice(i, skipped);
    i = skipped - 1;
  }
  return out;
}

/** Index of the first top-level occurrence of `ch` (outside brackets/literals), or -1. */
function topLevelIndex(src: string, ch: string): number {
  let found = -1;
  scanTopLevel(src, (i) => {
    if (src[i] !== ch) return false;
    // `=>` inside a default is fine: only a bare `=` counts, and not `==`, `>=`, `<=`, `!=`.
    if (ch === "=" && (src[i + 1] === "=" || src[i + 1] === ">" || /[=!<>]/.test(src[i - 1] ?? ""))) return false;
    found = i;
    return true;
  });
  return found;
}

/** Finds the source of the first parameter, or undefined when the function takes no parameter. */
function firstParamSource(src: string): { text: string } | { error: string } | undefined {
  let s = src.trim();
  // Arrow with a single bare identifier parameter: `x => …`, `async x => …`.
  const bareArrow = /^(?:async\s+)?([A-Za-z_$][\w$]*)\s*=>/.exec(s);
  if (bareArrow) return { text: bareArrow[1]! };
  let open = -1;
  for (let i = 0; i < s.length; i++) {
    const skipped = skipLiteral(s, i);
    if (skipped !== i) {
      i = skipped - 1;
      continue;
    }
    if (s[i] === "(") {
      open = i;
      break;
    }
    if (s[i] === "{" || s[i] === "=") return { error: "could not find the parameter list" };
  }
  if (open < 0) return { error: "could not find the parameter list" };
  const close = matchBracket(s, open);
  if (close < 0) return { error: "unbalanced parameter list" };
  s = s.slice(open + 1, close);
  const params = splitTopLevel(s);
  if (params.length === 0) return undefined;
  return { text: params[0]! };
}

const IDENT = /^[A-Za-z_$][\w$]*$/;

/** Helpers that TypeScript (target < ES2017) and Babel emit for downleveled async functions. */
const DOWNLEVEL_HELPERS = ["__awaiter", "__generator", "_asyncToGenerator", "asyncToGenerator", "regeneratorRuntime"];

function unquote(key: string): string | undefined {
  if (IDENT.test(key)) return key;
  const m = /^(["'])(.*)\1$/.exec(key);
  if (m) return m[2];
  return undefined;
}

export function parseDestructuredParams(fn: (...args: never[]) => unknown): ParseResult {
  let source: string;
  try {
    source = Function.prototype.toString.call(fn);
  } catch {
    return { ok: false, reason: "its source is not available" };
  }
  if (/\{\s*\[native code\]\s*\}\s*$/.test(source)) return { ok: false, reason: "it is a native or bound function" };
  const first = firstParamSource(source);
  if (first === undefined) return { ok: true, params: [] };
  if ("error" in first) return { ok: false, reason: first.error };
  let text = first.text.trim();
  const eq = topLevelIndex(text, "=");
  if (eq >= 0) text = text.slice(0, eq).trim();
  if (text.startsWith("...")) return { ok: false, reason: "its first parameter is a rest parameter" };
  if (!text.startsWith("{")) {
    const helper = DOWNLEVEL_HELPERS.find((h) => source.includes(h));
    if (helper !== undefined) {
      return {
        ok: false,
        reason:
          `it was compiled from an async function into a '${helper}' helper call, which turns the destructured parameter into '${text}' ` +
          `(a TypeScript "target" below ES2017, or Babel's async-to-generator transform). ` +
          `Fix: compile with "target": "ES2017" or later (Node 20 runs ES2022 natively), or keep Babel from transforming async functions`,
      };
    }
    return { ok: false, reason: `its first parameter '${text}' is not destructured ({ a, b })` };
  }
  const close = matchBracket(text, 0);
  if (close < 0) return { ok: false, reason: "unbalanced destructuring pattern" };
  const entries = splitTopLevel(text.slice(1, close));
  const params: ParsedParam[] = [];
  for (const entry of entries) {
    if (entry.startsWith("...")) {
      return { ok: false, reason: `its pattern uses a rest element '${entry}'; list inputs explicitly with 'inputs'` };
    }
    if (entry.startsWith("[")) {
      return { ok: false, reason: `its pattern uses a computed key '${entry}'; list inputs explicitly with 'inputs'` };
    }
    const colon = topLevelIndex(entry, ":");
    const eqAt = topLevelIndex(entry, "=");
    let key: string;
    let hasDefault = false;
    if (colon >= 0 && (eqAt < 0 || colon < eqAt)) {
      key = entry.slice(0, colon).trim();
      const target = entry.slice(colon + 1);
      hasDefault = topLevelIndex(target, "=") >= 0;
    } else if (eqAt >= 0) {
      key = entry.slice(0, eqAt).trim();
      hasDefault = true;
    } else {
      key = entry.trim();
    }
    const name = unquote(key);
    if (name === undefined) return { ok: false, reason: `cannot read the input name from '${entry}'` };
    params.push({ name, hasDefault });
  }
  return { ok: true, params };
}

export type ExecutionMode = "sync" | "async" | "sync-generator" | "async-generator";

/** Detects the execution mode from the function's kind (works for transpiled code that keeps native async/generators). */
export function detectMode(fn: (...args: never[]) => unknown): ExecutionMode {
  const kind = Object.getPrototypeOf(fn)?.constructor?.name;
  if (kind === "AsyncGeneratorFunction") return "async-generator";
  if (kind === "GeneratorFunction") return "sync-generator";
  if (kind === "AsyncFunction") return "async";
  return "sync";
}
