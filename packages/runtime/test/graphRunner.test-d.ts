import type { Checkpoint } from "@graph/checkpoint";
import { Graph, node } from "@graph/core";
import { describe, expectTypeOf, test } from "vitest";
import {
  type GraphRunner,
  type MapResultOf,
  type ResultOf,
  type RunHandle,
  Runner,
  type StartArgs,
} from "../src/index.js";

const embed = node({ name: "embed", output: "embedding" }, ({ text }: { text: string }) => [text.length]);
const generate = node(
  { name: "generate", output: "answer" },
  ({ embedding, query }: { embedding: number[]; query: string }) => `${query}: ${embedding.length}`,
);
const rag = new Graph([embed, generate], { name: "rag" });
const runner: GraphRunner = new Runner();

describe("GraphRunner", () => {
  test("Runner is a GraphRunner; values are checked and results typed through the interface", async () => {
    const r = await runner.run(rag, { values: { text: "hi", query: "q" } });
    expectTypeOf(r).toEqualTypeOf<ResultOf<typeof rag>>();
    expectTypeOf(r.get("answer")).toEqualTypeOf<string | undefined>();
    // @ts-expect-error 'query' is missing
    void runner.run(rag, { values: { text: "hi" } });
    // @ts-expect-error 'qeury' is not an input
    void runner.run(rag, { values: { text: "hi", query: "q", qeury: "q" } });
    // @ts-expect-error the graph needs values
    void runner.run(rag);
    // A resume may pass only some values.
    void runner.run(rag, { workflowId: "w1", values: { query: "again" } });
  });

  test("a fork from a checkpoint and an abort signal are Runner's own, not every runner's", () => {
    const checkpoint = {} as Checkpoint;
    // @ts-expect-error no fork through GraphRunner
    void runner.run(rag, { values: { text: "hi", query: "q" }, checkpoint });
    void new Runner().run(rag, { values: { text: "hi", query: "q" }, checkpoint });
    // @ts-expect-error no signal through GraphRunner
    void runner.run(rag, { values: { text: "hi", query: "q" }, signal: new AbortController().signal });
    void new Runner().run(rag, { values: { text: "hi", query: "q" }, signal: new AbortController().signal });
  });

  test("start returns a RunHandle typed by the graph; stop returns a Promise; map is typed", async () => {
    const handle = runner.start(rag, { values: { text: "hi", query: "q" } });
    expectTypeOf(handle).toEqualTypeOf<RunHandle<ResultOf<typeof rag>>>();
    expectTypeOf(handle.stop()).toEqualTypeOf<Promise<void>>();
    expectTypeOf((await handle.result).values.answer).toEqualTypeOf<string | undefined>();
    const batch = await runner.map(rag, { values: { text: ["a", "b"], query: "q" }, mapOver: "text" });
    expectTypeOf(batch).toEqualTypeOf<MapResultOf<typeof rag>>();
  });

  test("StartArgs forwards a typed call", () => {
    function submit<G extends Graph>(r: GraphRunner, graph: G, ...options: StartArgs<G>) {
      return r.start(graph, ...options);
    }
    void submit(runner, rag, { values: { text: "hi", query: "q" } });
  });
});
