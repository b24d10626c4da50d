/**
 * `@graph/queue-bullmq` — runs on a pool of worker processes through BullMQ (Redis): `GraphWorker` in every worker
 * process, `RemoteRunner` (a `GraphRunner`, like `Runner`) wherever runs are submitted. Its argument and result types
 * are `@graph/runtime`'s (`StartArgs`, `ResultOf`, `MapResultOf`, `RunHandle`).
 *
 * @module
 */
export {
  GraphVersionError,
  isGraphVersionError,
  isRemoteRunError,
  isUnknownGraphError,
  type RemoteErrorCause,
  RemoteRunError,
  UnknownGraphError,
} from "./errors.js";
export { GraphWorker, type GraphWorkerOptions } from "./GraphWorker.js";
export type { FramesDistributeOptions } from "./internal/frameChunks.js";
export type {
  RunConcurrency,
  RunKeyContext,
  RunKeyFunction,
  RunRateLimit,
  WorkerRunLimits,
} from "./internal/runLimits.js";
export type { RemoteScheduleInfo, RemoteScheduleOptions } from "./internal/schedules.js";
export type { SubmitOptions, SubmitTiming } from "./internal/submitTiming.js";
export { RedisPermitSignal, type RedisPermitSignalOptions } from "./RedisPermitSignal.js";
export { type RemoteMapOptions, RemoteRunner, type RemoteRunnerOptions } from "./RemoteRunner.js";
