// Every TypeScript example of the READMEs, docs/ and TSDoc `@example` blocks compiles against the current API —
// except those listed in known-failures.json (broken when the doc tests were introduced), which must stay exactly
// the list of failing examples: a new failure fails the run; a listed example that now compiles is reported.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { checkExamples, exampleKey } from "../src/check.js";
import { findExamples } from "../src/examples.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../../..");
const examples = findExamples(root);
const results = checkExamples(root, examples, path.resolve(here, "../.generated"));
const known = JSON.parse(fs.readFileSync(path.resolve(here, "../known-failures.json"), "utf8")) as Record<
  string,
  string
>;

describe("documentation examples type-check", () => {
  it("finds the examples of every package", () => {
    expect(examples.length).toBeGreaterThan(100);
    expect(new Set(examples.map((e) => e.packageName)).size).toBeGreaterThanOrEqual(7);
  });

  const checked = results.filter((r) => !(exampleKey(r.example) in known));
  it.each(checked.map((r) => [r.example.where, r] as const))("%s", (_where, result) => {
    expect(result.errors).toEqual([]);
  });

  it("known-failures.json lists only examples that exist", () => {
    const failing = new Set(results.filter((r) => r.errors.length > 0).map((r) => exampleKey(r.example)));
    // A listed example that compiles now (or was edited) only needs its entry removed: say so, don't fail.
    const stale = Object.keys(known).filter((key) => !failing.has(key));
    if (stale.length > 0) console.warn(`known-failures.json: remove ${stale.join(", ")} (they compile now)`);
    expect(results.length).toBe(examples.length);
  });
});
