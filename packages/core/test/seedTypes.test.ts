import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type AnyNode, END, Graph, isGraphConfigError, node, route, type Target } from "../src/index.js";

// The static types make a produced value a required input when every node producing it reads it back without a
// default (`RequiredSeeds` in src/types/merge.ts). A type must never demand what the runtime does not, so this
// checks the rule, written out in plain code, against the graphs' own `inputs` on random graphs: whatever the rule
// flags, the runtime requires (a seed or a required input).

const VALUES = ["a", "b", "c", "d"] as const;

interface NodeSpec {
  readonly inputs: readonly string[];
  readonly defaults: readonly string[];
  readonly outputs: readonly string[];
}

const nodeSpec: fc.Arbitrary<NodeSpec> = fc
  .tuple(fc.subarray([...VALUES]), fc.subarray([...VALUES], { maxLength: 2 }))
  .chain(([inputs, outputs]) =>
    fc.record({
      inputs: fc.constant(inputs),
      defaults: fc.subarray(inputs),
      outputs: fc.constant(outputs),
    }),
  );

interface GraphSpec {
  readonly nodes: readonly NodeSpec[];
  /** An optional gate: the value it reads and the node indexes (or END) it targets. */
  readonly gate: { readonly reads: string; readonly targets: readonly (number | "END")[] } | undefined;
}

const graphSpec: fc.Arbitrary<GraphSpec> = fc.array(nodeSpec, { minLength: 1, maxLength: 6 }).chain((nodes) =>
  fc.record({
    nodes: fc.constant(nodes),
    gate: fc.option(
      fc.record({
        reads: fc.constantFrom(...VALUES),
        targets: fc.uniqueArray(fc.oneof(fc.nat(nodes.length - 1), fc.constant("END" as const)), {
          minLength: 1,
          maxLength: 3,
        }),
      }),
      { nil: undefined },
    ),
  }),
);

function build(spec: GraphSpec): Graph | undefined {
  const nodes: AnyNode[] = spec.nodes.map((n, i) =>
    node(
      {
        name: `n${i}`,
        inputs: [...n.inputs],
        defaults: Object.fromEntries(n.defaults.map((d) => [d, 0])),
        ...(n.outputs.length === 0 ? {} : { output: n.outputs.length === 1 ? n.outputs[0]! : [...n.outputs] }),
      },
      () => (n.outputs.length > 1 ? n.outputs.map(() => 0) : 0),
    ),
  );
  if (spec.gate !== undefined) {
    const targets = spec.gate.targets.map((t) => (t === "END" ? END : `n${t}`));
    nodes.push(route({ name: "gate", targets, inputs: [spec.gate.reads] }, () => targets[0]!));
  }
  try {
    return new Graph(nodes);
  } catch (error) {
    // Random wiring is often invalid (two producers of one value, a cycle that can't start): not this rule's case.
    if (isGraphConfigError(error)) return undefined;
    throw error;
  }
}

/** The static rule, in plain code: values whose every producer reads them back without a default. */
function requiredSeeds(spec: GraphSpec): string[] {
  return VALUES.filter((v) => {
    const producers = spec.nodes.filter((n) => n.outputs.includes(v));
    return producers.length > 0 && producers.every((p) => p.inputs.includes(v) && !p.defaults.includes(v));
  });
}

describe("property: the static loop-seed rule never demands more than the runtime", () => {
  it("every value the rule makes a required input is one the built graph requires (unless bound)", {
    timeout: 90_000,
  }, () => {
    let flagged = 0;
    fc.assert(
      fc.property(graphSpec, (spec) => {
        const graph = build(spec);
        if (graph === undefined) return;
        for (const v of requiredSeeds(spec)) {
          flagged++;
          expect(graph.inputs.seeds.has(v) || graph.inputs.required.has(v), `'${v}' in ${graph.toMermaid()}`).toBe(
            true,
          );
          // Bound, it is no longer needed: the type makes it optional too.
          const bound = graph.bind({ [v]: 0 });
          expect(bound.inputs.seeds.has(v) || bound.inputs.required.has(v)).toBe(false);
        }
      }),
      { seed: 23, numRuns: 300 },
    );
    // The property really ran on loops.
    expect(flagged).toBeGreaterThan(50);
  });

  it("several producers in exclusive branches of a gate (a supervisor and its workers), any entrypoint", {
    timeout: 90_000,
  }, () => {
    // Random wiring almost never yields valid exclusive producers; this shape does: workers behind one route each
    // read and write `messages`, and the supervisor (reading it too, or not) decides who runs next.
    const shape = fc.record({
      workers: fc.integer({ min: 2, max: 4 }),
      supervisorReads: fc.boolean(),
      workerDefaults: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
      entry: fc.option(fc.nat(4), { nil: undefined }),
    });
    let built = 0;
    let flaggedBuilt = 0;
    fc.assert(
      fc.property(shape, ({ workers, supervisorReads, workerDefaults, entry }) => {
        const names = Array.from({ length: workers }, (_, i) => `w${i}`);
        const supervisor = node(
          { name: "supervisor", inputs: supervisorReads ? ["messages", "turn"] : ["turn"], output: "next" },
          () => "w0",
        );
        const targets: Target[] = [...names, END];
        const gate = route({ name: "pick", targets, inputs: ["next"] }, () => END);
        const workerNodes = names.map((name, i) =>
          node(
            {
              name,
              inputs: ["messages"],
              output: ["messages", "turn"],
              defaults: workerDefaults[i] ? { messages: [] } : {},
            },
            () => [[], 0],
          ),
        );
        const all = [supervisor, gate, ...workerNodes];
        const entrypoint = entry === undefined || entry >= all.length ? undefined : all[entry]!.name;
        let graph: Graph;
        try {
          graph = new Graph(all, entrypoint === undefined ? {} : { entrypoint });
        } catch (error) {
          if (isGraphConfigError(error)) return;
          throw error;
        }
        built++;
        const flagged = workerDefaults.slice(0, workers).every((d) => !d);
        if (flagged) flaggedBuilt++;
        if (flagged) expect(graph.inputs.seeds.has("messages") || graph.inputs.required.has("messages")).toBe(true);
      }),
      { seed: 23, numRuns: 200 },
    );
    expect(built).toBeGreaterThan(20);
    expect(flaggedBuilt).toBeGreaterThan(5);
  });
});
