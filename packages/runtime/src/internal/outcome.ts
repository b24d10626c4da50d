import type { StepAttempt, UsageRecord } from "@graph/checkpoint";
import { END_DECISION, type StoredError } from "@graph/checkpoint";
import { type AnyNode, END, type GateNode, type GraphNode, RoutingError, type Target } from "@graph/core";
import {
  InfiniteLoopError,
  type InvalidOptionError,
  type LeaseLostError,
  MapInputError,
  type MissingInputError,
  NodeExecutionError,
  type UnexpectedAnswerError,
  type UnknownValueError,
  type VersionMismatchError,
} from "../errors.js";
import type { PauseInfo, RunResult } from "../RunResult.js";
import type { NodePlan } from "./plan.js";

/** Errors a run can fail with (typed failures of the Effect). */
export type RunError =
  | NodeExecutionError
  | MissingInputError
  | UnknownValueError
  | UnexpectedAnswerError
  | import("../errors.js").InvalidAnswerError
  | InvalidOptionError
  | InfiniteLoopError
  | LeaseLostError
  | VersionMismatchError
  | RoutingError
  | import("@graph/checkpoint").CheckpointError
  | import("@graph/checkpoint").WorkflowConflictError;

/** What running one node produced. `index` is the step index, assigned when the node finished. */
export type Outcome = (
  | {
      kind: "completed";
      outputs: Record<string, unknown>;
      decision?: readonly Target[] | null;
      nested?: RunResult;
      truncated?: boolean;
      cached?: boolean;
      childWorkflowId?: string;
    }
  | {
      kind: "paused";
      pause: PauseInfo;
      nested?: RunResult;
      childWorkflowId?: string;
      /** A timed pause: when it first paused (epoch ms), stored as its step's start so its due time survives resumes. */
      since?: number;
    }
  | { kind: "stopped"; nested?: RunResult; childWorkflowId?: string }
  | {
      kind: "failed";
      error: unknown;
      nested?: RunResult;
      childWorkflowId?: string;
      /** NodeError was already emitted for this failure (by the retry loop). */
      reported?: boolean;
    }
) & {
  index?: number | undefined;
  /** A node with `retry`: the attempt that ended its step (stored with it, read back on resume). */
  attempt?: StepAttempt;
};

/** One node about to run in a superstep: its resolved inputs and their versions. */
export class Execution {
  readonly plan: NodePlan;
  readonly node: AnyNode;
  readonly inputs: Record<string, unknown>;
  /** The versions of the inputs, aligned with the node's inputs (0: bound, defaulted or absent). */
  readonly list: readonly number[];
  /** Interrupts: the version of the answer, when there is one. */
  readonly responseVersion: number | undefined;
  readonly spanId: string;
  readonly startedAt: number;
  /** What running it produced (set once it finished). */
  outcome: Outcome | undefined = undefined;
  /** What the node reported with `ctx.usage` (summed over its reports), stored with its step. */
  usage: UsageRecord | undefined = undefined;
  /** A GraphNode: what its child runs spent, stored with its step beside its own `usage`. */
  childUsage: UsageRecord | undefined = undefined;
  /** The tree's meter already counted `childUsage` (child runs of this process count their steps as they go). */
  childCounted = false;
  #versions: Record<string, number> | undefined;

  constructor(
    plan: NodePlan,
    inputs: Record<string, unknown>,
    list: readonly number[],
    responseVersion: number | undefined,
    spanId: string,
    startedAt: number,
  ) {
    this.plan = plan;
    this.node = plan.node;
    this.inputs = inputs;
    this.list = list;
    this.responseVersion = responseVersion;
    this.spanId = spanId;
    this.startedAt = startedAt;
  }

  /** The versions by input name (step records, idempotency keys): built when first read, off the hot path. */
  get versions(): Record<string, number> {
    if (this.#versions === undefined) {
      // A dictionary from the start: thousands of distinct input names don't each add a hidden class.
      const versions = Object.create(null) as Record<string, number>;
      const names = this.plan.inputs;
      for (let i = 0; i < names.length; i++) versions[names[i]!] = this.list[i]!;
      if (this.responseVersion !== undefined) versions[this.plan.responseKey!] = this.responseVersion;
      this.#versions = versions;
    }
    return this.#versions;
  }
}

