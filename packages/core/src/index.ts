export { GraphError, isTaggedError, TaggedError } from "@graph/errors";
export {
  GRAPH_BRAND,
  isFunctionNode,
  isGateNode,
  isGraph,
  isGraphNode,
  isInterruptNode,
  isNode,
  NODE_BRAND,
  NODE_PROTOCOL,
  type NodeKind,
} from "./brands.js";
export { asBudgetPause, BUDGET_KEY, type BudgetField, type BudgetPause, type BudgetPauseValue } from "./budget.js";
export { type Duration, parseDuration, toEpochMs } from "./duration.js";
export { END, type End } from "./END.js";
export {
  GraphConfigError,
  isGraphConfigError,
  isRenameError,
  isRoutingError,
  RenameError,
  RoutingError,
} from "./errors.js";
export {
  type AnyNode,
  type EdgeDefinition,
  Graph,
  type GraphConstructor,
  type GraphOptions,
  type InputSpec,
  type StructureEdgeAttributes,
  type StructureNodeAttributes,
} from "./Graph.js";
export { type FramesConfig, GraphNode, type MapMode, type MapOverConfig, type MapOverOptions } from "./GraphNode.js";
export {
  GateNode,
  IfElseNode,
  type IfElseOptions,
  ifElse,
  RouteNode,
  type RouteOptions,
  route,
  type Target,
} from "./gates.js";
export { closestName } from "./internal/suggest.js";
export {
  type InterruptHandler,
  InterruptNode,
  type InterruptOptions,
  interrupt,
  type PauseTiming,
  type TimedAnswer,
} from "./interrupt.js";
export type { Budget, NodeContext, RetryOptions, Usage } from "./NodeContext.js";
export {
  type FramesOptions,
  FunctionNode,
  type NodeConcurrency,
  type NodeFunction,
  type NodeMode,
  type NodeOptions,
  type NodeRateLimit,
  node,
} from "./node.js";
export { type SleepOptions, sleep } from "./sleep.js";
export type { GraphMeta } from "./types/merge.js";
export type { InputsOf, OutputsOf, PauseOf } from "./types/ports.js";
export type { GraphResult, PathValue, ResultPath, RunStatus } from "./types/result.js";
export type {
  NoValuesNeeded,
  PausesOf,
  ResultOutputsOf,
  RunValuesOf,
  SeedChoiceOf,
  UnknownValuesOf,
} from "./types/run.js";
export { type WaitForOptions, waitFor } from "./waitFor.js";
