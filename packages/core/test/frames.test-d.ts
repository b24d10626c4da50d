import { describe, expectTypeOf, it } from "vitest";
import { Graph, type GraphResult, node, type OutputsOf, type PathValue, type ResultPath } from "../src/index.js";

interface Page {
  readonly id: number;
  readonly text: string;
}

const fetchPages = node(
  { name: "fetchPages", output: "page", frames: { window: 16 } },
  async function* fetchPages({ count }: { count: number }) {
    for (let i = 0; i < count; i++) yield { id: i, text: `p${i}` } as Page;
  },
);
const embed = node({ name: "embed", output: "vector" }, async function embed({ page }: { page: Page }) {
  return [page.id];
});
const write = node({ name: "write", output: "written" }, async function write({ vector }: { vector: number[] }) {
  return vector.length;
});
const total = node({ name: "total", output: "sum", gather: true }, function total({ written }: { written: number[] }) {
  return written.reduce((a, b) => a + b, 0);
});

describe("frames types", () => {
  it("a frames node's output is one yielded value (a frame), not the list of chunks", () => {
    expectTypeOf<OutputsOf<typeof fetchPages>>().toEqualTypeOf<{ page: Page }>();
    const chunks = node({ output: "page" }, async function* chunks() {
      yield { id: 1, text: "" } as Page;
    });
    expectTypeOf<OutputsOf<typeof chunks>>().toEqualTypeOf<{ page: Page[] }>();
  });

  it("the graph's result holds every per-frame value as a list in frame order; gather nodes read lists", () => {
    const g = new Graph([fetchPages, embed, write, total]);
    expectTypeOf<OutputsOf<typeof g>>().toEqualTypeOf<{
      page: Page[];
      vector: number[][];
      written: number[];
      sum: number;
      readonly fetchPages: GraphResult<{ page: Page[]; vector: number[][]; written: number[] }, never>;
    }>();
    expectTypeOf<import("../src/index.js").InputsOf<typeof g>>().toEqualTypeOf<{ count: number }>();
  });

  it("a consumer that declares the list type without gather: true is a wiring error, and so is the reverse", () => {
    const wantsList = node({ name: "wantsList", output: "n" }, function wantsList({ page }: { page: Page[] }) {
      return page.length;
    });
    // @ts-expect-error — a per-frame consumer gets one Page, not Page[]
    new Graph([fetchPages, wantsList]);
    const gatherOne = node(
      { name: "gatherOne", output: "n", gather: true },
      function gatherOne({ page }: { page: Page }) {
        return page.id;
      },
    );
    // @ts-expect-error — a gather node gets the list of frames
    new Graph([fetchPages, gatherOne]);
  });

  it("the pipeline's result is under the frames node's name, holding its own per-frame values as lists", () => {
    const g = new Graph([fetchPages, embed, write, total]);
    type Out = OutputsOf<typeof g>;
    expectTypeOf<PathValue<Out, "fetchPages/written">>().toEqualTypeOf<number[]>();
    expectTypeOf<PathValue<Out, "fetchPages/page">>().toEqualTypeOf<Page[]>();
    expectTypeOf<ResultPath<Out, "fetchPages/vector">>().toEqualTypeOf<"fetchPages/vector">();
    // A gather node is not part of the pipeline: its output is not under the pipeline's name.
    expectTypeOf<ResultPath<Out, "fetchPages/sum">>().not.toEqualTypeOf<"fetchPages/sum">();
    expectTypeOf<ResultPath<Out, "fetchPages/sum">>().toEqualTypeOf<
      "fetchPages/page" | "fetchPages/vector" | "fetchPages/written"
    >();
  });

  it("two streams: each pipeline's result holds only its own per-frame values", () => {
    const letters = node({ name: "letters", output: "letter", frames: true }, function* letters() {
      yield "a";
    });
    const upper = node({ name: "upper", output: "big" }, function upper({ letter }: { letter: string }) {
      return letter.toUpperCase();
    });
    const g = new Graph([fetchPages, embed, letters, upper]);
    type Out = OutputsOf<typeof g>;
    expectTypeOf<Out["fetchPages"]>().toEqualTypeOf<GraphResult<{ page: Page[]; vector: number[][] }, never>>();
    expectTypeOf<Out["letters"]>().toEqualTypeOf<GraphResult<{ letter: string[]; big: string[] }, never>>();
    expectTypeOf<PathValue<Out, "letters/big">>().toEqualTypeOf<string[]>();
  });

  it("a frames node named by its function: the result accepts any path (its name is not a literal type)", () => {
    const nums = node({ output: "n", frames: true }, async function* nums() {
      yield 1;
    });
    const g = new Graph([nums]);
    expectTypeOf<(typeof g)["~types"]["meta"]["dynamic"]>().toEqualTypeOf<true>();
    expectTypeOf<OutputsOf<typeof g>>().toEqualTypeOf<{ n: number[] }>();
    // Without frames the graph stays closed.
    expectTypeOf<(typeof write)["~types"]["dynamic"]>().toEqualTypeOf<false>();
  });
});
