import { describe, expect, it } from "vitest";
import { compile, isSelectPatternError, SelectPatternError, selectTree } from "../src/index.js";

function errorOf(run: () => unknown): SelectPatternError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(SelectPatternError);
    return error as SelectPatternError;
  }
  throw new Error("expected a SelectPatternError, nothing was thrown");
}

interface Case {
  readonly pattern: string;
  readonly reason: SelectPatternError["reason"];
  readonly position: number;
  readonly problem: string;
  readonly fix: readonly string[];
}

const cases: readonly Case[] = [
  {
    pattern: "",
    reason: "EmptyPattern",
    position: 0,
    problem: "the pattern is empty",
    fix: ["To select nothing, pass an empty list of patterns."],
  },
  {
    pattern: "/rag",
    reason: "EmptySegment",
    position: 0,
    problem: 'the pattern starts with "/"',
    fix: ['remove the leading "/"', 'Did you mean "rag"?'],
  },
  {
    pattern: "rag/",
    reason: "EmptySegment",
    position: 3,
    problem: 'the pattern ends with "/"',
    fix: ['remove the trailing "/"', 'write "rag/**"', 'Did you mean "rag"?'],
  },
  {
    pattern: "rag//docs",
    reason: "EmptySegment",
    position: 4,
    problem: 'empty segment ("//")',
    fix: ['remove the extra "/"', 'Did you mean "rag/docs"?'],
  },
  {
    pattern: "/",
    reason: "EmptySegment",
    position: 0,
    problem: 'the pattern starts with "/"',
    fix: ['remove the leading "/"'],
  },
  {
    pattern: "a/***",
    reason: "GlobstarInSegment",
    position: 2,
    problem: '"**" must be a whole segment',
    fix: ['within a name use a single "*"', 'Did you mean "a/**"?'],
  },
  {
    pattern: "**x",
    reason: "GlobstarInSegment",
    position: 0,
    problem: '"**" must be a whole segment',
    fix: ['stands alone between slashes (e.g. "**/embedding"', 'Did you mean "*x"?'],
  },
  {
    pattern: "rag/emb**",
    reason: "GlobstarInSegment",
    position: 7,
    problem: '"**" must be a whole segment',
    fix: ['Did you mean "rag/emb*"?'],
  },
  {
    pattern: "a**b/c",
    reason: "GlobstarInSegment",
    position: 1,
    problem: '"**" must be a whole segment',
    fix: ['Did you mean "a*b/c"?'],
  },
  {
    pattern: "rag.docs",
    reason: "InvalidCharacter",
    position: 3,
    problem: '"." is not allowed',
    fix: ['names never contain "."', 'Did you mean "rag/docs"?'],
  },
  {
    pattern: "rag\\docs",
    reason: "InvalidCharacter",
    position: 3,
    problem: '"\\" is not allowed',
    fix: ["patterns have no escapes", 'Did you mean "rag/docs"?'],
  },
  {
    pattern: "doc?",
    reason: "InvalidCharacter",
    position: 3,
    problem: '"?" is not allowed',
    fix: ['the only wildcards are "*"', 'Did you mean "doc*"?'],
  },
  {
    pattern: "rag/[ab]",
    reason: "InvalidCharacter",
    position: 4,
    problem: '"[" is not allowed',
    fix: ["character classes are not supported", "list each alternative as its own pattern"],
  },
  {
    pattern: "rag/a]",
    reason: "InvalidCharacter",
    position: 5,
    problem: '"]" is not allowed',
    fix: ["character classes are not supported"],
  },
  {
    pattern: "rag/{docs,scores}",
    reason: "InvalidCharacter",
    position: 4,
    problem: '"{" is not allowed',
    fix: ["brace alternatives are not supported", '["rag/docs", "rag/scores"]'],
  },
  {
    pattern: "a}",
    reason: "InvalidCharacter",
    position: 1,
    problem: '"}" is not allowed',
    fix: ["brace alternatives are not supported"],
  },
  {
    pattern: "!rag",
    reason: "InvalidCharacter",
    position: 0,
    problem: '"!" is not allowed',
    fix: ["negated patterns are not supported"],
  },
  {
    pattern: "rag\n",
    reason: "InvalidCharacter",
    position: 3,
    problem: "control character U+000A is not allowed",
    fix: ["remove it"],
  },
  {
    pattern: "a\u007f",
    reason: "InvalidCharacter",
    position: 1,
    problem: "control character U+007F is not allowed",
    fix: ["remove it"],
  },
];

