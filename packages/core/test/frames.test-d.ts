import { describe, expectTypeOf, it } from "vitest";
import { Graph, node, type OutputsOf } from "../src/index.js";

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
});
