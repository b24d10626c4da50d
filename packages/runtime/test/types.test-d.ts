import { END, Graph, interrupt, node, type OutputsOf, type PauseOf, route } from "@graph/core";
import { Effect } from "effect";
import { describe, expectTypeOf, test } from "vitest";
import { makeRunner } from "../src/effect.js";
import { Runner } from "../src/index.js";

const embed = node({ name: "embed", output: "embedding" }, ({ text }: { text: string }) => [text.length]);
const retrieve = node(
  { name: "retrieve", output: "docs" },
  async ({ embedding, topK = 2 }: { embedding: number[]; topK?: number }) => embedding.slice(0, topK).map(String),
);
const generate = node(
  { name: "generate", output: "answer" },
  ({ docs, query }: { docs: string[]; query: string }) => `${query}: ${docs.join()}`,
);
const rag = new Graph([embed, retrieve, generate], { name: "rag" });
const runner = new Runner();

describe("runner.run values", () => {
  test("required inputs, optional ones, and produced values (to skip a producer) with their types", () => {
    void runner.run(rag, { values: { text: "hi", query: "q" } });
    void runner.run(rag, { values: { text: "hi", query: "q", topK: 3, docs: ["cached"] } });
  });

  test("a missing required input, an unknown key and a wrong type are compile errors", () => {
    // @ts-expect-error 'query' is missing
    void runner.run(rag, { values: { text: "hi" } });
    // @ts-expect-error 'qeury' is not an input
    void runner.run(rag, { values: { text: "hi", query: "q", qeury: "q" } });
    // @ts-expect-error 'text' must be a string
    void runner.run(rag, { values: { text: 1, query: "q" } });
    // @ts-expect-error a produced value keeps its type: 'docs' is string[]
    void runner.run(rag, { values: { text: "hi", query: "q", docs: "x" } });
    // @ts-expect-error the graph needs values
    void runner.run(rag);
  });

  test("a resume (workflowId) or fork may pass only some values, still typed", () => {
    void runner.run(rag, { workflowId: "w1", values: { query: "again" } });
    void runner.run(rag, { workflowId: "w1" });
    // @ts-expect-error even on a resume, 'query' is a string
    void runner.run(rag, { workflowId: "w1", values: { query: 1 } });
  });

  test("a graph with no required input runs without options", () => {
    const now = node({ name: "now", output: "t" }, () => 1);
    void runner.run(new Graph([now]));
  });
});

describe("RunResult", () => {
  test("values is Partial<Outputs>; get() follows names, unknown names are errors", async () => {
    const r = await runner.run(rag, { values: { text: "hi", query: "q" } });
    expectTypeOf(r.values).toEqualTypeOf<Readonly<Partial<{ embedding: number[]; docs: string[]; answer: string }>>>();
    expectTypeOf(r.get("answer")).toEqualTypeOf<string | undefined>();
    // @ts-expect-error 'answr' is not an output
    r.get("answr");
  });

  test("get('a/b/c') descends through nested GraphNodes, three levels deep", async () => {
    const outer = new Graph([rag.asNode()], { name: "outer" });
    const top = new Graph([
      outer.asNode(),
      node({ name: "len", output: "n" }, ({ answer }: { answer: string }) => answer.length),
    ]);
    const r = await runner.run(top, { values: { text: "hi", query: "q" } });
    expectTypeOf(r.get("outer/rag/docs")).toEqualTypeOf<string[] | undefined>();
    expectTypeOf(r.get("outer/answer")).toEqualTypeOf<string | undefined>();
    expectTypeOf(r.get("n")).toEqualTypeOf<number | undefined>();
    // @ts-expect-error 'doc' is not an output of 'rag'
    r.get("outer/rag/doc");
    // @ts-expect-error 'ragg' is not a GraphNode of 'outer'
    r.get("outer/ragg/docs");
  });

  test("runSync and start().result are typed the same way", async () => {
    const sync = new Graph([embed]);
    expectTypeOf(runner.runSync(sync, { values: { text: "x" } }).get("embedding")).toEqualTypeOf<
      number[] | undefined
    >();
    const handle = runner.start(rag, { values: { text: "hi", query: "q" } });
    expectTypeOf((await handle.result).values.docs).toEqualTypeOf<string[] | undefined>();
  });
});

describe("pauses", () => {
  const draft = node({ name: "draft", output: "draft" }, async ({ topic }: { topic: string }) => `on ${topic}`);
  const review = interrupt({ name: "review", input: "draft", response: "verdict" });
  const record = node(
    { name: "record", output: "notes" },
    ({ notes, verdict }: { notes: string[]; verdict: string }) => [...notes, verdict],
  );
  const decide = route({ name: "decide", targets: ["draft", END] }, ({ verdict }: { verdict: string }) =>
    verdict === "ship it" ? END : "draft",
  );
  const writer = new Graph([draft, review, record, decide], { name: "writer" }).bind({ notes: [] });

  test("pause.value has the interrupt input's type; the answer goes under responseKey with its consumers' type", async () => {
    const r = await runner.run(writer, { values: { topic: "graphs" }, workflowId: "doc-1" });
    expectTypeOf(r.pause).toEqualTypeOf<PauseOf<"review", string, "verdict"> | undefined>();
    if (r.pause) {
      expectTypeOf(r.pause.value).toEqualTypeOf<string>();
      void runner.run(writer, { workflowId: "doc-1", values: { [r.pause.responseKey]: "ship it" } });
      // @ts-expect-error the answer is consumed as a string
      void runner.run(writer, { workflowId: "doc-1", values: { [r.pause.responseKey]: 42 } });
    }
  });

  test("nested interrupts: the path and the renamed answer key", async () => {
    const outer = new Graph([writer.asNode().withOutputs({ verdict: "answer" })]);
    const r = await runner.run(outer, { values: { topic: "t" } });
    expectTypeOf(r.pause).toEqualTypeOf<PauseOf<"writer/review", string, "answer"> | undefined>();
  });
});

describe("the Effect API carries the same types", () => {
  test("run values and results", () => {
    const program = Effect.scoped(
      Effect.gen(function* () {
        const effectRunner = yield* makeRunner();
        const r = yield* effectRunner.run(rag, { values: { text: "hi", query: "q" } });
        expectTypeOf(r.get("docs")).toEqualTypeOf<string[] | undefined>();
        // @ts-expect-error 'query' is missing
        yield* effectRunner.run(rag, { values: { text: "hi" } });
        return r;
      }),
    );
    expectTypeOf<Effect.Effect.Success<typeof program>["values"]>().toEqualTypeOf<
      Readonly<Partial<OutputsOf<typeof rag>>>
    >();
  });
});
