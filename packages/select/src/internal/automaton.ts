// The compiled form of a pattern list: one flat array of segment states, run as an NFA.
//
// Pattern p with n segments owns states o..o+n, where o+n is p's ACCEPT state. Reading one path level moves
// every live state forward: a segment state advances when its segment matches the name, a GLOBSTAR state also
// stays where it is, and the epsilon-closure skips over GLOBSTAR states (`**` may match zero levels). The live
// set never holds a state twice, so one step costs O(states × name length) and a whole path
// O(path length × total pattern length) — no backtracking, whatever the input.
import type { MatchCursor } from "../Matcher.js";
import { describeInput, invalidPath } from "./inputErrors.js";
import type { Segment } from "./parse.js";

const ACCEPT = 0;
const GLOBSTAR = 1;
const ANY = 2;
const LITERAL = 3;
const WILDCARD = 4;

/**
 * Does `name` match a segment with `*` wildcards? `parts` is the text between the stars (at least two).
 * The first part must be a prefix, the last a suffix, and the middle parts occur in order in between; taking
 * the earliest occurrence of each middle part is always safe, so this never backtracks.
 */
function wildcardMatches(parts: readonly string[], name: string): boolean {
  const first = parts[0] as string;
  const lastIndex = parts.length - 1;
  const final = parts[lastIndex] as string;
  if (name.length < first.length + final.length) return false;
  if (!name.startsWith(first) || !name.endsWith(final)) return false;
  let from = first.length;
  const limit = name.length - final.length;
  for (let i = 1; i < lastIndex; i++) {
    const part = parts[i] as string;
    const at = name.indexOf(part, from);
    if (at === -1 || at + part.length > limit) return false;
    from = at + part.length;
  }
  return true;
}

export class Automaton {
  readonly #kinds: Uint8Array;
  /** The literal name (LITERAL) or wildcard parts (WILDCARD) of each state. */
  readonly #data: ReadonlyArray<string | readonly string[] | undefined>;
  /** Generation marks for de-duplicating a state set without allocating one per step. */
  readonly #marks: Uint32Array;
  #generation = 0;
  readonly root: MatchCursor;

  constructor(patterns: ReadonlyArray<readonly Segment[]>) {
    const kinds: number[] = [];
    const data: Array<string | readonly string[] | undefined> = [];
    const starts: number[] = [];
    for (const segments of patterns) {
      starts.push(kinds.length);
      for (const segment of segments) {
        switch (segment.kind) {
          case "globstar":
            kinds.push(GLOBSTAR);
            data.push(undefined);
            break;
          case "any":
            kinds.push(ANY);
            data.push(undefined);
            break;
          case "literal":
            kinds.push(LITERAL);
            data.push(segment.name);
            break;
          case "wildcard":
            kinds.push(WILDCARD);
            data.push(segment.parts);
            break;
        }
      }
      kinds.push(ACCEPT);
      data.push(undefined);
    }
    this.#kinds = Uint8Array.from(kinds);
    this.#data = data;
    this.#marks = new Uint32Array(kinds.length);
    const states: number[] = [];
    this.#nextGeneration();
    for (const start of starts) this.#addClosure(states, start);
    this.root = this.#cursor(states);
  }

  #nextGeneration(): void {
    if (this.#generation === 0xffffffff) {
      this.#marks.fill(0);
      this.#generation = 0;
    }
    this.#generation++;
  }

  /** Adds `state` and, through any GLOBSTAR (which may match zero levels), the states after it. */
  #addClosure(states: number[], state: number): void {
    const marks = this.#marks;
    const generation = this.#generation;
    let current = state;
    while (marks[current] !== generation) {
      marks[current] = generation;
      states.push(current);
      if (this.#kinds[current] !== GLOBSTAR) return;
      current++;
    }
  }

  step(states: readonly number[], name: string): MatchCursor {
    const next: number[] = [];
    this.#nextGeneration();
    for (const state of states) {
      switch (this.#kinds[state]) {
        case GLOBSTAR:
          this.#addClosure(next, state);
          break;
        case ANY:
          this.#addClosure(next, state + 1);
          break;
        case LITERAL:
          if (this.#data[state] === name) this.#addClosure(next, state + 1);
          break;
        case WILDCARD:
          if (wildcardMatches(this.#data[state] as readonly string[], name)) this.#addClosure(next, state + 1);
          break;
        default: // ACCEPT: a complete match cannot read further levels
          break;
      }
    }
    return this.#cursor(next);
  }

  #cursor(states: readonly number[]): MatchCursor {
    if (states.length === 0) return DEAD;
    let matched = false;
    let canDescend = false;
    for (const state of states) {
      if (this.#kinds[state] === ACCEPT) matched = true;
      else canDescend = true; // every segment matches at least one name, so a live non-accept state can progress
    }
    return new Cursor(this, states, matched, canDescend);
  }
}

class Cursor implements MatchCursor {
  readonly #automaton: Automaton;
  readonly #states: readonly number[];
  readonly matched: boolean;
  readonly canDescend: boolean;

  constructor(automaton: Automaton, states: readonly number[], matched: boolean, canDescend: boolean) {
    this.#automaton = automaton;
    this.#states = states;
    this.matched = matched;
    this.canDescend = canDescend;
  }

  child(name: string): MatchCursor {
    if (typeof name !== "string") throw invalidPath(`child() was given ${describeInput(name)} as a name`);
    return this.canDescend ? this.#automaton.step(this.#states, name) : DEAD;
  }
}

/** The cursor below which nothing can match; shared by every automaton. */
const DEAD: MatchCursor = Object.freeze({
  matched: false,
  canDescend: false,
  child(name: string): MatchCursor {
    if (typeof name !== "string") throw invalidPath(`child() was given ${describeInput(name)} as a name`);
    return DEAD;
  },
});