describe("SelectPatternError", () => {
  it.each(cases)("rejects $pattern ($reason at $position)", ({ pattern, reason, position, problem, fix }) => {
    const error = errorOf(() => compile(pattern));
    expect(error._tag).toBe("SelectPatternError");
    expect(error.name).toBe("SelectPatternError");
    expect(error.reason).toBe(reason);
    expect(error.pattern).toBe(pattern);
    expect(error.position).toBe(position);
    expect(isSelectPatternError(error)).toBe(true);
    const lines = error.message.split("\n");
    expect(lines[0]).toBe(`Invalid select pattern ${JSON.stringify(pattern)} at position ${position}: ${problem}.`);
    expect(lines[2]).toBe(`  ${" ".repeat(position)}^`);
    expect(lines[3]).toMatch(/^How to fix: /);
    for (const part of fix) expect(error.message).toContain(part);
  });

  it("renders the whole message with a caret under the problem", () => {
    expect(errorOf(() => compile("rag//docs")).message).toBe(
      [
        'Invalid select pattern "rag//docs" at position 4: empty segment ("//").',
        "  rag//docs",
        "      ^",
        'How to fix: levels are separated by exactly one "/"; remove the extra "/". Did you mean "rag/docs"?',
      ].join("\n"),
    );
  });

  it("shows control characters as visible symbols so the caret lines up", () => {
    const error = errorOf(() => compile("a\tb"));
    expect(error.message.split("\n").slice(1, 3)).toEqual(["  a\u2409b", "   ^"]);
  });

  it("keeps the caret under the right character after astral characters", () => {
    const error = errorOf(() => compile("😀.x"));
    expect(error.position).toBe(2); // UTF-16 index
    expect(error.message.split("\n").slice(1, 3)).toEqual(["  😀.x", "   ^"]);
  });

  it("reports the first problem when there are several", () => {
    const error = errorOf(() => compile("a.b//c**"));
    expect(error.reason).toBe("InvalidCharacter");
    expect(error.position).toBe(1);
    expect(errorOf(() => compile("a**/b.c")).position).toBe(1);
  });

  it("offers no suggestion when the obvious one is not valid either", () => {
    const error = errorOf(() => compile(".rag"));
    expect(error.message).not.toContain("Did you mean");
  });

  it("names the offending pattern in a list, and validates before matching anything", () => {
    const error = errorOf(() => compile(["answer", "rag/*", "rag//x"]));
    expect(error.pattern).toBe("rag//x");
    expect(error.position).toBe(4);
  });

  it("selectTree rejects invalid patterns the same way", () => {
    const error = errorOf(() => selectTree({ a: 1 }, ["a", "b."]));
    expect(error._tag).toBe("SelectPatternError");
    expect(error.position).toBe(1);
  });

  it("rejects non-string patterns from untyped callers with a SelectPatternError", () => {
    const notAString = errorOf(() => compile([42] as unknown as string[]));
    expect(notAString.reason).toBe("NotAString");
    expect(notAString.pattern).toBe("");
    expect(notAString.position).toBe(0);
    expect(notAString.message).toContain("expected a string, got a number");
    const hole = errorOf(() => compile(new Array<string>(1)));
    expect(hole.message).toContain("got undefined");
    const notAList = errorOf(() => compile(null as unknown as string));
    expect(notAList.reason).toBe("NotAString");
    expect(notAList.message).toContain("expected a string or an array of strings, got null");
  });

  it("isSelectPatternError checks the shared @graph error brand and the tag, not the class", () => {
    expect(isSelectPatternError({ _tag: "SelectPatternError", [Symbol.for("@graph/error")]: true })).toBe(true);
    expect(isSelectPatternError({ _tag: "SelectPatternError" })).toBe(false);
    expect(isSelectPatternError({ _tag: "OtherError", [Symbol.for("@graph/error")]: true })).toBe(false);
    expect(isSelectPatternError(new Error("x"))).toBe(false);
    expect(isSelectPatternError(null)).toBe(false);
    expect(isSelectPatternError("SelectPatternError")).toBe(false);
  });

  it("allows spaces and the other characters names may contain", () => {
    expect(() => compile(["final answer", "a-b_c:d@e$f", "x/ y /z", "名前/*", "😀"])).not.toThrow();
  });
});
