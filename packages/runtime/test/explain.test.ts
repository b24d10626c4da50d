import { MemoryCheckpointer } from "@graph/checkpoint";
import { Graph, node, route } from "@graph/core";
import { describe, expect, it } from "vitest";
import { explain, isInvalidOptionError, Runner } from "../src/index.js";

/**
 * A small RAG-like graph: `load` is cached, a gate picks `summarize` or `apologize`, `pickTone` is skipped when the
 * caller supplies `tone`, and the nested `publish` graph wraps the text.
 */
function pipeline() {
  const runs: string[] = [];
  const load = node({ name: "load", output: "docs", cache: true }, ({ query }: { query: string }) => {
    runs.push("load");
    return query === "none" ? [] : [`doc about ${query}`];
  });
  const check = route({ name: "check", targets: ["summarize", "apologize"] }, ({ docs }: { docs: string[] }) =>
    docs.length > 0 ? "summarize" : "apologize",
  );
  const summarize = node({ name: "summarize", output: "summary" }, ({ docs }: { docs: string[] }) => {
    runs.push("summarize");
    return docs.join("; ");
  });
  const apologize = node({ name: "apologize", output: "apology" }, ({ docs }: { docs: string[] }) => {
    runs.push("apologize");
    return `nothing found (${docs.length})`;
  });
  const pickTone = node({ name: "pickTone", output: "tone" }, ({ query }: { query: string }) => {
    runs.push("pickTone");
    return query.length > 3 ? "formal" : "casual";
  });
  const format = node({ name: "format", output: "text" }, ({ summary, tone }: { summary: string; tone: string }) => {
    runs.push("format");
    return `[${tone}] ${summary}`;
  });
  const wrap = node({ name: "wrap", output: "html" }, ({ text }: { text: string }) => {
    runs.push("wrap");
    return `<p>${text}</p>`;
  });
  const publish = new Graph([wrap], { name: "publish" }).asNode();
  const graph = new Graph([load, check, summarize, apologize, pickTone, format, publish], { name: "explained" });
  return { graph, runs };
}

const lines = (result: Parameters<typeof explain>[0]) =>
  explain(result).map((l) => [l.path, l.status, l.reason, l.runs, ...(l.detail === undefined ? [] : [l.detail])]);

