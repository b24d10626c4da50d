import { Graph, type InputsOf, node, type OutputsOf } from "@graph/core";
import { Runner } from "../../src/index.js";

const only = node({ name: "only", output: "v" }, ({ seed }: { seed: string }) => seed.length);
export const g = new Graph([only], { name: "g" });
export async function use() {
  const r = await new Runner().run(g, { values: { seed: "s" } });
  return r.get("v");
}
export type I = InputsOf<typeof g>;
export type O = OutputsOf<typeof g>;
