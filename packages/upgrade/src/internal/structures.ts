import type { Checkpointer } from "@graph/checkpoint";
import type { Graph } from "@graph/core";
import { upgradeOptionsOf } from "../migrations.js";
import { type GraphStructure, graphStructure, STRUCTURE_FORMAT } from "../structure.js";

/** Hashes already written per checkpointer: one write per graph version and process. */
const written = new WeakMap<Checkpointer, Set<string>>();

/** Stores `graph`'s structure (with its label) once; a checkpointer without the capability is skipped. */
export async function writeStructure(checkpointer: Checkpointer, graph: Graph): Promise<void> {
  if (checkpointer.putGraphStructure === undefined) return;
  let done = written.get(checkpointer);
  if (done === undefined) written.set(checkpointer, (done = new Set()));
  if (done.has(graph.definitionHash)) return;
  const structure = graphStructure(graph, upgradeOptionsOf(graph).label);
  await checkpointer.putGraphStructure(graph.definitionHash, JSON.stringify(structure));
  done.add(graph.definitionHash);
}

/** The stored structure of a graph version, or undefined (not stored, no capability, another format). */
export async function readStructure(checkpointer: Checkpointer, hash: string): Promise<GraphStructure | undefined> {
  const text = await checkpointer.getGraphStructure?.(hash);
  if (text === undefined) return undefined;
  let parsed: GraphStructure | undefined;
  try {
    parsed = JSON.parse(text) as GraphStructure;
  } catch {
    // A corrupt record tells nothing about the old graph: the same verdict as a missing one.
    return undefined;
  }
  return parsed?.format === STRUCTURE_FORMAT && Array.isArray(parsed.nodes) ? parsed : undefined;
}
