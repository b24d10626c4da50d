import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type AnyNode, END, Graph, isGraphConfigError, node, route } from "../src/index.js";
import { type GraphSpec, graphSpec, loopNeeds } from "./loopRule.js";

// A type must never demand what the runtime does not. The static loop-needs rule (src/types/loops.ts, in plain code
// in loopRule.ts) makes values required, or requires one value of a set; this checks both against the built graph's
// own `inputs` on random graphs: whatever the rule requires, the runtime requires too.

function build(spec: GraphSpec): Graph | undefined {
  const nodes: AnyNode[] = spec.nodes.map((n) =>
    node(
      {
        name: n.name,
        inputs: [...n.inputs],
        defaults: Object.fromEntries(n.defaults.map((d) => [d, 0])),
        output: n.outputs.length === 1 ? n.outputs[0]! : [...n.outputs],
      },
      () => (n.outputs.length > 1 ? n.outputs.map(() => 0) : 0),
    ),
  );
  if (spec.gate !== undefined) {
    const targets = spec.gate.targets.map((t) => (t === "END" ? END : `n${t}`));
    nodes.push(route({ name: "gate", targets, inputs: [spec.gate.reads] }, () => targets[0]!));
  }
  try {
    return new Graph(nodes, spec.entry === undefined ? {} : { entrypoint: `n${spec.entry}` });
  } catch (error) {
    // Random wiring is often invalid (two producers of one value, an entrypoint outside any cycle): not the case here.
    if (isGraphConfigError(error)) return undefined;
    throw error;
  }
}

/** What a fresh run of `graph` must be given: its required inputs and its loops' seeds. */
const demanded = (graph: Graph) => new Set([...graph.inputs.required, ...graph.inputs.seeds]);

describe("property: the static loop-needs rule never demands more than the runtime", () => {
  it("a required value is one the built graph requires; of a choice, the graph requires at least one", {
    timeout: 120_000,
  }, () => {
    const seen = { choice: 0, entry: 0 };
    fc.assert(
      fc.property(graphSpec, (spec) => {
        const graph = build(spec);
        if (graph === undefined) return;
        const needs = loopNeeds(spec);
        const runtime = demanded(graph);
        for (const v of needs.required) {
          if (spec.entry !== undefined) seen.entry++;
          expect(runtime.has(v), `'${v}' required in\n${graph.toMermaid()}`).toBe(true);
        }
        if (needs.choice.length > 0) {
          seen.choice++;
          expect(
            needs.choice.some((v) => runtime.has(v)),
            `one of ${needs.choice.join(", ")} in\n${graph.toMermaid()}`,
          ).toBe(true);
        }
        // A bind leaves the rest in force: a bound value is no longer needed, and binding a value of the choice
        // settles the choice (the types then drop it), anything else leaves it.
        for (const b of graph.inputs.all) {
          const after = demanded(graph.bind({ [b]: 0 }));
          for (const v of needs.required) if (v !== b) expect(after.has(v), `'${v}' after binding '${b}'`).toBe(true);
          if (needs.choice.length > 0 && !needs.choice.includes(b))
            expect(
              needs.choice.some((v) => after.has(v)),
              `choice after binding '${b}'`,
            ).toBe(true);
        }
      }),
      { seed: 23, numRuns: 1500 },
    );
    // The property really ran on loops of every kind.
    expect(seen.entry).toBeGreaterThan(40);
    expect(seen.choice).toBeGreaterThan(100);
  });
});