/**
 * A plain function node's completion: its output values in the node's output order. The record keyed by output
 * name (events, step records) is built only when read — on the hot path nothing needs it.
 */
export class Completed {
  readonly kind = "completed" as const;
  readonly values: readonly unknown[];
  readonly #names: readonly string[];
  #outputs: Record<string, unknown> | undefined;
  index: number | undefined = undefined;

  constructor(names: readonly string[], values: readonly unknown[]) {
    this.#names = names;
    this.values = values;
  }

  get outputs(): Record<string, unknown> {
    if (this.#outputs === undefined) {
      const outputs: Record<string, unknown> = {};
      for (let i = 0; i < this.#names.length; i++) outputs[this.#names[i]!] = this.values[i];
      this.#outputs = outputs;
    }
    return this.#outputs;
  }
}

/** A fresh "stopped" outcome (outcomes get their step index assigned, so they are never shared). */
export const stopped = (): Outcome => ({ kind: "stopped" });

export function toStoredError(error: unknown): StoredError {
  const e = error as { name?: string; message?: string; _tag?: string; stack?: string };
  const out: { name: string; message: string; tag?: string; stack?: string } = {
    name: typeof e?.name === "string" ? e.name : "Error",
    message: typeof e?.message === "string" ? e.message : String(error),
  };
  if (typeof e?._tag === "string") out.tag = e._tag;
  return out;
}

export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === "object" || typeof value === "function") &&
    typeof (value as { then?: unknown }).then === "function"
  );
}

export function isIterator(value: unknown): value is Iterator<unknown> | AsyncIterator<unknown> {
  return value !== null && typeof value === "object" && typeof (value as { next?: unknown }).next === "function";
}

export const decisionToStored = (d: readonly Target[] | null | undefined): string | readonly string[] | null =>
  d === null || d === undefined ? null : d.map((t) => (t === END ? END_DECISION : t));

export const decisionFromStored = (d: string | readonly string[] | null | undefined): readonly Target[] | null =>
  d === null || d === undefined ? null : (typeof d === "string" ? [d] : d).map((t) => (t === END_DECISION ? END : t));

/** The RouteDecision event's shape: the target (or END) for single-choice gates, a list only for multiTarget. */
export function decisionShape(gate: GateNode, decision: readonly Target[] | null): Target | readonly Target[] | null {
  if (decision === null || gate.multiTarget) return decision;
  return decision[0] ?? null;
}

/** A mapped item's failure names the item: `sq[7]/square`, not only the inner node. */
export function itemFailure(n: GraphNode, index: number, error: unknown): unknown {
  if (NodeExecutionError.is(error)) return new NodeExecutionError(`${n.name}[${index}]/${error.nodeName}`, error.cause);
  if (InfiniteLoopError.is(error)) return underPath(`${n.name}[${index}]`, error);
  return error;
}

/**
 * The run's failure for a node's error: a NodeExecutionError naming the node path, tagged errors of a child run
 * passed through (an InfiniteLoopError with the child's node path). A mapped node's bad lists are its own failure.
 */
export function wrapFailure(n: AnyNode, error: unknown): unknown {
  if (RoutingError.is(error)) return error;
  if (NodeExecutionError.is(error)) {
    if (n.kind === "graph" && !error.nodeName.startsWith(`${n.name}[`))
      return new NodeExecutionError(`${n.name}/${error.nodeName}`, error.cause);
    return error;
  }
  if (MapInputError.is(error)) return new NodeExecutionError(n.name, error);
  if (n.kind === "graph" && InfiniteLoopError.is(error))
    return error.nodeName.startsWith(`${n.name}[`) ? error : underPath(n.name, error);
  if (n.kind === "graph" && error !== null && typeof error === "object" && "_tag" in error) return error;
  return new NodeExecutionError(n.name, error);
}

/** A child run's InfiniteLoopError as its parent reports it: every node named by its path under `prefix`. */
function underPath(prefix: string, error: InfiniteLoopError): InfiniteLoopError {
  return new InfiniteLoopError(
    `${prefix}/${error.nodeName}`,
    error.nodes.map((m) => `${prefix}/${m}`),
    error.maxIterations,
  );
}
