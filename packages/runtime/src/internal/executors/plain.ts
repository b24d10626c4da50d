import { type FunctionNode, GateNode } from "@graph/core";
import type { EngineHost } from "../host.js";
import { NodeCtx } from "../nodeContext.js";
import { Completed, type Execution, isThenable, type Outcome, stopped } from "../outcome.js";
import { ASYNC, SYNC } from "../plan.js";

// The scheduler's hot path: gates and plain function nodes (no cache, retry, timeout or streaming) are called
// directly, with no Effect, fiber or AbortController per node. An async result comes back as a Promise of its
// Outcome; the superstep awaits it together with its siblings and the run's stop (superstep.ts).

/** Whether a node can run on the plain path (otherwise function.ts runs it). */
export function isPlain(host: EngineHost, ex: Execution): boolean {
  const kind = ex.plan.kind;
  // Async nodes take a permit of the shared concurrency limit when there is one: that path waits in Effect.
  return kind === SYNC || (kind === ASYNC && host.config.shared.semaphore === undefined);
}

/** Runs a plain node: its Outcome now, or the promise the node returned (settle it with {@link collect}). */
export function runPlain(host: EngineHost, ex: Execution): Outcome | PromiseLike<unknown> {
  const n = ex.node;
  if (n instanceof GateNode) {
    try {
      const decision = n.decide(ex.inputs, new NodeCtx(host, ex, undefined, 1));
      return { kind: "completed", outputs: {}, decision };
    } catch (error) {
      return { kind: "failed", error };
    }
  }
  const fn = n as FunctionNode;
  const control = host.config.control;
  if (control.stopRequested && !host.config.completeOnStop) return stopped();
  let returned: unknown;
  try {
    returned = host.invoke(ex, fn, new NodeCtx(host, ex, undefined, 1));
  } catch (error) {
    return { kind: "failed", error };
  }
  return isThenable(returned) ? returned : collect(ex, returned);
}

/** A plain node's Outcome for the value it returned (or resolved to). */
export function collect(ex: Execution, value: unknown): Outcome {
  try {
    const plan = ex.plan;
    return new Completed(plan.outputs, plan.single ? [value] : (ex.node as FunctionNode).outputValues(value));
  } catch (error) {
    return { kind: "failed", error };
  }
}
