import { MemoryCheckpointer } from "@graph/checkpoint";
import { END, Graph, node, route } from "@graph/core";
import { describe, expect, it } from "vitest";
import { Runner } from "../src/index.js";
import { referenceBuild } from "./reference/build.js";
import { referenceRun } from "./reference/run.js";
import {
  build,
  callerValues,
  decideFor,
  type GraphSpec,
  mix,
  type NodeSpec,
  runBuilt,
} from "./support/randomGraphs.js";

// A gate of a do-while loop may decide in the same superstep as the loop's entrypoint runs for the first time (the
// gate does not read what the entry writes). That run started before the decision existed, so it does not take it:
// a decision naming the entry runs it again in the next superstep. The decisions of a superstep are applied after
// all its runs, so the outcome never depends on which of the two sorts first, nor on the order steps were stored in.

/**
 * draft (entrypoint) → text → review → notes (bound), which the gate reads with the caller's `limit`. The gate also
 * targets review, so it reaches review without passing the entry: review → gate is a feedback edge and the gate is
 * not downstream of draft — it decides in draft's first superstep.
 */
function reviewLoop(gateName: string, calls: string[], failSecondDraft = false) {
  let drafts = 0;
  const draft = node({ name: "draft", output: "text" }, ({ topic }: { topic: string }) => {
    calls.push("draft");
    drafts++;
    if (failSecondDraft && drafts === 2) throw new Error("model unavailable");
    return `${topic} v${drafts}`;
  });
  const review = node({ name: "review", output: "notes" }, ({ text, notes }: { text: string; notes: string[] }) => {
    calls.push("review");
    return [...notes, `read ${text}`];
  });
  const gate = route(
    { name: gateName, targets: ["draft", "review", END] },
    ({ notes, limit }: { notes: string[]; limit: number }) => {
      calls.push(gateName);
      return notes.length < limit ? "draft" : END;
    },
  );
  return new Graph([draft, review, gate], { entrypoint: "draft" }).bind({ notes: [] });
}

describe("a gate deciding beside its target's first run", () => {
  // `again` sorts before `draft`, `verify` after it: the runs must not differ.
  for (const gateName of ["again", "verify"]) {
    it(`a decision naming the entrypoint runs it again (gate '${gateName}')`, async () => {
      const calls: string[] = [];
      const graph = reviewLoop(gateName, calls);
      expect(graph.analysis.loopEntries(gateName)).toEqual(["draft"]);
      const starts: string[][] = [];
      const runner = new Runner({
        eventProcessors: [{ onEvent: (e) => void (e.type === "SuperstepStart" && starts.push([...e.nodes])) }],
      });
      const result = await runner.run(graph, { values: { topic: "otters", limit: 1 } });
      expect(result.status).toBe("completed");
      // Superstep 1: the entrypoint's do-while run beside the gate's first decision ("draft").
      expect(starts[0]).toEqual(gateName === "again" ? ["again", "draft"] : ["draft", "verify"]);
      expect(starts.slice(1)).toEqual([["draft"]]);
      expect(calls.filter((c) => c === "draft")).toHaveLength(2);
      expect(result.values).toEqual({ text: "otters v2" });
    });

    it(`a decision of END beside it leaves the entrypoint's one run (gate '${gateName}')`, async () => {
      const calls: string[] = [];
      const result = await new Runner().run(reviewLoop(gateName, calls), { values: { topic: "otters", limit: 0 } });
      expect(result.status).toBe("completed");
      expect(calls.filter((c) => c === "draft")).toHaveLength(1);
      expect(result.values).toEqual({ text: "otters v1" });
    });

    it(`a resume keeps the decision the first run did not take (gate '${gateName}')`, async () => {
      const calls: string[] = [];
      const graph = reviewLoop(gateName, calls, true);
      const runner = new Runner({ checkpointer: new MemoryCheckpointer() });
      const workflowId = `beside-${gateName}`;
      await expect(runner.run(graph, { workflowId, values: { topic: "otters", limit: 1 } })).rejects.toMatchObject({
        _tag: "NodeExecutionError",
      });
      expect(calls.filter((c) => c === "draft")).toHaveLength(2);
      calls.length = 0;
      // The stored history: the gate decided "draft" in the superstep of draft's first run; draft's second run
      // failed. Restored, the decision is still pending: draft runs (its third call) and nothing else.
      const result = await runner.run(graph, { workflowId, values: {} });
      expect(result.status).toBe("completed");
      expect(calls).toEqual(["draft"]);
      expect(result.values).toEqual({ text: "otters v3" });
    });
  }

  it("the random graph that found it: the engine runs the entrypoint again, as the reference model does", async () => {
    const fn = (name: string, inputs: string[], outputs: string[], defaults: string[] = []): NodeSpec => ({
      name,
      kind: "fn",
      inputs,
      outputs,
      targets: [],
      defaultOpen: true,
      defaults,
      budget: 0,
    });
    const gate = (name: string, inputs: string[], targets: string[]): NodeSpec => ({
      name,
      kind: "gate",
      inputs,
      outputs: [],
      targets,
      defaultOpen: true,
      defaults: [],
      budget: 0,
    });
    const spec: GraphSpec = {
      nodes: [
        gate("cat", ["v2"], ["gnu", "END"]),
        gate("bee", ["v1", "log"], ["ant", "dog"]),
        fn("fox", ["v4"], ["v3", "v2"]),
        gate("ant", ["log", "v4", "v3"], ["fox", "END"]),
        fn("dog", ["v3", "v1"], ["v1"]),
        fn("gnu", ["v3", "v4"], ["w_gnu", "res"], ["v3"]),
        fn("eel", ["v4"], ["v4"]),
      ],
      entrypoint: "ant",
      bound: { v1: 8 },
      values: { log: 6, v3: 1, v4: 1 },
    };
    const trace: string[] = [];
    const graph = build(spec, trace);
    if (typeof graph === "string") expect.fail(graph);
    const ref = referenceBuild(spec.nodes, spec.entrypoint, Object.keys(spec.bound));
    if ("rejected" in ref) expect.fail(ref.rejected);
    const byName = new Map(spec.nodes.map((n) => [n.name, n]));
    const values = callerValues(spec, graph);
    expect(values).toEqual({ log: 6, v3: 1, v4: 1 });
    const expected = referenceRun(
      { nodes: spec.nodes, entrypoint: spec.entrypoint, bound: ref.bound, boundValues: graph.inputs.bound },
      values,
      {
        fn: (name, calls, inputs) => byName.get(name)!.outputs.map((_, k) => mix(name, calls + k, inputs)),
        gate: (name, calls, inputs) => decideFor(byName.get(name)!, calls, inputs),
      },
      8,
    );
    // bee (a gate of ant's loop that reads only the bound v1 and the caller's log) decides "ant" beside ant's
    // first run; ant runs again on that decision and then ends the loop.
    expect(expected.trace).toEqual(["eel", "bee", "ant", "ant"]);
    const actual = await runBuilt(spec, graph, trace, 8);
    expect(actual).toEqual({ trace: expected.trace, status: expected.status, values: expected.values });
  });
});