describe("explain(result)", () => {
  it("says why each node ran or not: gate, cache hit, supplied value, not stale on a re-run, nested nodes", async () => {
    const { graph, runs } = pipeline();
    const runner = new Runner({ checkpointer: new MemoryCheckpointer(), cache: { store: "memory" } });

    const first = await runner.run(graph, { values: { query: "cats", tone: "warm" }, workflowId: "w1", explain: true });
    expect(first.values["html"]).toBe("<p>[warm] doc about cats</p>");
    expect(lines(first)).toEqual([
      ["load", "ran", "first run", 1],
      ["check", "ran", "first run", 1],
      ["summarize", "ran", "first run", 1],
      ["apologize", "skipped", "gate not taken", 0, "check chose summarize"],
      ["pickTone", "skipped", "supplied value", 0],
      ["format", "ran", "first run", 1],
      ["publish", "ran", "first run", 1],
      ["publish/wrap", "ran", "first run", 1],
    ]);

    // Another workflow with the same query: load's result comes from the cache.
    const second = await runner.run(graph, {
      values: { query: "cats", tone: "warm" },
      workflowId: "w2",
      explain: true,
    });
    expect(lines(second)[0]).toEqual(["load", "cached", "cache hit", 0]);

    // A re-run of w1 with a new tone: only what reads it runs again; load and the gate's branch are not stale.
    runs.length = 0;
    const rerun = await runner.run(graph, { values: { tone: "dry" }, workflowId: "w1", explain: true });
    expect(rerun.values["html"]).toBe("<p>[dry] doc about cats</p>");
    expect(runs).toEqual(["format", "wrap"]);
    expect(lines(rerun)).toEqual([
      ["load", "skipped", "not stale", 0],
      ["check", "skipped", "not stale", 0],
      ["summarize", "skipped", "not stale", 0],
      ["apologize", "skipped", "gate not taken", 0, "check chose summarize"],
      ["pickTone", "skipped", "supplied value", 0],
      ["format", "ran", "inputs changed", 1],
      ["publish", "ran", "inputs changed", 1],
      ["publish/wrap", "ran", "inputs changed", 1],
    ]);
    await runner.close();
  });

  it("a node whose output was supplied in an earlier run stays skipped, and says so, when its input changes", async () => {
    const { graph, runs } = pipeline();
    const runner = new Runner({ checkpointer: new MemoryCheckpointer() });
    await runner.run(graph, { values: { query: "cats", tone: "warm" }, workflowId: "w-tone", explain: true });
    runs.length = 0;
    // A new query: pickTone reads it, but `tone` was supplied in the first run and still stands.
    const next = await runner.run(graph, { values: { query: "dogs" }, workflowId: "w-tone", explain: true });
    expect(runs).toEqual(["load", "summarize", "format", "wrap"]);
    expect(next.values["html"]).toBe("<p>[warm] doc about dogs</p>");
    expect(lines(next).find(([path]) => path === "pickTone")).toEqual([
      "pickTone",
      "skipped",
      "supplied value",
      0,
      "supplied in an earlier run of this workflow",
    ]);
    await runner.close();
  });

  it("reports a failed node, and nodes after it as not reached (no checkpointer)", async () => {
    const a = node({ name: "a", output: "x" }, () => {
      throw new Error("down");
    });
    const b = node({ name: "b", output: "y" }, ({ x }: { x: number }) => x);
    const runner = new Runner();
    const result = await runner.run(new Graph([a, b]), { explain: true, errorHandling: "continue" });
    expect(lines(result)).toEqual([
      ["a", "failed", "failed", 0],
      ["b", "skipped", "not reached", 0],
    ]);
  });

  it("needs { explain: true }: other runs keep no record", async () => {
    const runner = new Runner();
    const result = await runner.run(new Graph([node({ name: "id", output: "y" }, ({ x }: { x: number }) => x)]), {
      values: { x: 1 },
    });
    let error: unknown;
    try {
      explain(result);
    } catch (e) {
      error = e;
    }
    expect(isInvalidOptionError(error)).toBe(true);
    expect((error as Error).message).toContain("run with { explain: true }");
    await expect(
      runner.run(new Graph([node({ name: "one", output: "y" }, () => 1)]), { explain: "yes" as never }),
    ).rejects.toThrow("option 'explain' must be true or false");
  });
});

describe("explain(result) with runSync and start", () => {
  it("runSync keeps the record too (no store: nothing to read, the run stays synchronous)", () => {
    const inc = node({ name: "inc", output: "y" }, ({ x }: { x: number }) => x + 1);
    const result = new Runner().runSync(new Graph([inc]), { values: { x: 1 }, explain: true });
    expect(lines(result)).toEqual([["inc", "ran", "first run", 1]]);
  });

  it("the handle of runner.start resolves to an explained result", async () => {
    const inc = node({ name: "inc", output: "y" }, ({ x }: { x: number }) => x + 1);
    const handle = new Runner({ checkpointer: new MemoryCheckpointer() }).start(new Graph([inc]), {
      values: { x: 1 },
      explain: true,
    });
    expect(lines(await handle.result)).toEqual([["inc", "ran", "first run", 1]]);
  });
});

describe("explain(result) of mapped GraphNodes", () => {
  it("lists each item's nodes under the item's index", async () => {
    const pair = node({ name: "pair", output: "label" }, ({ a }: { a: string }) => a.toUpperCase());
    const inner = new Graph([pair], { name: "inner" });
    const runner = new Runner();
    const result = await runner.run(new Graph([inner.asNode({ name: "each" }).mapOver("a")]), {
      values: { a: ["x", "y"] },
      explain: true,
    });
    expect(result.values["label"]).toEqual(["X", "Y"]);
    expect(lines(result)).toEqual([
      ["each", "ran", "first run", 1],
      ["each/0/pair", "ran", "first run", 1],
      ["each/1/pair", "ran", "first run", 1],
    ]);
  });
});
