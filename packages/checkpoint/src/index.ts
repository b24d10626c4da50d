/**
 * `@graph/checkpoint` — the `Checkpointer` contract, record types, policy, serializer, shared helpers and the
 * in-memory checkpointer. The Effect-facing store lives in `@graph/checkpoint/effect`.
 *
 * @module
 */
/** The adapter contract and record types. */
export type {
  Checkpoint,
  Checkpointer,
  Fence,
  Lease,
  LeaseClaim,
  ListWorkflowsOptions,
  NewWorkflow,
  RenewedLease,
  SkippedWorkflow,
  StartedWorkflow,
  StepGroup,
  StepKind,
  StepReadOptions,
  StepRecord,
  StepStatus,
  StopRequest,
  StoredError,
  WorkflowFinish,
  WorkflowPage,
  WorkflowRecord,
  WorkflowStatus,
  WorkflowUpdate,
} from "./Checkpointer.js";
export { END_DECISION, INPUT_STEP } from "./Checkpointer.js";
/** Durability / retention policy. */
export type { CheckpointPolicy, Durability, Retention } from "./CheckpointPolicy.js";
export { DEFAULT_POLICY, resolvePolicy } from "./CheckpointPolicy.js";
export type { ClassCodec, SerializerOptions } from "./createSerializer.js";
export { createSerializer } from "./createSerializer.js";
/** Tagged errors and their brand-checking guards. */
export type { CheckpointErrorOptions, WorkflowConflictErrorOptions, WorkflowConflictReason } from "./errors.js";
export {
  CheckpointError,
  GRAPH_ERROR_BRAND,
  isCheckpointError,
  isWorkflowConflictError,
  WorkflowConflictError,
} from "./errors.js";
/** The guard the runtime wraps every adapter in. */
export type { CheckpointStoreError, GuardedCheckpointer } from "./guard.js";
export { classifyCheckpointerError, guardCheckpointer } from "./guard.js";
/** Lease and fencing helpers for adapters: claim/fence validation and conflict errors worded like every backend. */
export {
  leaseHeldError,
  leaseLostError,
  staleFenceError,
  stopAction,
  unknownWorkflowError,
  validateClaimOptions,
  validateFence,
  validateRenewal,
} from "./internal/leases.js";
export { isInputRecord } from "./internal/records.js";
/** How adapters store a stop request (one text through the serializer). */
export { decodeStopRequest, encodeStopRequest } from "./internal/stopRequests.js";
/** The in-memory checkpointer. */
export type { MemoryCheckpointerOptions } from "./MemoryCheckpointer.js";
export { MemoryCheckpointer } from "./MemoryCheckpointer.js";
/** Serialisation. */
export type { Serializer, StoredValueContext } from "./Serializer.js";
export { defaultSerializer, deserializeStored, serializeStored } from "./Serializer.js";
/** Pure helpers shared by every adapter. */
export type { FoldedState, StepSummary, WorkflowPosition } from "./state.js";
export {
  compactSteps,
  compareWorkflowPosition,
  DEFAULT_LIST_LIMIT,
  decodeWorkflowCursor,
  encodeWorkflowCursor,
  foldSteps,
  hasLoneSurrogate,
  isStorableText,
  MAX_WORKFLOW_ID_BYTES,
  resolveListLimit,
  stepKey,
  superstepBound,
  validateStepRecord,
  validateWorkflowId,
  workflowIdTooLong,
} from "./state.js";
