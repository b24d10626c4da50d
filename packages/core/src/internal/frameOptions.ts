import { GraphConfigError } from "../errors.js";
import type { NodeOptions } from "../node.js";
import type { ExecutionMode } from "./params.js";

/** Frames in flight when `frames: true` gives no window. */
const DEFAULT_FRAME_WINDOW = 16;

/** Options that apply to one call: a frames node's "call" is the whole stream, so they have no meaning on it yet. */
const PER_CALL = ["cache", "retry", "timeoutMs", "concurrency", "rateLimit"] as const;

/**
 * The frames setting of a node (`undefined`: not a frames node). Only a generator with one output can yield frames;
 * options that apply to a whole call are refused.
 */
export function framesSpec(
  name: string,
  options: NodeOptions,
  mode: ExecutionMode,
  outputKind: "none" | "single" | "many",
): { readonly window: number } | undefined {
  const frames = options.frames;
  if (frames === undefined || frames === false) return undefined;
  if (mode !== "async-generator" && mode !== "sync-generator")
    throw new GraphConfigError(
      `Node '${name}' has frames: true, but its function is not a generator (it is ${mode}).\n  How to fix: write it as async function* ${name}(…) { yield item } — every yield is one frame.`,
      { where: name },
    );
  if (outputKind !== "single")
    throw new GraphConfigError(
      `Node '${name}' has frames: true, so it needs exactly one output named as a string (every yield is one value of it).\n  How to fix: node({ output: "page", frames: true }, …).`,
      { where: name },
    );
  const unsupported = PER_CALL.find((k) => options[k] !== undefined && options[k] !== false);
  if (unsupported !== undefined)
    throw new GraphConfigError(
      `Node '${name}' has frames: true and '${unsupported}', which a frames node does not support.\n  How to fix: leave '${unsupported}' out of the frames node; set it on the nodes that consume the frames (they run once per frame).`,
      { where: name },
    );
  return { window: frames === true ? DEFAULT_FRAME_WINDOW : (frames.window ?? DEFAULT_FRAME_WINDOW) };
}
