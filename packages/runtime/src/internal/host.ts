import type { FunctionNode, Graph } from "@graph/core";
import type * as Effect from "effect/Effect";
import type { GraphEvent } from "../events.js";
import type { RunResult } from "../RunResult.js";
import type { Attempts } from "./attempts.js";
import type { Execution, RunError } from "./outcome.js";
import type { RunConfig } from "./runConfig.js";
import type { RunState } from "./state.js";

/** The fields of an event the engine fills in itself. */
export type EventFields<T extends GraphEvent["type"]> = Omit<
  Extract<GraphEvent, { type: T }>,
  "type" | "runId" | "workflowId" | "spanId" | "parentSpanId" | "timestamp"
>;

/** What the node executors and the node context need from the run that executes them. */
export interface EngineHost {
  readonly graph: Graph;
  readonly config: RunConfig;
  readonly state: RunState;
  /** The run's own span (nodes get their own only when someone listens to events). */
  readonly spanId: string;
  /** Emits an event of this run (spanId: the node's span; omitted: the run's). */
  event<T extends GraphEvent["type"]>(type: T, fields: EventFields<T>, spanId?: string): void;
  /** Calls a function node, inside the processors' `aroundNode` wrappers when there are any. */
  invoke(ex: Execution, n: FunctionNode, ctx: unknown): unknown;
  /** The signal shared by this run's plain nodes, created on first use; aborted when the run is stopped. */
  runSignal(): AbortSignal;
  /** The durable attempts of the run's nodes with `retry`. */
  readonly attempts: Attempts;
  /** A child run (a nested GraphNode or one map item) with its own config. */
  spawn(graph: Graph, config: RunConfig): ChildRun;
}

/** A child run, as an Effect or — when nothing needs Effect around it ({@link direct}) — as a plain Promise. */
export interface ChildRun {
  readonly direct: boolean;
  run(): Effect.Effect<RunResult, RunError>;
  runDirect(): Promise<RunResult>;
  abandon(): void;
}
