// Every TypeScript example of the READMEs, docs/ and TSDoc `@example` blocks compiles against the current API.
// There is no allow-list: an example that stops compiling fails the run, with the file, line and compiler message.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { checkExamples } from "../src/check.js";
import { findExamples } from "../src/examples.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../../..");
const examples = findExamples(root);
const results = checkExamples(root, examples, path.resolve(here, "../.generated"));

describe("documentation examples type-check", () => {
  it("finds the examples of every package", () => {
    expect(examples.length).toBeGreaterThan(100);
    expect(new Set(examples.map((e) => e.packageName)).size).toBeGreaterThanOrEqual(7);
    expect(results.length).toBe(examples.length);
  });

  it.each(results.map((r) => [r.example.where, r] as const))("%s", (_where, result) => {
    expect(result.errors).toEqual([]);
  });
});
