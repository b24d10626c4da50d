import type { Graph } from "@graph/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { referenceRun } from "./reference/run.js";
import { build, callerValues, decideFor, type GraphSpec, graphSpecs, mix, runBuilt } from "./support/randomGraphs.js";

// Differential test: the engine against the reference model of the scheduling rules (test/reference/, the spec of
// record for docs/semantics.md "Loops"), on random graphs with loops, gates and shared values. Same nodes run in
// the same order, same final values, same InfiniteLoopError.

function runReference(spec: GraphSpec, graph: Graph, maxIterations: number) {
  const byName = new Map(spec.nodes.map((n) => [n.name, n]));
  return referenceRun(
    {
      nodes: spec.nodes,
      entrypoint: spec.entrypoint,
      bound: new Set(Object.keys(graph.inputs.bound)),
      boundValues: graph.inputs.bound,
    },
    callerValues(spec, graph),
    {
      fn: (name, calls, inputs) => byName.get(name)!.outputs.map((_, k) => mix(name, calls + k, inputs)),
      gate: (name, calls, inputs) => decideFor(byName.get(name)!, calls, inputs),
    },
    maxIterations,
  );
}

describe("the engine follows the reference model of the rules", () => {
  it("same trace, values and errors on 500 random graphs", async () => {
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(graphSpecs, async (spec) => {
        const trace: string[] = [];
        const graph = build(spec, trace);
        if (typeof graph === "string") return; // rejected at build: nothing to run
        const expected = runReference(spec, graph, 8);
        const actual = await runBuilt(spec, graph, trace, 8);
        compared++;
        expect(actual).toEqual(
          expected.error === undefined
            ? { trace: expected.trace, status: expected.status, values: expected.values }
            : expected,
        );
      }),
      { numRuns: 500, seed: 2121 },
    );
    expect(compared).toBeGreaterThan(250);
  }, 120_000);
});
