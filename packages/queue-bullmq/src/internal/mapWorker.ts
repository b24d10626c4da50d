/**
 * The worker's side of a distributed map: running a chunk's items, and gathering the results in item order.
 */
import type { Checkpointer, Serializer } from "@graph/checkpoint";
import type { Graph } from "@graph/core";
import { type Runner, RunResult } from "@graph/runtime";
import type { Redis } from "ioredis";
import { runChunkItems } from "./chunkItems.js";
import type { QueueKeys } from "./keys.js";
import { type ChunkJobData, type GatherJobData, itemWorkflowId } from "./mapJobs.js";
import { readStop } from "./stopSignal.js";

/**
 * Runs a chunk's items as child workflows; an item already finished (a chunk delivered again after its worker died)
 * is not run again. Resolves to how many items finished. Stops early when the map was stopped.
 */
export async function runChunk(
  data: ChunkJobData,
  graph: Graph,
  runner: Runner,
  checkpointer: Checkpointer,
  serializer: Serializer,
  redis: Redis,
  keys: QueueKeys,
): Promise<number> {
  const text = await redis.get(keys.mapChunk(data.mapId, data.chunk));
  if (text === null) throw new Error(`Map '${data.mapId}': the values of chunk ${data.chunk} are gone from Redis.`);
  const items = serializer.deserialize(text) as Record<string, unknown>[];
  return runChunkItems(items.length, async (offset) => {
    if ((await readStop(redis, keys, data.mapId)) !== undefined) return false;
    const id = itemWorkflowId(data.mapId, data.start + offset);
    const stored = await checkpointer.getWorkflow(id);
    if (stored?.status !== "completed" && stored?.status !== "failed")
      await runner.run(graph, {
        ...data.options,
        values: items[offset],
        workflowId: id,
        errorHandling: "continue",
      } as never);
    return true;
  });
}

/** The map's result, read from the checkpointer in item order (outputs of the graph only). */
export async function gatherResults(
  data: GatherJobData,
  graph: Graph,
  checkpointer: Checkpointer,
): Promise<{ readonly status: RunResult["status"]; readonly results: RunResult[] }> {
  const results: RunResult[] = [];
  const outputs = [...graph.outputs];
  for (let i = 0; i < data.total; i++) {
    const id = itemWorkflowId(data.mapId, i);
    const workflow = await checkpointer.getWorkflow(id);
    const state = workflow === undefined ? {} : await checkpointer.getState(id);
    const values: Record<string, unknown> = {};
    for (const o of outputs) if (Object.hasOwn(state, o)) values[o] = state[o];
    const error = workflow?.error;
    results.push(
      new RunResult({
        status: workflow?.status === "running" || workflow === undefined ? "stopped" : workflow.status,
        values,
        workflowId: id,
        runId: "",
        ...(error === undefined ? {} : { error: { ...error } }),
      }),
    );
  }
  const status = results.some((r) => r.status === "failed")
    ? "failed"
    : results.some((r) => r.status === "stopped")
      ? "stopped"
      : "completed";
  return { status, results };
}
