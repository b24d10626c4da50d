import { describe, expect, it } from "vitest";
import { Runner } from "../src/index.js";
import { referenceRun } from "./reference/run.js";
import { refGraph } from "./support/nestedGraphs.js";
import { build, decideFor, type GraphSpec, mix, type NodeSpec } from "./support/randomGraphs.js";

// In a loop with no entrypoint, a target of a gate that has not decided yet may start the loop while that gate
// cannot run. A branch region closing the gate is one way it stops being able to run: its targets must be looked at
// again then, in the very next superstep — not only when one of their own inputs changes.

const fn = (name: string, inputs: string[], outputs: string[]): NodeSpec => ({
  name,
  kind: "fn",
  inputs,
  outputs,
  targets: [],
  defaultOpen: true,
  defaults: [],
  budget: 3,
});
const gate = (name: string, inputs: string[], targets: string[], budget: number, defaultOpen: boolean): NodeSpec => ({
  name,
  kind: "gate",
  inputs,
  outputs: [],
  targets,
  defaultOpen,
  defaults: [],
  budget,
});

describe("a gate closed by a branch region lets its targets start the loop", () => {
  it("the random graph that found it: ant starts the loop as soon as bee's decision closes cat", async () => {
    // One loop (entry ant): bee → dog | gnu | END, cat → fox | ant | END; gnu's region holds cat.
    const spec: GraphSpec = {
      nodes: [
        gate("bee", ["v4", "log", "v2"], ["dog", "gnu", "END"], 3, false),
        fn("ant", ["v3", "v1"], ["v1"]),
        gate("cat", ["log", "v2"], ["fox", "ant", "END"], 2, true),
        fn("eel", ["v2"], ["v2"]),
        fn("gnu", ["v3"], ["log", "res"]),
        fn("dog", ["v1", "log"], ["v3", "res"]),
        { ...fn("fox", ["v3", "v1", "v4"], ["v4"]), defaultOpen: false },
      ],
      entrypoint: undefined,
      bound: { v1: 0 },
      values: {},
    };
    const values = { log: 1, v2: 1, v3: [579296], v4: [816312] };
    const trace: string[] = [];
    const graph = build(spec, trace);
    if (typeof graph === "string") expect.fail(graph);
    expect(graph.analysis.loopEntries("cat")).toEqual(["ant"]);
    const byName = new Map(spec.nodes.map((n) => [n.name, n]));
    const expected = referenceRun(
      refGraph(spec),
      values,
      {
        fn: (name, calls, inputs) => byName.get(name)!.outputs.map((_, k) => mix(name, calls + k, inputs)),
        gate: (name, calls, inputs) => decideFor(byName.get(name)!, calls, inputs),
      },
      8,
    );
    expect(expected.trace).toEqual(["eel", "bee", "ant", "cat", "dog", "fox", "bee", "gnu", "bee", "gnu", "bee"]);
    const starts: string[][] = [];
    const runner = new Runner({
      eventProcessors: [{ onEvent: (e) => void (e.type === "SuperstepStart" && starts.push([...e.nodes])) }],
    });
    const result = await runner.run(graph, { values: { ...values }, maxIterations: 8 });
    expect(result.status).toBe("completed");
    expect(trace).toEqual(expected.trace);
    expect({ ...result.values }).toEqual(expected.values);
    // bee chooses dog, closing gnu's region (cat with it): ant, upstream of dog, starts the loop in the next superstep.
    expect(starts.slice(0, 4)).toEqual([["eel"], ["bee"], ["ant"], ["cat", "dog"]]);
  });
});
