/**
 * `diffGraphs`: what changed between two versions of a graph, node by node and value by value.
 *
 * @module
 */
import { isDeepStrictEqual } from "node:util";
import { type Graph, isGraph } from "@graph/core";
import { type GraphStructure, graphStructure, type StructureNode } from "./structure.js";

/**
 * One difference between two graph versions.
 *
 * - `node-changed`: same name, different code or configuration (`kindChanged` when it is now another kind of node);
 * - `node-added` / `node-removed`;
 * - `value-renamed`: a node kept its name and traded exactly one output for another (`from` → `to`);
 * - `value-added` / `value-removed`: any other output that appeared or disappeared (with the node producing it);
 * - `value-type-changed`: a port's static type (its zod schema, as JSON Schema) differs, where both versions have one;
 * - `gate-targets-changed`: a gate's targets, with what was added and removed.
 *
 * @example
 * ```ts
 * import type { GraphChange } from "@graph/upgrade";
 * const change: GraphChange = { kind: "value-renamed", node: "write", from: "draft", to: "body" };
 * ```
 */
export type GraphChange =
  | {
      readonly kind: "node-changed";
      readonly node: string;
      readonly nodeKind: StructureNode["kind"];
      readonly kindChanged: boolean;
    }
  | { readonly kind: "node-added"; readonly node: string; readonly nodeKind: StructureNode["kind"] }
  | {
      readonly kind: "node-removed";
      readonly node: string;
      readonly nodeKind: StructureNode["kind"];
      readonly outputs: readonly string[];
    }
  | { readonly kind: "value-renamed"; readonly node: string; readonly from: string; readonly to: string }
  | { readonly kind: "value-added"; readonly node: string; readonly value: string }
  | { readonly kind: "value-removed"; readonly node: string; readonly value: string }
  | {
      readonly kind: "value-type-changed";
      readonly node: string;
      readonly value: string;
      readonly port: "input" | "output";
      /** JSON Schemas of the old and new type. */
      readonly before: unknown;
      readonly after: unknown;
    }
  | {
      readonly kind: "gate-targets-changed";
      readonly node: string;
      readonly added: readonly string[];
      readonly removed: readonly string[];
    };

const asStructure = (g: Graph | GraphStructure): GraphStructure => (isGraph(g) ? graphStructure(g) : g);

const minus = (a: readonly string[], b: readonly string[]): string[] => a.filter((x) => !b.includes(x));

/**
 * Every change from `before` to `after` (graphs or stored structures), nodes in `after`'s order, then removed nodes.
 * An empty list means the two versions have the same nodes with the same code.
 *
 * @example
 * ```ts
 * import { Graph, node } from "@graph/core";
 * import { diffGraphs } from "@graph/upgrade";
 *
 * const v1 = new Graph([node({ output: "draft" }, function write({ topic }: { topic: string }) {
 *   return topic;
 * })]);
 * const v2 = new Graph([node({ output: "body" }, function write({ topic }: { topic: string }) {
 *   return topic;
 * })]);
 * diffGraphs(v1, v2);
 * // [{ kind: "node-changed", node: "write", … }, { kind: "value-renamed", node: "write", from: "draft", to: "body" }]
 * ```
 */
export function diffGraphs(before: Graph | GraphStructure, after: Graph | GraphStructure): readonly GraphChange[] {
  const a = asStructure(before);
  const b = asStructure(after);
  const old = new Map(a.nodes.map((n) => [n.name, n]));
  const now = new Set(b.nodes.map((n) => n.name));
  const changes: GraphChange[] = [];
  for (const n of b.nodes) {
    const o = old.get(n.name);
    if (o === undefined) {
      changes.push({ kind: "node-added", node: n.name, nodeKind: n.kind });
      continue;
    }
    if (o.hash !== n.hash || o.kind !== n.kind)
      changes.push({ kind: "node-changed", node: n.name, nodeKind: n.kind, kindChanged: o.kind !== n.kind });
    const gone = minus(o.outputs, n.outputs);
    const added = minus(n.outputs, o.outputs);
    if (gone.length === 1 && added.length === 1)
      changes.push({ kind: "value-renamed", node: n.name, from: gone[0]!, to: added[0]! });
    else {
      for (const value of gone) changes.push({ kind: "value-removed", node: n.name, value });
      for (const value of added) changes.push({ kind: "value-added", node: n.name, value });
    }
    for (const port of ["input", "output"] as const) {
      const was = port === "input" ? o.types?.inputs : o.types?.outputs;
      const now = port === "input" ? n.types?.inputs : n.types?.outputs;
      for (const [value, after] of Object.entries(now ?? {})) {
        const before = was?.[value];
        if (before !== undefined && !isDeepStrictEqual(before, after))
          changes.push({ kind: "value-type-changed", node: n.name, value, port, before, after });
      }
    }
    if (o.targets !== undefined && n.targets !== undefined) {
      const plus = minus(n.targets, o.targets);
      const less = minus(o.targets, n.targets);
      if (plus.length > 0 || less.length > 0)
        changes.push({ kind: "gate-targets-changed", node: n.name, added: plus, removed: less });
    }
  }
  for (const o of a.nodes)
    if (!now.has(o.name)) changes.push({ kind: "node-removed", node: o.name, nodeKind: o.kind, outputs: o.outputs });
  return changes;
}
