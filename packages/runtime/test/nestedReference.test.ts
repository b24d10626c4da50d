import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Runner } from "../src/index.js";
import { type NestedOutcome, referenceNestedRun, refusedAtBuild } from "./reference/nested.js";
import { referenceRun } from "./reference/run.js";
import {
  buildNested,
  type NestedRun,
  type NestedSpec,
  nestedSpecs,
  nestedValues,
  parentNodes,
  refGraph,
  refSub,
  runNested,
} from "./support/nestedGraphs.js";
import { build, callerValues, decideFor, type GraphSpec, mix, runBuilt } from "./support/randomGraphs.js";

// Differential test of nested graphs: the engine against the reference model (test/reference/nested.ts), on random
// parents holding random nested graphs with their own loop state — mapped or not, their state mapped in by name or
// not, inside the parent's loops or not. Same build refusals, same runs of the parent and of every call of every
// nested graph, same values, same failures.

const MAX = 8;

function runModel(spec: NestedSpec, values: Record<string, unknown>): NestedOutcome {
  const subs = spec.subs.map(refSub);
  const parentSpecs = new Map(spec.parent.nodes.map((n) => [n.name, n]));
  const childCalls = new Map<string, number>();
  const bump = (key: string) => {
    const c = (childCalls.get(key) ?? 0) + 1;
    childCalls.set(key, c);
    return c;
  };
  const parent = refGraph(spec.parent, parentNodes(spec));
  return referenceNestedRun(
    parent,
    subs,
    values,
    {
      fn: (name, calls, inputs) => parentSpecs.get(name)!.outputs.map((_, k) => mix(name, calls + k, inputs)),
      gate: (name, calls, inputs) => decideFor(parentSpecs.get(name)!, calls, inputs),
    },
    (sub) => {
      const childSpecs = new Map(spec.subs.find((s) => s.name === sub.name)!.child.nodes.map((n) => [n.name, n]));
      // A node function counts its calls over every call of the nested graph (its closure outlives each run).
      return {
        fn: (name, _calls, inputs) => {
          const c = bump(`${sub.name}/${name}`);
          return childSpecs.get(name)!.outputs.map((_, k) => mix(name, c + k, inputs));
        },
        gate: (name, _calls, inputs) => decideFor(childSpecs.get(name)!, bump(`${sub.name}/${name}`), inputs),
      };
    },
    MAX,
  );
}

/**
 * The engine and the flat model on the parent with each nested node replaced by a plain node with the same ports:
 * they must agree there too (a difference there is in the rules for flat graphs — loops, gates — not in nesting).
 */
async function flatOutcomes(spec: NestedSpec): Promise<{ actual: unknown; expected: unknown }> {
  const nodes = parentNodes(spec).map(({ unset: _, ...n }) => n);
  const flat: GraphSpec = { ...spec.parent, nodes };
  const trace: string[] = [];
  const graph = build(flat, trace);
  if (typeof graph === "string") return { actual: `flat parent refused: ${graph}`, expected: "flat parent builds" };
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const expected = referenceRun(
    { ...refGraph(flat), nodes },
    callerValues(flat, graph),
    {
      fn: (name, calls, inputs) => byName.get(name)!.outputs.map((_, k) => mix(name, calls + k, inputs)),
      gate: (name, calls, inputs) => decideFor(byName.get(name)!, calls, inputs),
    },
    MAX,
  );
  const actual = await runBuilt(flat, graph, trace, MAX);
  return {
    actual: { status: actual.status, trace: actual.trace },
    expected: { status: expected.status, trace: expected.trace },
  };
}

/**
 * The engine and the flat model on each nested graph run by itself, given the values each of its calls was given,
 * one call after the other (call counts carried over, as in the nested run): they must agree call by call.
 */
