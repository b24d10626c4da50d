import { describe, expect, it } from "vitest";
import { compile } from "../src/index.js";

describe("compile / Matcher — the pattern table", () => {
  it("`answer` matches that top-level path only", () => {
    const matcher = compile("answer");
    expect(matcher.matches("answer")).toBe(true);
    expect(matcher.matches(["answer"])).toBe(true);
    expect(matcher.matches("answers")).toBe(false);
    expect(matcher.matches("rag/answer")).toBe(false);
    expect(matcher.matches("answer/x")).toBe(false);
    expect(matcher.couldMatchBelow("answer")).toBe(false);
    expect(matcher.couldMatchBelow("")).toBe(true);
  });

  it("`rag` matches the nested result itself, not its children", () => {
    const matcher = compile("rag");
    expect(matcher.matches("rag")).toBe(true);
    expect(matcher.matches("rag/docs")).toBe(false);
    expect(matcher.couldMatchBelow("rag")).toBe(false);
  });

  it("`rag/*` matches direct children of rag only", () => {
    const matcher = compile("rag/*");
    expect(matcher.matches("rag")).toBe(false);
    expect(matcher.matches("rag/docs")).toBe(true);
    expect(matcher.matches("rag/")).toBe(true); // the empty name is a name: `*` matches zero characters
    expect(matcher.matches("rag/inner/docs")).toBe(false);
    expect(matcher.matches("other/docs")).toBe(false);
    expect(matcher.couldMatchBelow("rag")).toBe(true);
    expect(matcher.couldMatchBelow("rag/docs")).toBe(false);
    expect(matcher.couldMatchBelow("other")).toBe(false);
  });

  it("`rag/**` matches rag and everything under it", () => {
    const matcher = compile("rag/**");
    expect(matcher.matches("rag")).toBe(true);
    expect(matcher.matches("rag/docs")).toBe(true);
    expect(matcher.matches("rag/a/b/c/d")).toBe(true);
    expect(matcher.matches("other/docs")).toBe(false);
    expect(matcher.matches("")).toBe(false);
    expect(matcher.couldMatchBelow("rag/a/b")).toBe(true);
    expect(matcher.couldMatchBelow("other")).toBe(false);
  });

  it("`**/embedding` matches embedding at any depth, including the top level", () => {
    const matcher = compile("**/embedding");
    expect(matcher.matches("embedding")).toBe(true);
    expect(matcher.matches("rag/embedding")).toBe(true);
    expect(matcher.matches("a/b/c/embedding")).toBe(true);
    expect(matcher.matches("embedding/x")).toBe(false);
    expect(matcher.matches("a/embeddings")).toBe(false);
    expect(matcher.couldMatchBelow("anything/at/all")).toBe(true);
  });

  it("`*/docs` matches docs of any direct child", () => {
    const matcher = compile("*/docs");
    expect(matcher.matches("rag/docs")).toBe(true);
    expect(matcher.matches("search/docs")).toBe(true);
    expect(matcher.matches("docs")).toBe(false);
    expect(matcher.matches("a/b/docs")).toBe(false);
    expect(matcher.couldMatchBelow("rag")).toBe(true);
    expect(matcher.couldMatchBelow("rag/docs")).toBe(false);
  });

  it("`*` inside a name matches within one level only", () => {
    const matcher = compile("emb*");
    expect(matcher.matches("emb")).toBe(true);
    expect(matcher.matches("embedding")).toBe(true);
    expect(matcher.matches("embed/ding")).toBe(false);
    expect(matcher.matches("xembedding")).toBe(false);
    const middle = compile("a*b*c");
    expect(middle.matches("abc")).toBe(true);
    expect(middle.matches("a-b-c")).toBe(true);
    expect(middle.matches("abbcc")).toBe(true);
    expect(middle.matches("ac")).toBe(false);
    expect(middle.matches("abcb")).toBe(false);
    expect(compile("*ab*ab").matches("ab")).toBe(false); // prefix and suffix cannot overlap the middle
    expect(compile("*ab*ab").matches("abab")).toBe(true);
    expect(compile("a*a").matches("a")).toBe(false);
    expect(compile("a*a").matches("aa")).toBe(true);
  });

  it("`**` in the middle matches zero or more levels", () => {
    const matcher = compile("a/**/b");
    expect(matcher.matches("a/b")).toBe(true);
    expect(matcher.matches("a/x/b")).toBe(true);
    expect(matcher.matches("a/x/y/b")).toBe(true);
    expect(matcher.matches("a/x/y")).toBe(false);
    expect(compile("**/**/x").matches("x")).toBe(true);
    expect(compile("**/a/**/a").matches("a/a/a/a")).toBe(true);
  });

  it("a lone `**` matches every path, the root included", () => {
    const matcher = compile("**");
    expect(matcher.matches("")).toBe(true);
    expect(matcher.matches([])).toBe(true);
    expect(matcher.matches("a/b/c")).toBe(true);
    expect(matcher.couldMatchBelow("a/b/c")).toBe(true);
  });

  it("a list matches when any pattern does", () => {
    const matcher = compile(["answer", "rag/*"]);
    expect(matcher.patterns).toEqual(["answer", "rag/*"]);
    expect(Object.isFrozen(matcher.patterns)).toBe(true);
    expect(matcher.matches("answer")).toBe(true);
    expect(matcher.matches("rag/docs")).toBe(true);
    expect(matcher.matches("rag")).toBe(false);
  });

  it("an empty list matches nothing", () => {
    const matcher = compile([]);
    expect(matcher.patterns).toEqual([]);
    expect(matcher.matches("")).toBe(false);
    expect(matcher.matches("a")).toBe(false);
    expect(matcher.couldMatchBelow("")).toBe(false);
  });

  it("path arrays allow names containing `/`, matched literally", () => {
    expect(compile("*").matches(["a/b"])).toBe(true);
    expect(compile("a/b").matches(["a/b"])).toBe(false);
  });

  it("names with spaces and other allowed characters match literally", () => {
    expect(compile("final answer").matches("final answer")).toBe(true);
    expect(compile("my-node:1/@out$").matches("my-node:1/@out$")).toBe(true);
    expect(compile("ünïcødé/名前").matches(["ünïcødé", "名前"])).toBe(true);
  });

  it("cursors read a path one level at a time", () => {
    const matcher = compile(["**/docs", "answer"]);
    const root = matcher.cursor();
    expect(root.matched).toBe(false);
    expect(root.canDescend).toBe(true);
    const rag = root.child("rag");
    expect(rag.matched).toBe(false);
    expect(rag.canDescend).toBe(true);
    const docs = rag.child("docs");
    expect(docs.matched).toBe(true);
    expect(docs.canDescend).toBe(true); // "**/docs" could still match rag/docs/…/docs
    expect(matcher.cursor("rag/docs").matched).toBe(true);
    const answer = root.child("answer");
    expect(answer.matched).toBe(true);
    const onlyAnswer = compile("answer").cursor("answer");
    expect(onlyAnswer.canDescend).toBe(false);
    const dead = onlyAnswer.child("x");
    expect(dead.matched).toBe(false);
    expect(dead.canDescend).toBe(false);
    expect(dead.child("y").matched).toBe(false);
  });

  it("the matcher is immutable", () => {
    const matcher = compile("a");
    expect(Object.isFrozen(matcher)).toBe(true);
  });

  it("matching stays linear on a pathological wildcard segment", () => {
    const matcher = compile("*a*a*a*a*a*a*a*a*b");
    const long = "a".repeat(100_000);
    expect(matcher.matches(long)).toBe(false);
    expect(matcher.matches(`${long}b`)).toBe(true);
    expect(compile("*a*a*a*a*a*a*a*a*a*a").matches(long)).toBe(true);
    expect(compile("*a*a*a*a*a*a*a*a*a*a*").matches("ab".repeat(50_000))).toBe(true);
  });

  it("matching stays linear with many `**` against a deep path", () => {
    const pattern = `${Array.from({ length: 30 }, () => "**").join("/")}/b`;
    const path = Array.from({ length: 5_000 }, () => "a");
    expect(compile(pattern).matches(path)).toBe(false);
    expect(compile(pattern).matches([...path, "b"])).toBe(true);
    expect(compile("**/a/**/a/**/a/**/b").matches(path)).toBe(false);
  });
});
