import { describe, expectTypeOf, test } from "vitest";
import * as z from "zod";
import {
  END,
  Graph,
  type GraphResult,
  type InputsOf,
  ifElse,
  interrupt,
  node,
  type OutputsOf,
  route,
} from "../src/index.js";

const embed = node({ name: "embed", output: "embedding" }, ({ text }: { text: string }) => [text.length, 0.2]);
const retrieve = node(
  { name: "retrieve", output: "docs" },
  async ({ embedding, topK = 5 }: { embedding: number[]; topK?: number }) => embedding.slice(0, topK).map(String),
);
const generate = node(
  { name: "generate", output: "answer" },
  ({ docs, query }: { docs: string[]; query: string }) => `${query}: ${docs.join()}`,
);
const rag = new Graph([embed, retrieve, generate], { name: "rag" });

describe("node() inputs", () => {
  test("from the annotated destructured parameter; a default in the pattern makes the key optional", () => {
    expectTypeOf<InputsOf<typeof embed>>().toEqualTypeOf<{ text: string }>();
    expectTypeOf<InputsOf<typeof retrieve>>().toEqualTypeOf<{ embedding: number[]; topK?: number }>();
  });

  test("from a zod inputs record: z.infer inside the function, defaults optional outside", () => {
    const search = node(
      { name: "search", output: "hits", inputs: { query: z.string(), limit: z.number().default(3) } },
      ({ query, limit }) => {
        expectTypeOf(query).toEqualTypeOf<string>();
        expectTypeOf(limit).toEqualTypeOf<number>();
        return [query.repeat(limit)];
      },
    );
    expectTypeOf<InputsOf<typeof search>>().toEqualTypeOf<{ query: string; limit?: number | undefined }>();
    expectTypeOf<OutputsOf<typeof search>>().toEqualTypeOf<{ hits: string[] }>();
  });

  test("from an inputs array: unknown to callers, a default makes the key optional", () => {
    const add = node({ inputs: ["a", "b"], output: "sum", defaults: { b: 1 } }, ({ a, b }) => Number(a) + Number(b));
    expectTypeOf<InputsOf<typeof add>>().toEqualTypeOf<{ a: unknown; b?: unknown }>();
    expectTypeOf<OutputsOf<typeof add>>().toEqualTypeOf<{ sum: number }>();
  });

  test("a function with no parameter takes nothing", () => {
    const now = node({ output: "time" }, () => 1);
    expectTypeOf<InputsOf<typeof now>>().toEqualTypeOf<Record<never, never>>();
  });
});

describe("node() outputs", () => {
  test("one output is the awaited return value", () => {
    expectTypeOf<OutputsOf<typeof retrieve>>().toEqualTypeOf<{ docs: string[] }>();
    expectTypeOf<OutputsOf<typeof embed>>().toEqualTypeOf<{ embedding: number[] }>();
  });

  test("several outputs zip with a returned tuple (array literals are read as tuples), or an object's keys", () => {
    const split = node({ name: "split", output: ["first", "second"] }, ({ x }: { x: number }) => [x, String(x)]);
    expectTypeOf<OutputsOf<typeof split>>().toEqualTypeOf<{ first: number; second: string }>();
    const asyncSplit = node({ output: ["n", "s"] }, async ({ x }: { x: number }, _ctx) => [x, String(x)]);
    expectTypeOf<OutputsOf<typeof asyncSplit>>().toEqualTypeOf<{ n: number; s: string }>();
    const keyed = node({ output: ["lo", "hi"] }, ({ x }: { x: number }) => ({ lo: x - 1, hi: String(x + 1) }));
    expectTypeOf<OutputsOf<typeof keyed>>().toEqualTypeOf<{ lo: number; hi: string }>();
  });

  test("generators: the return value, else the joined string chunks, else the chunk array", () => {
    const tokens = node({ output: "text" }, async function* tokens({ q }: { q: string }) {
      yield q;
      yield "!";
    });
    expectTypeOf<OutputsOf<typeof tokens>>().toEqualTypeOf<{ text: string }>();
    const counted = node({ output: "total" }, function* counted() {
      yield 1;
      return 42;
    });
    expectTypeOf<OutputsOf<typeof counted>>().toEqualTypeOf<{ total: number }>();
    const numbers = node({ output: "nums" }, function* numbers() {
      yield 1;
    });
    expectTypeOf<OutputsOf<typeof numbers>>().toEqualTypeOf<{ nums: number[] }>();
  });

  test("no output ⇒ {}; an outputSchema types the output", () => {
    const log = node({ name: "log" }, ({ msg }: { msg: string }) => console.log(msg));
    expectTypeOf<OutputsOf<typeof log>>().toEqualTypeOf<Record<never, never>>();
    const parsed = node({ output: "n", outputSchema: z.number() }, ({ raw }: { raw: string }): unknown => raw);
    expectTypeOf<OutputsOf<typeof parsed>>().toEqualTypeOf<{ n: number }>();
  });
});

