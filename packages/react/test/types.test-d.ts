import { Graph, interrupt, node } from "@graph/core";
import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import type { GraphSuspense } from "../src/index.js";

const draft = node({ output: "draft" }, function draft({ q }: { q: string }) {
  return q;
});
const approval = interrupt({
  name: "approval",
  input: "draft",
  response: "decision",
  schema: z.object({ approved: z.boolean(), note: z.string().optional() }),
});
const graph = new Graph([draft, approval]);

describe("GraphSuspense", () => {
  it("types resume's answer by the interrupt's schema, and names the paused node nodeName", () => {
    const suspense = {} as GraphSuspense<typeof graph>;
    expectTypeOf(suspense.nodeName).toEqualTypeOf<"approval">();
    expectTypeOf(suspense.resume).parameter(0).toEqualTypeOf<{ approved: boolean; note?: string | undefined }>();
    // @ts-expect-error: `approved` is a boolean
    void suspense.resume({ approved: "yes" });
    // An untyped graph takes any answer.
    expectTypeOf(({} as GraphSuspense).resume)
      .parameter(0)
      .toEqualTypeOf<unknown>();
  });
});
