import { Graph, node } from "@graph/core";
import { describe, expectTypeOf, it } from "vitest";
import { drop, type Migration, upgradable } from "../src/index.js";

const write = node({ name: "write", output: "body" }, ({ outline }: { outline: string }) => outline.length);
const graph = new Graph([write], { name: "post" });

describe("migrations are typed by the graph they are registered on", () => {
  it("rename targets and transform keys are the graph's value names; a transform returns the value's type", () => {
    upgradable(graph, {
      migrations: [{ from: "v1", rename: { draft: "body" }, transform: { body: (old) => Number(old) } }],
    });
    // @ts-expect-error 'bodyy' is not a value of the graph
    upgradable(graph, { migrations: [{ from: "v1", rename: { draft: "bodyy" } }] });
    // @ts-expect-error 'body' is a number: a transform must return one
    upgradable(graph, { migrations: [{ from: "v1", transform: { body: (old) => String(old) } }] });
    upgradable(graph, { migrations: [{ from: "v1", pause: { approve: drop, review: "check" } }] });
  });

  it("an untyped Migration accepts any names", () => {
    expectTypeOf<Migration["rename"]>().toEqualTypeOf<Readonly<Record<string, string>> | undefined>();
  });
});
