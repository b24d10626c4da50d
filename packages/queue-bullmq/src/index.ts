/**
 * `@graph/queue-bullmq` — runs on a pool of worker processes through BullMQ (Redis): `GraphWorker` in every worker
 * process, `RemoteRunner` (the `Runner` API) wherever runs are submitted.
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
export { type RemoteMapOptions, RemoteRunner, type RemoteRunnerOptions } from "./RemoteRunner.js";
export type {
  AnyGraph,
  MapResultOf,
  RemoteResultOf,
  RemoteResumeOptions,
  RemoteRunHandle,
  RemoteStartArgs,
  RemoteStartOptions,
} from "./typing.js";
