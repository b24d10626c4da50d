/**
 * The runtime's dispatcher a worker's runner gets: mapped GraphNodes to node-map chunks (`map.distribute`), frames
 * pipelines to frame chunks (`frames.distribute`), either or both.
 */
import type { MapDispatcher, Runner } from "@graph/runtime";
import { type FramesDistributeOptions, framesDispatcher } from "./frameChunks.js";
import { type DistributeOptions, type NodeMapDeps, nodeMapDispatcher } from "./nodeMap.js";

/** Maps run in the run's process when only frames are distributed. */
const NO_MAPS: MapDispatcher = { minItems: Number.MAX_SAFE_INTEGER, dispatch: () => Promise.resolve("inline") };

export function poolDispatcher(
  map: DistributeOptions | undefined,
  frames: FramesDistributeOptions | undefined,
  deps: () => NodeMapDeps,
  runner: () => Runner,
): MapDispatcher | undefined {
  if (map === undefined && frames === undefined) return undefined;
  const maps = map === undefined ? NO_MAPS : nodeMapDispatcher(map, deps);
  return frames === undefined ? maps : { ...maps, frames: framesDispatcher(frames, deps, runner) };
}
