import { FunctionNode, GateNode } from "@graph/core";
import type { EngineHost } from "../host.js";
import { NodeCtx } from "../nodeContext.js";
import { type Execution, isThenable, type Outcome, stopped } from "../outcome.js";

// The scheduler's hot path: gates and plain function nodes (no cache, retry, timeout or streaming) are called
// directly, with no Effect, fiber or AbortController per node. An async result comes back as a Promise of its
// Outcome; the superstep awaits it together with its siblings and the run's stop (superstep.ts).

const SYNC = 1;
const ASYNC = 2;
const OTHER = 0;
/** Nodes are immutable: what kind of node each is, worked out once. */
const kinds = new WeakMap<object, number>();

function kindOf(n: object): number {
  let kind = kinds.get(n);
  if (kind === undefined) {
    if (n instanceof GateNode) kind = SYNC;
    else if (!(n instanceof FunctionNode) || n.cache || n.retry !== undefined || n.timeoutMs !== undefined)
      kind = OTHER;
    else kind = n.mode === "sync" ? SYNC : n.mode === "async" ? ASYNC : OTHER;
    kinds.set(n, kind);
  }
  return kind;
}

/** Whether a node can run on the plain path (otherwise function.ts runs it). */
export function isPlain(host: EngineHost, n: object): boolean {
  const kind = kindOf(n);
  // Async nodes take a permit of the shared concurrency limit when there is one: that path waits in Effect.
  return kind === SYNC || (kind === ASYNC && host.config.shared.semaphore === undefined);
}

/** Runs a plain node: its Outcome now, or the promise the node returned (settle it with {@link collect}). */
export function runPlain(host: EngineHost, ex: Execution): Outcome | PromiseLike<unknown> {
  const n = ex.node;
  if (n instanceof GateNode) {
    try {
      return { kind: "completed", outputs: {}, decision: n.decide(ex.inputs, new NodeCtx(host, ex, undefined, 1)) };
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
  return isThenable(returned) ? returned : collect(fn, returned);
}

/** A plain node's Outcome for the value it returned (or resolved to). */
export function collect(n: FunctionNode, value: unknown): Outcome {
  try {
    return { kind: "completed", outputs: n.collectOutputs(value) };
  } catch (error) {
    return { kind: "failed", error };
  }
}