describe("Graph", () => {
  test("inputs: required stay required, defaults optional, produced values absent; outputs merged", () => {
    expectTypeOf<InputsOf<typeof rag>>().toEqualTypeOf<{ text: string; topK?: number; query: string }>();
    expectTypeOf<OutputsOf<typeof rag>>().toEqualTypeOf<{ embedding: number[]; docs: string[]; answer: string }>();
  });

  test("a producer whose type a consumer does not accept is a compile error naming the value", () => {
    const wants = node({ name: "wants", output: "z" }, ({ embedding }: { embedding: string }) => embedding.length);
    // @ts-expect-error ✖ Value 'embedding': its producer's type is not assignable to the type a consumer declares
    new Graph([embed, wants]);
    const wider = node(
      { name: "wider", output: "z" },
      ({ embedding }: { embedding: readonly number[] }) => embedding.length,
    );
    expectTypeOf<OutputsOf<typeof wider>>().toEqualTypeOf<{ z: number }>();
    new Graph([embed, wider]);
  });

  test("route / ifElse targets must be nodes of the graph (when the names are known)", () => {
    const a = node({ name: "a", output: "n" }, ({ n }: { n: number }) => n + 1);
    const loop = route({ name: "loop", targets: ["a", END] }, ({ n }: { n: number }) => (n > 3 ? END : "a"));
    new Graph([a, loop]);
    const typo = route({ name: "typo", targets: ["b", END] }, ({ n }: { n: number }) => (n > 3 ? END : "b"));
    // @ts-expect-error ✖ Gate target 'b' is not a node of this graph
    new Graph([a, typo]);
    const pick = ifElse({ name: "pick", whenTrue: "a", whenFalse: "c" }, ({ n }: { n: number }) => n > 0);
    // @ts-expect-error ✖ Gate target 'c' is not a node of this graph
    new Graph([a, pick]);
  });

  test("gate targets when nodes are named by their function: checked against the names that are known", () => {
    // README style: no `name` in the options, so TypeScript sees each node's name as `string`.
    const draft = node({ output: "draft" }, function draft({ topic }: { topic: string }) {
      return topic;
    });
    const publish = node({ name: "publish", output: "url" }, ({ draft }: { draft: string }) => `/${draft}`);
    const review = route({ targets: ["draft", "publish"] }, function review({ draft }: { draft: string }) {
      return draft.length > 3 ? "publish" : "draft";
    });
    new Graph([draft, review, publish]);
    // A target that may be the unnamed node compiles ('draft' is the function's name: the runtime checks it).
    const maybe = route({ targets: ["drfat", "publish"] }, function maybe({ draft }: { draft: string }) {
      return draft.length > 3 ? "publish" : "drfat";
    });
    new Graph([draft, maybe, publish]);
    // More unmatched targets than nodes of unknown name: some target is misspelled.
    const three = route({ name: "three", targets: ["x", "y", "publish"] }, ({ draft }: { draft: string }) =>
      draft.length > 3 ? "publish" : "x",
    );
    // @ts-expect-error ✖ Gate targets 'x', 'y' match no node name the checker knows, and only 1 node(s) have a name it can't read …
    new Graph([draft, three, publish]);
    // Every node named: each target is checked, with a close name suggested.
    const typo = route({ name: "typo", targets: ["publsh", END] }, ({ draft }: { draft: string }) =>
      draft.length > 3 ? "publsh" : END,
    );
    // @ts-expect-error ✖ Gate target 'publsh' is not a node of this graph. Did you mean 'publish'?
    new Graph([draft.withName("draft"), typo, publish]);
  });

  test("bind: bound keys become optional; unknown keys and wrong types are errors", () => {
    const bound = rag.bind({ query: "fixed" });
    expectTypeOf<InputsOf<typeof bound>>().toEqualTypeOf<{ text: string; topK?: number; query?: string }>();
    // @ts-expect-error 'qeury' is not an input
    rag.bind({ qeury: "fixed" });
    // @ts-expect-error 'topK' is a number
    rag.bind({ topK: "5" });
    // @ts-expect-error 'answer' is produced and consumed by no node: it can't be bound
    rag.bind({ answer: "x" });
  });

  test("bind accepts a loop's seed (a value both produced and consumed); bound, it becomes optional", () => {
    const record = node({ output: "notes" }, ({ notes, verdict }: { notes: string[]; verdict: string }) => [
      ...notes,
      verdict,
    ]);
    const unbound = new Graph([record]);
    expectTypeOf<InputsOf<typeof unbound>>().toEqualTypeOf<{ notes: string[]; verdict: string }>();
    const g = unbound.bind({ notes: [] });
    expectTypeOf<InputsOf<typeof g>>().toEqualTypeOf<{ verdict: string; notes?: string[] }>();
  });
});

