import { brandOf, GRAPH_BRAND, NODE_BRAND, NODE_PROTOCOL } from "../brands.js";

/**
 * Why `value` is a node or graph this copy can't use, when it carries the brand of another node protocol: the
 * sentence for the error message, else undefined.
 */
export function foreignProtocol(value: unknown, what: "node" | "graph"): string | undefined {
  const protocol = brandOf(value, what === "node" ? NODE_BRAND : GRAPH_BRAND);
  if (protocol === undefined || protocol === NODE_PROTOCOL) return undefined;
  return (
    `it is a ${what} built by another copy of @graph/core, which speaks node protocol ${String(protocol)}; this copy ` +
    `speaks protocol ${NODE_PROTOCOL}, so the two versions can't share nodes and graphs`
  );
}

/**
 * Stops a `switch` over a closed union from compiling when a member has no case (`never` is all that is left), and
 * fails loudly if a value outside the union (a node of a newer copy of `@graph/core`) reaches it at run time.
 */
export function assertNever(_value: never, what: string, shown: unknown): never {
  throw new Error(`Unhandled ${what} '${String(shown)}'. This is a bug in @graph: please report it.`);
}
