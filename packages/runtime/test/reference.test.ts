import type { Graph } from "@graph/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { referenceBuild } from "./reference/build.js";
import { referenceRun } from "./reference/run.js";
import { build, callerValues, decideFor, type GraphSpec, graphSpecs, mix, runBuilt } from "./support/randomGraphs.js";

// Differential test: the engine against the reference model of the scheduling rules (test/reference/, the spec of
// record for docs/semantics.md "Loops"), on random graphs with loops, gates and shared values. Same graphs refused
// at build, same nodes run in the same order, same final values, same MissingInputError and InfiniteLoopError.

function runReference(spec: GraphSpec, graph: Graph, bound: ReadonlySet<string>, maxIterations: number) {
  const byName = new Map(spec.nodes.map((n) => [n.name, n]));
  return referenceRun(
    { nodes: spec.nodes, entrypoint: spec.entrypoint, bound, boundValues: graph.inputs.bound },
    callerValues(spec, graph),
    {
      fn: (name, calls, inputs) => byName.get(name)!.outputs.map((_, k) => mix(name, calls + k, inputs)),
      gate: (name, calls, inputs) => decideFor(byName.get(name)!, calls, inputs),
    },
    maxIterations,
  );
}

/** A loop with no entrypoint whose gate decides before any other node of the loop runs (a while loop). */
function gateFirst(spec: GraphSpec, graph: Graph, trace: readonly string[]): boolean {
  if (spec.entrypoint !== undefined || trace.length === 0) return false;
  const a = graph.analysis;
  const first = trace.find((n) => a.cyclic.has(a.componentOf.get(n)!));
  return first !== undefined && spec.nodes.find((n) => n.name === first)!.kind === "gate";
}

/** A loop with no entrypoint whose entry reads a value every writer in the loop also reads (an accumulator). */
function accumulator(spec: GraphSpec, graph: Graph): boolean {
  if (spec.entrypoint !== undefined) return false;
  const a = graph.analysis;
  return [...a.cyclic].some((c) =>
    [...(a.loops.seeds.get(c) ?? [])].some((v) =>
      a.components[c]!.every((m) => {
        const n = spec.nodes.find((x) => x.name === m)!;
        return !n.outputs.includes(v) || n.inputs.includes(v);
      }),
    ),
  );
}

describe("the engine follows the reference model of the rules", () => {
  it("same build errors, trace, values and run errors on 500 random graphs", async () => {
    const seen = new Map<string, number>();
    const count = (k: string) => seen.set(k, (seen.get(k) ?? 0) + 1);
    await fc.assert(
      fc.asyncProperty(graphSpecs, async (spec) => {
        const trace: string[] = [];
        const graph = build(spec, trace);
        const ref = referenceBuild(spec.nodes, spec.entrypoint, Object.keys(spec.bound));
        if ("rejected" in ref) {
          expect({ graph, why: ref.rejected }).toEqual({ graph: "GraphConfigError", why: ref.rejected });
          count("GraphConfigError");
          return;
        }
        if (typeof graph === "string") expect.fail(`the engine refused a graph the model builds: ${graph}`);
        expect(new Set(Object.keys(graph.inputs.bound))).toEqual(ref.bound);
        const expected = runReference(spec, graph, ref.bound, 8);
        const actual = await runBuilt(spec, graph, trace, 8);
        expect(actual).toEqual(
          expected.error === undefined
            ? { trace: expected.trace, status: expected.status, values: expected.values }
            : expected,
        );
        count(expected.error?.split(" ")[0] ?? "ran");
        const lacking = [...graph.inputs.seeds].some((k) => !(k in callerValues(spec, graph)));
        if (lacking && expected.error === undefined && expected.trace.length > 0) count("started without its seeds");
        if (gateFirst(spec, graph, trace)) count("gate first");
        if (accumulator(spec, graph)) count("accumulator");
      }),
      { numRuns: 500, seed: 2121 },
    );
    // Every outcome the rules distinguish occurs (exact counts drift when the generator changes; these are floors).
    expect(seen.get("GraphConfigError") ?? 0).toBeGreaterThan(50);
    expect(seen.get("MissingInputError") ?? 0).toBeGreaterThan(10);
    expect(seen.get("InfiniteLoopError") ?? 0).toBeGreaterThan(0);
    expect(seen.get("ran") ?? 0).toBeGreaterThan(200);
    expect(seen.get("gate first") ?? 0).toBeGreaterThan(10);
    expect(seen.get("accumulator") ?? 0).toBeGreaterThan(10);
    expect(seen.get("started without its seeds") ?? 0).toBeGreaterThan(5);
  }, 120_000);
});
