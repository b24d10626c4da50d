import { Graph, node } from "@graph/core";
import { describe, expectTypeOf, test } from "vitest";
import { Runner } from "../src/index.js";

interface Page {
  readonly id: number;
}

const pages = node(
  { name: "pages", output: "page", frames: { window: 4 } },
  async function* pages({ count }: { count: number }) {
    for (let id = 0; id < count; id++) yield { id } as Page;
  },
);
const embed = node({ name: "embed", output: "vector" }, async function embed({ page }: { page: Page }) {
  return [page.id];
});
const write = node({ name: "write", output: "written" }, function write({ vector }: { vector: number[] }) {
  return vector[0]!;
});
const total = node({ name: "total", output: "sum", gather: true }, function total({ written }: { written: number[] }) {
  return written.length;
});
const graph = new Graph([pages, embed, write, total]);

describe("per-frame result paths", () => {
  test("result.get('<frames node>/<value>') is typed as the list of per-frame values", async () => {
    const r = await new Runner().run(graph, { values: { count: 3 } });
    expectTypeOf(r.get("pages/written")).toEqualTypeOf<number[] | undefined>();
    expectTypeOf(r.get("pages/vector")).toEqualTypeOf<number[][] | undefined>();
    expectTypeOf(r.get("pages/page")).toEqualTypeOf<Page[] | undefined>();
    expectTypeOf(r.values.written).toEqualTypeOf<number[] | undefined>();
    // @ts-expect-error 'writen' is not a per-frame value of 'pages'
    r.get("pages/writen");
    // @ts-expect-error 'sum' is read once, after the stream (a gather node): not under the pipeline's name
    r.get("pages/sum");
  });

  test("through a nested graph: '<graph node>/<frames node>/<value>'", async () => {
    const outer = new Graph([graph.asNode({ name: "ingest" })]);
    const r = await new Runner().run(outer, { values: { count: 3 } });
    expectTypeOf(r.get("ingest/pages/written")).toEqualTypeOf<number[] | undefined>();
    // @ts-expect-error 'pagez' is not a value of 'ingest'
    r.get("ingest/pagez/written");
  });
});
