// @graph/runtime — the Promise API. Effect users: "@graph/runtime/effect".
export { Runner, type MapOptions, type RunHandle, type RunOptions, type RunnerOptions } from "./Runner.js";
export { RunResult, type MapResult, type PauseInfo, type RunStatus } from "./RunResult.js";
export { MemoryCache, type NodeCache } from "./cache.js";
export type { EventBase, EventProcessor, GraphEvent, GraphEventType } from "./events.js";
export {
  IncompatibleRunnerError,
  InfiniteLoopError,
  MissingInputError,
  NodeExecutionError,
  VersionMismatchError,
  isIncompatibleRunnerError,
  isInfiniteLoopError,
  isMissingInputError,
  isNodeExecutionError,
  isVersionMismatchError,
} from "./errors.js";
// Errors of the other packages, so users import every error from one place.
export { GraphConfigError, RenameError, RoutingError, isGraphConfigError, isRenameError, isRoutingError } from "@graph/core";
export { CheckpointError, WorkflowConflictError, isCheckpointError, isWorkflowConflictError } from "@graph/checkpoint";
