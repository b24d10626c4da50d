/**
 * The longest child workflow id a graph can produce, so a root id is checked against the id limit at the start of
 * a run instead of failing half-way when a nested graph or a map item creates its record.
 */
import { MAX_WORKFLOW_ID_BYTES } from "@graph/checkpoint";
import type { Graph } from "@graph/core";
import { InvalidOptionError } from "../errors.js";

/**
 * Digits reserved for a map item's index (`<parent>/<name>/<i>`): room for 10,000,000 items. The item count is known
 * only when the map runs; a map with more items than this leaves its own, longer ids to the storage's check.
 */
const MAP_INDEX_DIGITS = 7;

/** The suffix a root id gets at the deepest child, in bytes, with a readable picture of it. */
export interface ChildSuffix {
  readonly bytes: number;
  readonly path: string;
}

const NONE: ChildSuffix = { bytes: 0, path: "" };
const suffixes = new WeakMap<Graph, ChildSuffix>();

/** The longest suffix (`/name`, `/name/<i>` for a mapped node, recursively) over the graph's GraphNodes. */
function longestChildSuffix(graph: Graph): ChildSuffix {
  const known = suffixes.get(graph);
  if (known !== undefined) return known;
  let longest = NONE;
  for (const n of graph.nodes.values()) {
    if (n.kind !== "graph") continue;
    const mapped = n.mapOverConfig !== undefined || n.framesConfig !== undefined;
    const own = `/${n.name}${mapped ? `/<item index, up to ${MAP_INDEX_DIGITS} digits>` : ""}`;
    const ownBytes = Buffer.byteLength(`/${n.name}`, "utf8") + (mapped ? 1 + MAP_INDEX_DIGITS : 0);
    const inner = longestChildSuffix(n.graph);
    if (ownBytes + inner.bytes > longest.bytes) longest = { bytes: ownBytes + inner.bytes, path: own + inner.path };
  }
  suffixes.set(graph, longest);
  return longest;
}

/**
 * Throws `InvalidOptionError` (option `workflowId`) when `id` plus the graph's longest child suffix (plus `extra`
 * bytes of the caller's own, e.g. `runner.map`'s `/<i>`) would exceed the id limit.
 */
export function checkChildIdRoom(where: string, id: string, graph: Graph, extra?: ChildSuffix): void {
  const inner = longestChildSuffix(graph);
  const suffix = extra === undefined ? inner : { bytes: extra.bytes + inner.bytes, path: extra.path + inner.path };
  if (suffix.bytes === 0) return;
  // Cheap bound first: most ids are far from the limit.
  if (id.length * 3 + suffix.bytes <= MAX_WORKFLOW_ID_BYTES) return;
  const bytes = Buffer.byteLength(id, "utf8");
  if (bytes + suffix.bytes <= MAX_WORKFLOW_ID_BYTES) return;
  const shown = id.length > 32 ? `${id.slice(0, 32)}…` : id;
  throw new InvalidOptionError(
    `${where}: option 'workflowId' leaves no room for this graph's child workflow ids. Workflow id "${shown}" is ` +
      `${bytes} UTF-8 bytes; its deepest child (a nested graph or map item) adds ${suffix.bytes} bytes ` +
      `("<workflowId>${suffix.path}"), which makes ${bytes + suffix.bytes} bytes, over the limit of ` +
      `${MAX_WORKFLOW_ID_BYTES} bytes on every checkpointer. Use a workflow id of at most ` +
      `${MAX_WORKFLOW_ID_BYTES - suffix.bytes} bytes (for example a hash of the long key).`,
    "workflowId",
  );
}
