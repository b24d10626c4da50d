/**
 * `@graph/checkpoint` — the `Checkpointer` contract, record types, policy, serializer and the in-memory
 * checkpointer. The Effect-facing store lives in `@graph/checkpoint/effect`, the rules every backend shares in
 * `@graph/checkpoint/adapter`, the SQL store in `@graph/checkpoint/kysely`.
 *
 * @module
 */
/** The adapter contract and record types. */
export type {
  Checkpoint,
  Checkpointer,
  ClaimOptions,
  DueWorkflow,
  EventWait,
  Fence,
  Lease,
  LeaseClaim,
  ListWorkflowsOptions,
  NewWorkflow,
  RenewedLease,
  SkippedWorkflow,
  StartedWorkflow,
  StepAttempt,
  StepGroup,
  StepKind,
  StepReadOptions,
  StepRecord,
  StepStatus,
  StopRequest,
  StoredError,
  UsageRecord,
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
export type { CacheEntryWrite } from "./internal/cacheEntries.js";
export { isInputRecord } from "./internal/records.js";
/** The in-memory checkpointer. */
export type { MemoryCheckpointerOptions } from "./MemoryCheckpointer.js";
export { MemoryCheckpointer } from "./MemoryCheckpointer.js";
/** Serialisation. */
export type { Serializer, StoredValueContext } from "./Serializer.js";
export { defaultSerializer, deserializeStored, serializeStored } from "./Serializer.js";
/**
 * The state of a workflow from its steps, and the workflow id rules. Adapter authors: every shared rule (leases,
 * fences, updates, record checks, cursors, retention) is in `@graph/checkpoint/adapter`.
 */
export type { FoldedState } from "./state.js";
export {
  DEFAULT_LIST_LIMIT,
  foldSteps,
  MAX_WORKFLOW_ID_BYTES,
  validateWorkflowId,
  workflowIdTooLong,
} from "./state.js";
