// @graph/runtime — the Promise API. Effect users: "@graph/runtime/effect".

export { CheckpointError, isCheckpointError, isWorkflowConflictError, WorkflowConflictError } from "@graph/checkpoint";
// Errors of the other packages, so users import every error from one place.
export {
  GraphConfigError,
  isGraphConfigError,
  isRenameError,
  isRoutingError,
  RenameError,
  RoutingError,
} from "@graph/core";
export type { BulkOptions, BulkProgress, BulkReport, WorkflowFilter } from "./bulk.js";
export { type Clock, systemClock, type TestClock, testClock } from "./Clock.js";
export { MemoryCache, type NodeCache } from "./cache.js";
export {
  AttemptsExhaustedError,
  IncompatibleRunnerError,
  InfiniteLoopError,
  InvalidAnswerError,
  InvalidOptionError,
  isAttemptsExhaustedError,
  isIncompatibleRunnerError,
  isInfiniteLoopError,
  isInvalidAnswerError,
  isInvalidOptionError,
  isLeaseLostError,
  isMapInputError,
  isMissingInputError,
  isNodeExecutionError,
  isUnexpectedAnswerError,
  isUnknownValueError,
  isVersionMismatchError,
  LeaseLostError,
  MapInputError,
  type MappedList,
  MissingInputError,
  NodeExecutionError,
  UnexpectedAnswerError,
  UnknownValueError,
  VersionMismatchError,
} from "./errors.js";
export type { EventBase, EventProcessor, GraphEvent, GraphEventType, NodeCall } from "./events.js";
export { type ExplainReason, explain, type NodeExplanation } from "./explain.js";
export {
  type GraphMapOptions,
  type GraphRunner,
  makeRunHandle,
  type RunEventSource,
  type RunHandle,
  type RunHandleParts,
} from "./GraphRunner.js";
export type {
  FramesDispatch,
  FramesDispatchRequest,
  HousekeepingOptions,
  MapDispatcher,
  MapDispatchRequest,
  MapFence,
  PauseRef,
  PermitSignal,
  RunUpgrade,
  SweepReport,
} from "./options.js";
export { type MapOptions, Runner, type RunnerOptions, type RunOptions } from "./Runner.js";
export { type MapResult, type PauseInfo, RunResult, type RunStatus } from "./RunResult.js";
export type {
  ScheduleCatchUp,
  ScheduleEvent,
  ScheduleHandle,
  ScheduleOptions,
  ScheduleOverlap,
} from "./schedule.js";
export { type CacheOptions, type CheckpointerCacheOptions, checkpointerCache } from "./storeCache.js";
export type { SendOptions, SendResult, WakeResult } from "./time.js";
export type { MapResultOf, ResultOf, StartArgs } from "./typing.js";
