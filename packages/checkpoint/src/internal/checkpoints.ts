/** How every backend turns the steps it read into a `Checkpoint`. */
import type { Checkpoint, StepRecord } from "../Checkpointer.js";
import { foldSteps } from "../state.js";

/**
 * The checkpoint of a workflow from one snapshot: its last written superstep and its steps through `bound` (already
 * normalised by `superstepBound`; `undefined` for the latest), in index order. The superstep it reports is the bound
 * clipped to the last one written, and -1 when no step is included.
 */
export function assembleCheckpoint(
  workflowId: string,
  lastSuperstep: number,
  steps: readonly StepRecord[],
  bound: number | undefined,
): Checkpoint {
  const { values, versions } = foldSteps(steps);
  const last = bound === undefined ? lastSuperstep : Math.min(bound, lastSuperstep);
  return { workflowId, superstep: steps.length === 0 ? -1 : Math.max(last, -1), values, versions, steps };
}
