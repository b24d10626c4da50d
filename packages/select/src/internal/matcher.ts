import type { MatchCursor, Matcher, Path } from "../Matcher.js";
import { Automaton } from "./automaton.js";
import { describeInput, invalidPath } from "./inputErrors.js";
import { parsePattern, patternList } from "./parse.js";

function levels(path: unknown): readonly string[] {
  if (typeof path === "string") return path === "" ? [] : path.split("/");
  if (Array.isArray(path)) {
    const bad = path.findIndex((name: unknown) => typeof name !== "string");
    if (bad === -1) return path as readonly string[];
    throw invalidPath(`level ${bad} of the path is ${describeInput(path[bad])}`);
  }
  throw invalidPath(`the path is ${describeInput(path)}`);
}

/** The matcher `compile` builds; `selectTree` trusts its cursors and skips the checks it runs on other matchers. */
export class CompiledMatcher implements Matcher {
  readonly patterns: readonly string[];
  readonly #automaton: Automaton;

  constructor(patterns: readonly string[], automaton: Automaton) {
    this.patterns = patterns;
    this.#automaton = automaton;
    Object.freeze(this);
  }

  cursor(path: Path = []): MatchCursor {
    let cursor = this.#automaton.root;
    for (const name of levels(path)) {
      if (!cursor.canDescend && !cursor.matched) break; // dead: nothing below can match either
      cursor = cursor.child(name);
    }
    return cursor;
  }

  matches(path: Path): boolean {
    return this.cursor(path).matched;
  }

  couldMatchBelow(path: Path): boolean {
    return this.cursor(path).canDescend;
  }
}

export function compileMatcher(input: string | readonly string[]): Matcher {
  // Array.from turns holes in a sparse array into `undefined`, which parsePattern rejects.
  const patterns = Array.from(patternList(input));
  // Validate everything before building anything, so the error is about the first bad pattern.
  const parsed = patterns.map((pattern) => parsePattern(pattern));
  return new CompiledMatcher(Object.freeze(patterns as string[]), new Automaton(parsed));
}