async function childOutcomes(
  spec: NestedSpec,
  calls: NestedOutcomeCalls,
): Promise<{ actual: unknown[]; expected: unknown[] }> {
  const actual: unknown[] = [];
  const expected: unknown[] = [];
  for (const sub of spec.subs) {
    const trace: string[] = [];
    const graph = build(sub.child, trace);
    if (typeof graph === "string") {
      actual.push(`${sub.name}: refused ${graph}`);
      expected.push(`${sub.name}: builds`);
      continue;
    }
    const specs = new Map(sub.child.nodes.map((n) => [n.name, n]));
    const counts = new Map<string, number>();
    const bump = (name: string) => {
      const c = (counts.get(name) ?? 0) + 1;
      counts.set(name, c);
      return c;
    };
    const behaviour = {
      fn: (name: string, _c: number, inputs: readonly unknown[]) => {
        const c = bump(name);
        return specs.get(name)!.outputs.map((_, k) => mix(name, c + k, inputs));
      },
      gate: (name: string, _c: number, inputs: readonly unknown[]) => decideFor(specs.get(name)!, bump(name), inputs),
    };
    for (const call of calls.filter((c) => c.sub === sub.name)) {
      const start = trace.length;
      const model = referenceRun(refGraph(sub.child), call.given, behaviour, MAX);
      let status: string;
      try {
        status = (await flatRunner.run(graph, { values: { ...call.given }, maxIterations: MAX })).status;
      } catch (error) {
        status = `failed ${(error as { _tag?: string })._tag}`;
      }
      const modelStatus = model.error === undefined ? model.status : `failed ${model.error.split(" ")[0]}`;
      actual.push({ sub: sub.name, given: call.given, status, trace: trace.slice(start) });
      expected.push({ sub: sub.name, given: call.given, status: modelStatus, trace: model.trace });
    }
  }
  return { actual, expected };
}

const flatRunner = new Runner();
type NestedOutcomeCalls = ReturnType<typeof runModel>["calls"];

/** What both sides are compared on: a failure by its tag (a nested one fails the parent run). */
function shape(r: NestedRun): unknown {
  if (r.error !== undefined) return { status: r.status, error: r.error.split(" ")[0], childTraces: r.childTraces };
  return r;
}

describe("nested graphs: the engine follows the reference model", () => {
  it("same refusals, traces, values and failures on at least 500 random graphs with nested graphs", async () => {
    const seen = {
      compared: 0,
      refused: 0,
      mapped: 0,
      mappedIn: 0,
      withOwnState: 0,
      failed: 0,
      partial: 0,
    };
    await fc.assert(
      fc.asyncProperty(nestedSpecs, async (spec) => {
        const built = buildNested(spec);
        const refused = spec.subs.some((s) => refusedAtBuild(refSub(s)));
        if ("rejected" in built) {
          if (built.rejected.startsWith("child ")) return; // a nested graph the engine refuses by itself
          const ours = built.message.includes("which it writes itself");
          // Our rule refuses exactly where the model says; any other refusal (a deadlock, …) is not ours to check.
          expect(ours).toBe(refused);
          if (ours) {
            expect(built.rejected).toBe("GraphConfigError");
            seen.refused++;
          }
          return;
        }
        expect(refused).toBe(false);
        const values = nestedValues(spec, built.graph);
        const actual = await runNested(built, values, MAX);
        const { partial, calls, ...expected } = runModel(spec, values);
        // A call that writes only some of its outputs: the parent sees a node that completed without writing them.
        if (partial) seen.partial++;
        // The parent as a flat graph, and each nested graph by itself, follow the model too (nothing is skipped).
        const flat = await flatOutcomes(spec);
        expect(flat.actual).toEqual(flat.expected);
        const children = await childOutcomes(spec, calls);
        expect(children.actual).toEqual(children.expected);
        expect(shape(actual)).toEqual(shape(expected));
        seen.compared++;
        if (spec.subs.some((s) => s.mapped !== undefined)) seen.mapped++;
        if (spec.subs.some((s) => Object.keys(s.mapIn).length > 0)) seen.mappedIn++;
        if (
          spec.subs.some(
            (s) =>
              (built.graph.nodes.get(s.name) as unknown as { privateState: readonly string[] }).privateState.length > 0,
          )
        )
          seen.withOwnState++;
        if (actual.error !== undefined) seen.failed++;
      }),
      { numRuns: 1000, seed: 3535 },
    );
    console.log(seen);
    expect(seen.compared).toBeGreaterThanOrEqual(500);
    expect(seen.refused).toBeGreaterThan(20);
    expect(seen.withOwnState).toBeGreaterThan(300);
    expect(seen.mapped).toBeGreaterThan(100);
    expect(seen.mappedIn).toBeGreaterThan(100);
  }, 300_000);
});
