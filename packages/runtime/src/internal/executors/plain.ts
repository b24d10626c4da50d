import type { AnyNode, FunctionNode, GateNode } from "@graph/core";
import * as Effect from "effect/Effect";
import type { EngineHost } from "../host.js";
import { NodeCtx } from "../nodeContext.js";
import { Completed, type Execution, isThenable, type Outcome, stopped } from "../outcome.js";
import { ASYNC, SYNC } from "../plan.js";

// The scheduler's hot path: gates and plain function nodes (no cache, retry, timeout or streaming) are called
// directly, with no Effect, fiber or AbortController per node. An async result comes back as a Promise of its
// Outcome; the superstep awaits it together with its siblings and the run's stop (superstep.ts).

/** Whether a node can run on the plain path (otherwise function.ts runs it). */
export function isPlain(host: EngineHost, ex: Execution): boolean {
  const path = ex.plan.path;
  // Async nodes take a permit of the shared concurrency limit when there is one: that path waits in Effect.
  return path === SYNC || (path === ASYNC && host.config.shared.semaphore === undefined);
}

/** Runs a plain node: its Outcome now, or the promise the node returned (settle it with {@link collect}). */
export function runPlain(host: EngineHost, ex: Execution): Outcome | PromiseLike<unknown> {
  const n = ex.node;
  if (n.kind === "gate") return decide(host, ex, n);
  const fn = functionNode(n);
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
    return new Completed(plan.outputs, plan.single ? [value] : functionNode(ex.node).outputValues(value));
  } catch (error) {
    return { kind: "failed", error };
  }
}

/** A gate's decision: gates are synchronous, so this is the whole of running one. */
function decide(host: EngineHost, ex: Execution, n: GateNode): Outcome {
  try {
    const decision = n.decide(ex.inputs, new NodeCtx(host, ex, undefined, 1));
    return { kind: "completed", outputs: {}, decision };
  } catch (error) {
    return { kind: "failed", error };
  }
}

/** The gate executor of the Effect path (plan.ts sends gates down the plain path, which calls `decide` itself). */
export function executeGate(host: EngineHost, ex: Execution, n: GateNode): Effect.Effect<Outcome> {
  return Effect.sync(() => decide(host, ex, n));
}

/** Only gates and function nodes take the plain path (plan.ts): anything else here is a bug, not a user error. */
function functionNode(n: AnyNode): FunctionNode {
  if (n.kind === "function") return n;
  throw new Error(`Node '${n.name}' (kind '${n.kind}') took the plain path, which runs gates and function nodes only.`);
}
