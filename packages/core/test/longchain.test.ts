import { describe, expect, it } from "vitest";
import { Graph, node } from "../src/index.js";

describe("large graphs", () => {
  // What is checked is that nothing recurses per node; the time it takes is the bench's business (tools/bench), and
  // on a loaded 2-core machine building 20,000 nodes takes longer than the default 20 s.
  it("builds a 20,000-node chain (cycle analysis is iterative, no stack overflow)", { timeout: 120_000 }, () => {
    const nodes = Array.from({ length: 20_000 }, (_, i) =>
      node({ name: `n${i}`, inputs: [`v${i}`], output: `v${i + 1}` }, (x: Record<string, number>) => x[`v${i}`]! + 1),
    );
    const graph = new Graph(nodes);
    expect(graph.hasCycles).toBe(false);
    expect([...graph.inputs.required]).toEqual(["v0"]);
    expect(graph.leafOutputs).toEqual(["v20000"]);
  });

  // Building walks the node list a fixed number of times: one lookup that scans every node per node (listing the
  // outputs did) turns 20,000 nodes into 200 million steps. A wide fan stresses the per-value lists instead.
  it("builds a 20,000-node wide fan (one value read by every node)", { timeout: 120_000 }, () => {
    const source = node({ name: "source", inputs: ["x"], output: "s" }, (v: { x: number }) => v.x);
    const fan = Array.from({ length: 20_000 }, (_, i) =>
      node({ name: `n${i}`, inputs: ["s"], output: `w${i}` }, (v: { s: number }) => v.s + i),
    );
    const graph = new Graph([source, ...fan]);
    expect(graph.hasCycles).toBe(false);
    expect([...graph.inputs.required]).toEqual(["x"]);
    expect(graph.analysis.consumers.get("s")).toHaveLength(20_000);
    expect(graph.edges).toHaveLength(20_000);
    expect(graph.outputs).toHaveLength(20_001);
    expect(graph.outputs.slice(0, 3)).toEqual(["s", "w0", "w1"]);
    expect(graph.leafOutputs).toHaveLength(20_000);
    expect(graph.leafOutputs.at(-1)).toBe("w19999");
  });

  it("finds a 10,000-node cycle", { timeout: 120_000 }, () => {
    const nodes = Array.from({ length: 10_000 }, (_, i) =>
      node(
        { name: `n${i}`, inputs: [`v${i}`], output: `v${(i + 1) % 10_000}` },
        (x: Record<string, number>) => x[`v${i}`]! + 1,
      ),
    );
    const graph = new Graph(nodes);
    expect(graph.hasCycles).toBe(true);
    expect(graph.analysis.components.filter((c) => c.length > 1)).toHaveLength(1);
    expect([...graph.inputs.seeds]).toEqual(["v0"]);
    // Nothing in a ring of look-alike nodes picks the start but the name: said once, briefly.
    expect(graph.warnings).toHaveLength(1);
    expect(graph.warnings[0]).toContain(
      "'n0', 'n1', 'n10', 'n100', 'n1000', 'n1001', 'n1002', 'n1003', 'n1004', 'n1005' and 9990 more qualify equally. Chose 'n0' (first by name).",
    );
  });
});
