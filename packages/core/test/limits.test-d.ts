import { describe, expectTypeOf, it } from "vitest";
import { type NodeConcurrency, type NodeRateLimit, node } from "../src/index.js";

describe("node limits: types", () => {
  it("a key function may type its parameter as the node's inputs", () => {
    const reply = node(
      { output: "reply", concurrency: { key: ({ tenantId }: { tenantId: string }) => tenantId, limit: 2 } },
      async function reply({ tenantId }: { tenantId: string }) {
        return tenantId;
      },
    );
    expectTypeOf(reply.concurrency).toEqualTypeOf<NodeConcurrency | number | undefined>();
    const rate: NodeRateLimit = { key: ({ model }: { model: string }) => model, limit: 60, per: "1m" };
    expectTypeOf(rate.per).toEqualTypeOf<NodeRateLimit["per"]>();
  });

  it("refuses a limit that is not a number, and a key that returns neither a string nor a number", () => {
    // @ts-expect-error limit must be a number
    const badLimit: NodeConcurrency = { key: () => "a", limit: "2" };
    // @ts-expect-error a key is a string or a number
    const badKey: NodeConcurrency = { key: () => ({ tenant: "a" }), limit: 2 };
    expectTypeOf(badLimit).not.toBeAny();
    expectTypeOf(badKey).not.toBeAny();
  });
});
