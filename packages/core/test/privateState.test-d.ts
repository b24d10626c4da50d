import { describe, expectTypeOf, test } from "vitest";
import { Graph, type InputsOf, node, type OutputsOf } from "../src/index.js";

// A nested graph's own loop state (a value it reads, writes and seeds itself with `bind`) is not an input of its
// GraphNode: the parent maps it in by name when it means to seed it.

const work = node({ name: "work", output: "log" }, ({ item, log }: { item: string; log: string[] }) => [...log, item]);
const one = new Graph([work], { name: "one" }).bind({ log: [] });

describe("a GraphNode's inputs leave out the nested graph's own loop state", () => {
  test("the graph itself still takes its bound history (a run of it may pass one)", () => {
    expectTypeOf<InputsOf<typeof one>>().toEqualTypeOf<{ item: string; log?: string[] }>();
  });

  test("its GraphNode takes only the item; the history stays among its outputs", () => {
    const sub = one.asNode();
    expectTypeOf<InputsOf<typeof sub>>().toEqualTypeOf<{ item: string }>();
    expectTypeOf<OutputsOf<typeof sub>["log"]>().toEqualTypeOf<string[]>();
  });

  test("renames and mapOver keep it out", () => {
    const mapped = one.asNode({ name: "first" }).withInputs({ item: "a" }).mapOver("a");
    expectTypeOf<InputsOf<typeof mapped>>().toEqualTypeOf<{ a: readonly string[] }>();
    const renamed = one.asNode().withOutputs({ log: "log2" }).withName("second");
    expectTypeOf<InputsOf<typeof renamed>>().toEqualTypeOf<{ item: string }>();
  });

  test("mapping it in by name makes it an optional input under the new name", () => {
    const seeded = one.asNode().withInputs({ log: "history" });
    expectTypeOf<InputsOf<typeof seeded>>().toEqualTypeOf<{ item: string; history?: string[] }>();
    const same = one.asNode().withInputs({ item: "task", log: "log" });
    expectTypeOf<InputsOf<typeof same>>().toEqualTypeOf<{ task: string; log?: string[] }>();
  });

  test("a name that is neither an input nor its loop state is refused", () => {
    // @ts-expect-error 'lgo' is no input of the GraphNode
    one.asNode().withInputs({ lgo: "history" });
  });

  test("a value the nested graph only reads stays an (optional) input", () => {
    const answer = node({ name: "answer", output: "log" }, ({ log, model }: { log: string[]; model: string }) => [
      ...log,
      model,
    ]);
    const sub = new Graph([answer], { name: "sub" }).bind({ log: [], model: "small" }).asNode();
    expectTypeOf<InputsOf<typeof sub>>().toEqualTypeOf<{ model?: string }>();
  });

  test("a loop seed the nested graph does not seed itself stays a required input", () => {
    const unseeded = new Graph([work], { name: "unseeded" }).asNode();
    expectTypeOf<InputsOf<typeof unseeded>>().toEqualTypeOf<{ item: string; log: string[] }>();
  });
});

describe("loop state seeded by a parameter default", () => {
  const step = node({ name: "step", output: "log" }, ({ item, log = [] }: { item: string; log?: string[] }) => [
    ...log,
    item,
  ]);
  const defaulted = new Graph([step], { name: "defaulted" });

  test("is no input of the graph's type, nor of its node; it can be mapped in by name", () => {
    expectTypeOf<InputsOf<typeof defaulted>>().toEqualTypeOf<{ item: string }>();
    const sub = defaulted.asNode();
    expectTypeOf<InputsOf<typeof sub>>().toEqualTypeOf<{ item: string }>();
    const seeded = defaulted.asNode().withInputs({ log: "history" });
    expectTypeOf<InputsOf<typeof seeded>>().toEqualTypeOf<{ item: string; history?: string[] }>();
  });
});
