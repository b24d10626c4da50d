import { Graph, node } from "@graph/core";
import { describe, expect, it } from "vitest";
import { EventLog, graphView } from "../src/index.js";
import { preview } from "../src/preview.js";
import { reviewGraph } from "./helpers.js";

describe("graphView", () => {
  it("locates every node, nested ones too, by the ids of toMermaid()", () => {
    const view = graphView(reviewGraph());
    expect(view.name).toBe("review");
    expect(view.nodes).toEqual([
      { path: "prepare", id: "n0", type: "graph", mapped: false, label: "prepare" },
      { path: "prepare/shout", id: "n0_n0", type: "function", mapped: false, label: "shout" },
      { path: "approval", id: "n1", type: "interrupt", mapped: false, label: "approval", answer: { kind: "json" } },
      { path: "publish", id: "n2", type: "function", mapped: false, label: "publish" },
    ]);
    expect(view.mermaid).toContain('subgraph n0 ["prepare"]');
    expect(view.mermaid).toContain('n0_n0["shout"]');
  });

  it("shows a frames pipeline as a mapped node with its window, its per-frame nodes inside", () => {
    const pages = node({ name: "pages", output: "page", frames: { window: 4 } }, async function* pages() {
      yield 1;
    });
    const embed = node({ name: "embed", output: "vector" }, function embed({ page }: { page: number }) {
      return [page];
    });
    const view = graphView(new Graph([pages, embed], { name: "pipe" }));
    expect(view.nodes).toEqual([
      { path: "pages", id: "n0", type: "graph", mapped: true, label: "pages (frames, window 4)" },
      { path: "pages/embed", id: "n0_n0", type: "function", mapped: false, label: "embed" },
    ]);
  });
});

describe("graphView: names that are markup", () => {
  // Core refuses line breaks in names at build time and escapes <, >, & and quotes as Mermaid entity codes, so the
  // page's own look-alike substitution finds nothing left to replace.
  it("keeps <, > and & out of the Mermaid text; the true name is the node's label", () => {
    const name = '<img src=x onerror=alert(1)> & "q"';
    const evil = node({ name, output: "out" }, function f({ x }: { x: number }) {
      return x;
    });
    const view = graphView(new Graph([evil], { name: "g" }));
    expect(view.mermaid.split("\n")[1]).toBe('  n0["#lt;img src=x onerror=alert(1)#gt; #amp; #quot;q#quot;"]');
    expect(view.mermaid).not.toContain("<");
    expect(view.mermaid.split("\n")).toHaveLength(4); // flowchart, the node, the input x and its edge
    expect(view.nodes).toEqual([{ path: name, id: "n0", type: "function", mapped: false, label: name }]);
  });
});

describe("EventLog", () => {
  const ev = (n: number) => ({ type: "T", root: "w", workflowId: "w", timestamp: n });

  it("keeps the newest `capacity` events with increasing ids", () => {
    const log = new EventLog(3);
    for (let i = 0; i < 5; i++) log.append(ev(i));
    expect(log.all().map((e) => e.id)).toEqual([3, 4, 5]);
    expect(log.lastId).toBe(5);
  });

  it("since(): what a reader missed, or undefined when some of it was dropped", () => {
    const log = new EventLog(3);
    for (let i = 0; i < 5; i++) log.append(ev(i));
    expect(log.since(5)).toEqual([]);
    expect(log.since(3)!.map((e) => e.id)).toEqual([4, 5]);
    expect(log.since(2)!.map((e) => e.id)).toEqual([3, 4, 5]);
    expect(log.since(1)).toBeUndefined();
  });

  it("notifies subscribers until they unsubscribe; rejects a bad capacity", () => {
    const log = new EventLog(10);
    const seen: number[] = [];
    const off = log.subscribe((e) => seen.push(e.id));
    log.append(ev(0));
    off();
    log.append(ev(1));
    expect(seen).toEqual([1]);
    expect(() => new EventLog(0)).toThrow("EventLog capacity must be an integer ≥ 1, got 0.");
  });
});

describe("preview", () => {
  it("JSON, truncated with an ellipsis; BigInt and cycles don't throw", () => {
    expect(preview({ a: "hello" }, 100)).toBe('{"a":"hello"}');
    expect(preview("abcdefgh", 5)).toBe('"abc…');
    expect(preview(10n, 10)).toBe('"10n"');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(preview(cyclic, 50)).toBe("[object Object]");
  });
});
