// Pattern syntax: validation, error messages, and splitting into segments.
//
// Validation is one left-to-right pass so the *first* problem in the pattern is reported, with its exact
// position. Nothing here builds a regular expression from user input.
import { SelectPatternError, type SelectPatternErrorReason } from "../SelectPatternError.js";

/** One level of a compiled pattern. */
export type Segment =
  /** `**`: zero or more levels. */
  | { readonly kind: "globstar" }
  /** `*`: exactly one level, any name. */
  | { readonly kind: "any" }
  /** A name without wildcards. */
  | { readonly kind: "literal"; readonly name: string }
  /** A name with `*` wildcards: the text between the stars, so `parts.length >= 2`. */
  | { readonly kind: "wildcard"; readonly parts: readonly string[] };

/** A problem found in a pattern, before it is turned into an error message. */
interface Problem {
  readonly reason: SelectPatternErrorReason;
  readonly position: number;
  readonly problem: string;
  readonly fix: string;
  /** A corrected pattern to offer as "Did you mean …?", if one is obvious. */
  readonly suggestion?: string;
}

const EXAMPLES = '"answer", "rag", "rag/*", "rag/**", "**/embedding" or "*/docs"';
const ONE_PATTERN_PER_NAME = 'list each alternative as its own pattern instead, e.g. ["rag/docs", "rag/scores"]';

/** Characters that can never appear in a pattern, with why and how to fix. */
function forbiddenCharacter(pattern: string, char: string): Omit<Problem, "reason" | "position"> | undefined {
  switch (char) {
    case ".":
      return {
        problem: '"." is not allowed',
        fix: 'names never contain "." and levels are separated by "/".',
        suggestion: pattern.replaceAll(".", "/"),
      };
    case "\\":
      return {
        problem: '"\\" is not allowed',
        fix: 'patterns have no escapes, and levels are separated by "/".',
        suggestion: pattern.replaceAll("\\", "/"),
      };
    case "?":
      return {
        problem: '"?" is not allowed',
        fix: 'the only wildcards are "*" (any characters within one name) and "**" (any number of levels).',
        suggestion: pattern.replaceAll("?", "*"),
      };
    case "[":
    case "]":
      return {
        problem: `"${char}" is not allowed`,
        fix: `character classes are not supported; ${ONE_PATTERN_PER_NAME}.`,
      };
    case "{":
    case "}":
      return {
        problem: `"${char}" is not allowed`,
        fix: `brace alternatives are not supported; ${ONE_PATTERN_PER_NAME}.`,
      };
    case "!":
      return {
        problem: '"!" is not allowed',
        fix: "negated patterns are not supported; list the patterns to keep instead.",
      };
    default: {
      const code = char.charCodeAt(0);
      if (code <= 0x1f || (code >= 0x7f && code <= 0x9f)) {
        return {
          problem: `control character U+${code.toString(16).toUpperCase().padStart(4, "0")} is not allowed`,
          fix: "remove it (it often comes from pasted text or a stray newline).",
        };
      }
      return undefined;
    }
  }
}

/** Finds the first problem in `pattern`, or `undefined` when it is valid. */
function findProblem(pattern: string): Problem | undefined {
  if (pattern.length === 0) {
    return {
      reason: "EmptyPattern",
      position: 0,
      problem: "the pattern is empty",
      fix: `write a name or a path, e.g. ${EXAMPLES}. To select nothing, pass an empty list of patterns.`,
    };
  }
  const last = pattern.length - 1;
  let segmentStart = 0;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] as string;
    if (char === "/") {
      if (i === segmentStart) {
        const dropEmpty = pattern
          .split("/")
          .filter((segment) => segment !== "")
          .join("/");
        return i === 0
          ? {
              reason: "EmptySegment",
              position: 0,
              problem: 'the pattern starts with "/"',
              fix: 'patterns are relative to the top of the result; remove the leading "/".',
              suggestion: dropEmpty,
            }
          : {
              reason: "EmptySegment",
              position: i,
              problem: 'empty segment ("//")',
              fix: 'levels are separated by exactly one "/"; remove the extra "/".',
              suggestion: dropEmpty,
            };
      }
      if (i === last) {
        const base = pattern.slice(0, last);
        return {
          reason: "EmptySegment",
          position: i,
          problem: 'the pattern ends with "/"',
          fix: `remove the trailing "/". To select everything under "${base}", write "${base}/**".`,
          suggestion: base,
        };
      }
      segmentStart = i + 1;
      continue;
    }
    if (char === "*") {
      if (pattern[i + 1] === "*") {
        const end = pattern.indexOf("/", i);
        const segmentEnd = end === -1 ? pattern.length : end;
        if (i !== segmentStart || segmentEnd !== i + 2) {
          return {
            reason: "GlobstarInSegment",
            position: i,
            problem: '"**" must be a whole segment',
            fix:
              '"**" matches any number of levels and stands alone between slashes (e.g. "**/embedding" or ' +
              '"rag/**"); within a name use a single "*" (e.g. "emb*").',
            suggestion: collapseStars(pattern),
          };
        }
        i++; // the second star of a valid "**"
      }
      continue;
    }
    const forbidden = forbiddenCharacter(pattern, char);
    if (forbidden !== undefined) return { reason: "InvalidCharacter", position: i, ...forbidden };
  }
  return undefined;
}