describe("renames", () => {
  const split = node({ name: "split", output: ["first", "second"] }, ({ x }: { x: number }) => [x, String(x)]);

  test("withOutputs renames types, a parallel swap included", () => {
    const swapped = split.withOutputs({ first: "second", second: "first" });
    expectTypeOf<OutputsOf<typeof swapped>>().toEqualTypeOf<{ second: number; first: string }>();
    // @ts-expect-error 'third' is not an output
    split.withOutputs({ third: "x" });
  });

  test("withInputs and withName", () => {
    const renamed = embed.withInputs({ text: "raw" }).withName("embed2");
    expectTypeOf<InputsOf<typeof renamed>>().toEqualTypeOf<{ raw: string }>();
    expectTypeOf(renamed["~types"].name).toEqualTypeOf<"embed2">();
    // @ts-expect-error 'txt' is not an input
    embed.withInputs({ txt: "raw" });
  });
});

describe("GraphNode", () => {
  test("asNode: the graph's inputs; its outputs plus its own result under its name", () => {
    const ragNode = rag.asNode();
    expectTypeOf<InputsOf<typeof ragNode>>().toEqualTypeOf<InputsOf<typeof rag>>();
    expectTypeOf<OutputsOf<typeof ragNode>["rag"]>().toEqualTypeOf<
      GraphResult<{ embedding: number[]; docs: string[]; answer: string }, never>
    >();
    expectTypeOf<OutputsOf<typeof ragNode>["answer"]>().toEqualTypeOf<string>();
  });

  test("mapOver('x') takes readonly T[] and makes every output T[]", () => {
    const mapped = rag.asNode().withInputs({ query: "question" }).mapOver("text");
    expectTypeOf<InputsOf<typeof mapped>>().toEqualTypeOf<{
      text: readonly string[];
      topK?: number;
      question: string;
    }>();
    expectTypeOf<OutputsOf<typeof mapped>["answer"]>().toEqualTypeOf<string[]>();
    // @ts-expect-error 'nope' is not an input of the GraphNode
    rag.asNode().mapOver("nope");
    const report = node({ name: "report", output: "report" }, ({ answer }: { answer: string[] }) => answer.join());
    const outer = new Graph([mapped, report]);
    expectTypeOf<OutputsOf<typeof outer>["report"]>().toEqualTypeOf<string>();
  });

  test("three levels deep, inner results nest", () => {
    const outer = new Graph([rag.asNode()], { name: "outer" });
    const top = new Graph([outer.asNode()], { name: "top" });
    type Top = OutputsOf<typeof top>;
    expectTypeOf<Top["outer"]>().toMatchTypeOf<GraphResult>();
    expectTypeOf<Top["answer"]>().toEqualTypeOf<string>();
  });
});

describe("interrupts", () => {
  test("the answer's type comes from an annotated handler", () => {
    const approve = interrupt({
      name: "approve",
      input: "draft",
      response: "ok",
      handler: (draft: string): boolean | undefined => (draft.length < 3 ? true : undefined),
    });
    expectTypeOf<InputsOf<typeof approve>>().toEqualTypeOf<{ draft: string }>();
    expectTypeOf<OutputsOf<typeof approve>>().toEqualTypeOf<{ ok: boolean }>();
  });
});

describe("untyped code and the escape hatch", () => {
  test("an unannotated function degrades to open inputs without errors", () => {
    const loose = node({ output: "y" }, ({ x }) => x);
    const g = new Graph([loose, embed]);
    expectTypeOf<InputsOf<typeof g>>().toMatchTypeOf<{ text: string }>();
    expectTypeOf<InputsOf<typeof g>>().toHaveProperty("anything");
  });

  test("a hand-written Graph<In, Out> types a graph built from untyped (any) nodes; a plain Graph opts out", () => {
    const fromJs: any = node({ output: "y" }, ({ x }: { x: number }) => x);
    const declared: Graph<{ x: number; text: string }, { y: number; embedding: number[] }> = new Graph([fromJs, embed]);
    expectTypeOf<InputsOf<typeof declared>>().toEqualTypeOf<{ x: number; text: string }>();
    expectTypeOf<OutputsOf<typeof declared>>().toEqualTypeOf<{ y: number; embedding: number[] }>();
    const loose: Graph = rag;
    expectTypeOf<InputsOf<typeof loose>>().toBeAny();
    const anyGraph = new Graph([fromJs, embed]);
    expectTypeOf<InputsOf<typeof anyGraph>>().toBeAny();
  });
});
