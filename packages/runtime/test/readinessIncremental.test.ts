import { Graph, node } from "@graph/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { computeReady, heldBack } from "../src/internal/readiness.js";
import { RunState } from "../src/internal/state.js";

// Readiness is incremental: a superstep examines only the nodes whose inputs, permissions or decisions changed.
// Property: on random graphs and random histories, that answer equals examining every node of a state rebuilt
// from the same history (including the first superstep, which examines only the starters and the consumers of
// the caller's values).

type Op =
  | { readonly kind: "input"; readonly values: Readonly<Record<string, number>>; readonly index: number }
  | {
      readonly kind: "completed";
      readonly name: string;
      /** As the superstep passes them: aligned with the node's inputs and outputs. */
      readonly versions: readonly number[];
      readonly outputs: readonly number[];
      readonly index: number;
    };

interface Shape {
  /** Per node: the earlier values it reads (indexes into caller inputs + earlier nodes' outputs). */
  readonly reads: readonly (readonly number[])[];
  /** Per node: its input without a value gets a default (never-supplied inputs then don't block it). */
  readonly defaults: readonly boolean[];
  readonly callerInputs: number;
}

const shapes: fc.Arbitrary<Shape> = fc
  .record({ callerInputs: fc.integer({ min: 1, max: 3 }), size: fc.integer({ min: 1, max: 9 }) })
  .chain(({ callerInputs, size }) =>
    fc.record({
      callerInputs: fc.constant(callerInputs),
      reads: fc.tuple(
        ...Array.from({ length: size }, (_, i) =>
          fc.uniqueArray(fc.integer({ min: 0, max: callerInputs + i - 1 }), { maxLength: 3 }),
        ),
      ),
      defaults: fc.array(fc.boolean(), { minLength: size, maxLength: size }),
    }),
  );

/** Node i reads the chosen values (caller inputs `x0…`, outputs `y0…`) and writes `y{i}`. */
function graphOf(shape: Shape): Graph {
  const valueName = (k: number) => (k < shape.callerInputs ? `x${k}` : `y${k - shape.callerInputs}`);
  const nodes = shape.reads.map((reads, i) => {
    const inputs = reads.map(valueName);
    const defaults = shape.defaults[i] && inputs.length > 0 ? { [inputs[0]!]: 0 } : {};
    return node({ name: `n${i}`, inputs, output: `y${i}`, defaults }, () => i);
  });
  return new Graph(nodes, { name: "random" });
}

function apply(state: RunState, op: Op): void {
  if (op.kind === "input") for (const [k, v] of Object.entries(op.values)) state.write(k, v, op.index, "__input__");
  else state.completed(op.name, op.versions, op.outputs, op.index);
}

/** The same history applied to a fresh state, then every node examined. */
function fullReady(graph: Graph, history: readonly Op[]): string[] {
  const state = new RunState(graph);
  for (const op of history) apply(state, op);
  state.all = true;
  return computeReady(state).map((p) => p.name);
}

describe("incremental readiness", () => {
  it("equals examining every node, on random graphs and histories", () => {
    fc.assert(
      fc.property(shapes, fc.array(fc.nat(), { maxLength: 4 }), (shape, rewrites) => {
        const graph = graphOf(shape);
        const state = new RunState(graph);
        const history: Op[] = [];
        const record = (op: Op) => {
          history.push(op);
          apply(state, op);
        };
        const inputs: Record<string, number> = {};
        for (let k = 0; k < shape.callerInputs; k++) inputs[`x${k}`] = k;
        record({ kind: "input", values: inputs, index: state.nextIndex++ });
        // As a run with nothing restored starts: the written values marked their consumers; add the starters.
        state.markStarters();
        const pendingRewrites = [...rewrites];
        for (let step = 0; step < 40; step++) {
          const expected = fullReady(graph, history);
          const ready = computeReady(state).map((p) => p.name);
          expect(ready).toEqual(expected);
          if (ready.length === 0) {
            // Between supersteps the caller may send a new value (a new turn): consumers become stale.
            const next = pendingRewrites.shift();
            if (next === undefined) break;
            const k = next % shape.callerInputs;
            record({ kind: "input", values: { [`x${k}`]: 100 + step }, index: state.nextIndex++ });
            continue;
          }
          for (const name of ready) {
            const versions = graph.nodes.get(name)!.inputs.map((input) => state.values.get(input)?.version ?? 0);
            record({ kind: "completed", name, versions, outputs: [step], index: state.nextIndex++ });
          }
        }
      }),
      { numRuns: 300, seed: 12 },
    );
  });
});

describe("upstream first", () => {
  // Graphs with feedback too: node i may read any other node's output, so loops (components of several nodes)
  // appear. Graphs the builder rejects are skipped.
  const looped = fc.integer({ min: 9, max: 24 }).chain((size) =>
    fc.record({
      reads: fc.array(fc.uniqueArray(fc.integer({ min: 0, max: size }), { maxLength: 3 }), {
        minLength: size,
        maxLength: size,
      }),
      chosen: fc.array(fc.boolean(), { minLength: size, maxLength: size }),
    }),
  );

  it("holding back many candidates equals the pairwise rule", () => {
    fc.assert(
      fc.property(looped, ({ reads, chosen }) => {
        // Value k is the caller's `x` for k = 0, else the output of node k - 1.
        const nodes = reads.map((r, i) => {
          const inputs = r.filter((k) => k !== i + 1).map((k) => (k === 0 ? "x" : `y${k - 1}`));
          return node({ name: `n${i}`, inputs, output: `y${i}` }, () => i);
        });
        let graph: Graph;
        try {
          graph = new Graph(nodes, { name: "looped" });
        } catch {
          fc.pre(false);
          return;
        }
        const state = new RunState(graph);
        const candidates = state.planList.filter((_, i) => chosen[i]);
        fc.pre(candidates.length > 8);
        const a = graph.analysis;
        const pairwise = candidates.filter((c) => candidates.some((d) => d !== c && a.isUpstream(d.name, c.name)));
        expect([...heldBack(state, candidates)].map((p) => p.name).sort()).toEqual(pairwise.map((p) => p.name).sort());
      }),
      { numRuns: 300, seed: 7 },
    );
  });
});