/** `***` → `**`, `emb**` → `emb*`: the likely intent of a misplaced `**`. */
function collapseStars(pattern: string): string {
  return pattern
    .split("/")
    .map((segment) => (/^\*+$/.test(segment) ? "**" : segment.replace(/\*{2,}/g, "*")))
    .join("/");
}

/** The pattern with control characters shown as visible one-column symbols, so the caret lines up. */
function visible(pattern: string): string {
  let out = "";
  for (const char of pattern) {
    const code = char.charCodeAt(0);
    if (code <= 0x1f) out += String.fromCharCode(0x2400 + code);
    else if (code === 0x7f) out += "\u2421";
    else if (code >= 0x80 && code <= 0x9f) out += "\ufffd";
    else out += char;
  }
  return out;
}

function toError(pattern: string, found: Problem): SelectPatternError {
  let fix = found.fix;
  const suggestion = found.suggestion;
  if (
    suggestion !== undefined &&
    suggestion !== "" &&
    suggestion !== pattern &&
    findProblem(suggestion) === undefined
  ) {
    fix += ` Did you mean ${JSON.stringify(suggestion)}?`;
  }
  const message =
    `Invalid select pattern ${JSON.stringify(pattern)} at position ${found.position}: ${found.problem}.\n` +
    `  ${visible(pattern)}\n` +
    // Pad by code points, not code units, so the caret stays under the right character after an emoji.
    `  ${" ".repeat([...pattern.slice(0, found.position)].length)}^\n` +
    `How to fix: ${fix}`;
  return new SelectPatternError({ pattern, position: found.position, reason: found.reason, message });
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/**
 * Validates one pattern and splits it into segments.
 *
 * @throws SelectPatternError for any syntax problem (and for a non-string value from untyped callers).
 */
export function parsePattern(pattern: unknown): readonly Segment[] {
  if (typeof pattern !== "string") {
    throw new SelectPatternError({
      pattern: "",
      position: 0,
      reason: "NotAString",
      message:
        `Invalid select pattern: expected a string, got ${describe(pattern)}.\n` +
        `How to fix: pass a pattern string such as ${EXAMPLES}, or an array of them.`,
    });
  }
  const found = findProblem(pattern);
  if (found !== undefined) throw toError(pattern, found);
  return pattern.split("/").map((text): Segment => {
    if (text === "**") return { kind: "globstar" };
    if (text === "*") return { kind: "any" };
    if (!text.includes("*")) return { kind: "literal", name: text };
    return { kind: "wildcard", parts: text.split("*") };
  });
}

/** Normalises the `patterns` argument of `compile` to an array, rejecting anything else. */
export function patternList(patterns: unknown): readonly unknown[] {
  if (typeof patterns === "string") return [patterns];
  if (Array.isArray(patterns)) return patterns;
  throw new SelectPatternError({
    pattern: "",
    position: 0,
    reason: "NotAString",
    message:
      `Invalid select patterns: expected a string or an array of strings, got ${describe(patterns)}.\n` +
      `How to fix: pass a pattern string such as ${EXAMPLES}, or an array of them.`,
  });
}
