import { END, Graph, node, route } from "@graph/core";
import { describe, expect, it } from "vitest";
import { computeReady, countRuns } from "../src/internal/readiness.js";
import { RunState } from "../src/internal/state.js";

// Readiness on its own: a RunState set up by hand, no engine. Each case names the state and the nodes that must
// be ready next (in graph order).

const a = node({ name: "a", output: "y" }, ({ x }: { x: number }) => x + 1);
const b = node({ name: "b", output: "z" }, ({ y }: { y: number }) => y * 2);
const c = node({ name: "c", output: "w" }, ({ y, z }: { y: number; z: number }) => y + z);
const chain = new Graph([a, b, c]);
const sum = node({ name: "sum", output: "w" }, ({ x, y = 0 }: { x: number; y?: number }) => x + y);
const fanIn = new Graph([a, sum]);

const inc = node({ name: "inc", output: "count" }, ({ count }: { count: number }) => count + 1);
const again = route({ name: "again", targets: ["inc", END] }, ({ count }: { count: number }) =>
  count >= 3 ? END : "inc",
);
const loop = new Graph([inc, again]);

/** A fresh state for `graph` with caller values written as the input step, every node to be examined. */
function stateOf(graph: Graph, values: Record<string, unknown>): RunState {
  const state = new RunState(graph);
  const index = state.nextIndex++;
  for (const [k, v] of Object.entries(values)) state.write(k, v, index, "__input__");
  for (const n of graph.nodes.keys()) state.touch(n);
  return state;
}

/** Marks `name` completed with `outputs`, as applying its outcome does. */
function complete(state: RunState, name: string, outputs: Record<string, unknown>): void {
  const versions: Record<string, number> = {};
  for (const input of state.graph.nodes.get(name)!.inputs) versions[input] = state.values.get(input)?.version ?? 0;
  state.completed(name, versions, outputs, state.nextIndex++);
}

const names = (state: RunState) => computeReady(state).map((n) => n.name);

describe("computeReady", () => {
  const cases: Array<{
    what: string;
    graph: Graph;
    values: Record<string, unknown>;
    done?: Array<[string, object]>;
    ready: string[];
  }> = [
    { what: "only the node whose inputs are all there", graph: chain, values: { x: 1 }, ready: ["a"] },
    { what: "nothing without the inputs", graph: chain, values: {}, ready: [] },
    {
      what: "the next node once its input was written",
      graph: chain,
      values: { x: 1 },
      done: [["a", { y: 2 }]],
      ready: ["b"],
    },
    {
      what: "a node waits while something upstream of it is ready (runs once, on fresh values)",
      graph: fanIn,
      values: { x: 1 },
      ready: ["a"],
    },
    {
      what: "the waiting node once the upstream one ran",
      graph: fanIn,
      values: { x: 1 },
      done: [["a", { y: 2 }]],
      ready: ["sum"],
    },
    {
      what: "a node whose outputs the caller supplied is skipped",
      graph: chain,
      values: { x: 1, y: 5 },
      ready: ["b"],
    },
    { what: "a loop's entry runs first (before its gate decided)", graph: loop, values: { count: 0 }, ready: ["inc"] },
    {
      what: "the gate after its loop's body",
      graph: loop,
      values: { count: 0 },
      done: [["inc", { count: 1 }]],
      ready: ["again"],
    },
  ];
  for (const t of cases) {
    it(t.what, () => {
      const state = stateOf(t.graph, t.values);
      if (t.done !== undefined) {
        computeReady(state);
        for (const [name, outputs] of t.done) complete(state, name, outputs as Record<string, unknown>);
      }
      expect(names(state)).toEqual(t.ready);
    });
  }

  it("consumes the dirty set: asking again without changes finds nothing", () => {
    const state = stateOf(chain, { x: 1 });
    expect(names(state)).toEqual(["a"]);
    expect(names(state)).toEqual([]);
  });

  it("a gate's decision makes its target ready again; END makes nothing ready", () => {
    const state = stateOf(loop, { count: 0 });
    computeReady(state);
    complete(state, "inc", { count: 1 });
    expect(names(state)).toEqual(["again"]);
    complete(state, "again", {});
    state.decide(loop.nodes.get("again") as never, ["inc"]);
    expect(names(state)).toEqual(["inc"]);
    complete(state, "inc", { count: 2 });
    expect(names(state)).toEqual(["again"]);
    complete(state, "again", {});
    state.decide(loop.nodes.get("again") as never, [END]);
    expect(names(state)).toEqual([]);
  });
});

describe("countRuns", () => {
  it("counts runs per node, not supersteps, and names the loop that would exceed the limit", () => {
    const state = stateOf(loop, { count: 0 });
    const incNode = state.plans.get("inc")!;
    expect(countRuns(state, [incNode], 2)).toBeUndefined();
    expect(countRuns(state, [incNode], 2)).toBeUndefined();
    const error = countRuns(state, [incNode], 2);
    expect(error).toMatchObject({
      _tag: "InfiniteLoopError",
      nodeName: "inc",
      nodes: ["inc", "again"],
      maxIterations: 2,
    });
    expect(state.runs[incNode.id]).toBe(2);
  });

  it("a DAG of any depth never reaches the limit: every node runs once", () => {
    const state = stateOf(chain, { x: 1 });
    for (const n of state.planList) expect(countRuns(state, [n], 1)).toBeUndefined();
  });
});
