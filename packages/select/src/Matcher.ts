/**
 * Compiling select patterns into a {@link Matcher} and asking it about paths.
 *
 * @module
 */
import { compileMatcher } from "./internal/matcher.js";

/**
 * A path into a result tree: `"rag/docs"` or `["rag", "docs"]`. The empty string and the empty array are the
 * root. Use the array form when a name could contain `/`.
 *
 * @example
 * ```ts
 * import { compile, type Path } from "@graph/select";
 *
 * const path: Path = ["rag", "docs"];
 * compile("rag/*").matches(path); // true
 * ```
 */
export type Path = string | readonly string[];

/**
 * The match state after reading a path one level at a time. `selectTree` walks the tree with cursors so every
 * level is read once, however deep the tree.
 *
 * @example
 * ```ts
 * import { compile } from "@graph/select";
 *
 * const rag = compile("**\/docs").cursor().child("rag");
 * rag.matched; // false: "rag" itself is not selected
 * rag.canDescend; // true: something below "rag" may be
 * rag.child("docs").matched; // true
 * ```
 */
export interface MatchCursor {
  /** The path read so far matches one of the patterns exactly. */
  readonly matched: boolean;
  /** Some longer path that starts with the path read so far could match (false ⇒ prune here). */
  readonly canDescend: boolean;
  /** The cursor for the path one level further down, through the child called `name`. */
  child(name: string): MatchCursor;
}

/**
 * A compiled, immutable list of select patterns. Create one with {@link compile}; reuse it freely.
 *
 * A path matches when it matches at least one pattern. Pattern semantics, level by level:
 * a name matches itself; `*` matches any one name; `emb*` matches any one name starting with `emb`
 * (a `*` inside a name never crosses a `/`); `**` matches zero or more levels.
 *
 * @example
 * ```ts
 * import { compile } from "@graph/select";
 *
 * const matcher = compile(["answer", "rag/*"]);
 * matcher.matches("rag/docs"); // true
 * matcher.matches("rag/inner/docs"); // false: "rag/*" reads exactly two levels
 * matcher.couldMatchBelow("rag"); // true
 * matcher.couldMatchBelow("answer"); // false
 * ```
 */
export interface Matcher {
  /** The patterns this matcher was compiled from, in the order given. */
  readonly patterns: readonly string[];
  /** Does the whole `path` match one of the patterns? */
  matches(path: Path): boolean;
  /** Could some path strictly below `path` match? `false` means a walk can skip everything under it. */
  couldMatchBelow(path: Path): boolean;
  /** The cursor after reading `path` (default: the root), for walking a tree level by level. */
  cursor(path?: Path): MatchCursor;
}

/**
 * Validates and compiles one pattern or a list of patterns into a {@link Matcher}.
 *
 * All syntax errors are found here, up front: an empty pattern, an empty segment (leading or trailing `/`,
 * or `//`), `**` that is not a whole segment (`***`, `**x`), and characters that are not allowed
 * (`. \ [ ] { } ? !` and control characters). Any other character, including spaces, may appear in a name.
 * An empty list compiles to a matcher that matches nothing.
 *
 * @throws {@link SelectPatternError} naming the pattern and the position of the first problem.
 *
 * @example
 * ```ts
 * import { compile } from "@graph/select";
 *
 * const matcher = compile(["answer", "**\/embedding", "*\/docs"]);
 * matcher.matches("answer"); // true
 * matcher.matches("rag/inner/embedding"); // true
 * matcher.matches("rag/docs"); // true
 * matcher.matches("rag/inner/docs"); // false
 * ```
 */
export function compile(patterns: string | readonly string[]): Matcher {
  return compileMatcher(patterns);
}
