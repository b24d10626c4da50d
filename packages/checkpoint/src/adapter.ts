/**
 * `@graph/checkpoint/adapter` — the rules every checkpointer backend shares, as functions. An adapter stores
 * records in its own way (rows, keys, objects) and calls these for everything else, so every backend accepts and
 * refuses the same calls, words its errors the same, and computes the same state, versions, retention and pages.
 * `MemoryCheckpointer`, the SQL store of `@graph/checkpoint/kysely` and `@graph/checkpoint-redis` are built on it;
 * `@graph/checkpoint-conformance` holds every backend to the same rules.
 *
 * What a write does, in order:
 * 1. check the input: {@link validateNewWorkflow}, {@link validateStepGroup}, {@link validateClaimOptions},
 *    {@link validateFence}, {@link validateRenewal}, {@link validateStartSteps}, {@link validateFinish},
 *    {@link requireStorableText};
 * 2. serialise everything before touching storage: {@link encodeStepTexts}, {@link encodeWorkflowUpdate},
 *    {@link encodeStopRequest} — a value that cannot be stored then writes nothing;
 * 3. in one transaction / script: check the fence against the guarding workflow's epoch, write, apply retention
 *    ({@link compactSteps}); report conflicts with {@link staleFenceError}, {@link leaseHeldError},
 *    {@link leaseLostError}, {@link pauseSettledError}, unknown workflows with {@link unknownWorkflowError}.
 *
 * And a read: parse the backend's layout, then {@link decodeStepRecord} / {@link decodeWorkflowRecord} (a part that
 * does not fit is a {@link corruptRecordError}); {@link selectSteps} for `getSteps`, {@link foldSteps} for `getState`,
 * {@link assembleCheckpoint} for `getCheckpoint`, the cursor codec for `listWorkflows`.
 *
 * @example
 * ```ts
 * import { assembleCheckpoint, superstepBound } from "@graph/checkpoint/adapter";
 *
 * async function getCheckpoint(id: string, options: { superstep?: number } = {}) {
 *   const bound = superstepBound(options.superstep, "getCheckpoint", id);
 *   const read = await readMyRows(id, bound); // { lastSuperstep, steps } from one snapshot, or undefined
 *   return read === undefined ? undefined : assembleCheckpoint(id, read.lastSuperstep, read.steps, bound);
 * }
 * ```
 *
 * @module
 */

/** The attempt of a node with `retry` a step records: its check, stored form and read-back check. */
export * from "./internal/attempts.js";
// Each internal module below was written as part of this surface: everything it exports is public.
/** Node-cache entries: the argument checks of `readCacheEntry` / `writeCacheEntry` and the eviction rule. */
export * from "./internal/cacheEntries.js";
/** Building a `getCheckpoint` answer from one snapshot: `assembleCheckpoint`. */
export * from "./internal/checkpoints.js";
/** The listeners of `watchDue`: `DueWatchers`. */
export * from "./internal/dueWatchers.js";
/**
 * Input checks: ids and names every store keeps verbatim (`requireStorableText`), new workflows, step groups, the
 * steps of a start, the frame of a finish, the status filter, and lease references a release can match.
 */
export * from "./internal/inputs.js";
/** Leases and fences: argument checks, the decision of a stop request, and the conflict errors. */
export * from "./internal/leases.js";
/** The filters of `listWorkflows`: the id-prefix key range (`prefixRange`) and `matchesListFilters`. */
export * from "./internal/listFilters.js";
/** Stored parts of records (`encodeStepTexts`), and reading them back with the contract's checks. */
export * from "./internal/recordCodec.js";
/** Guards of what is read back, the statuses, and the error for a record that does not fit. */
export * from "./internal/recordGuards.js";
/** Input records (a run's caller-supplied values) among the steps: `selectSteps` for `getSteps`. */
export * from "./internal/records.js";
/** The stored form of a stop request. */
export * from "./internal/stopRequests.js";
/** The argument check of `putGraphStructure`: `checkGraphStructure`. */
export * from "./internal/structures.js";
/** Due times and event waits: their checks, the options of `listDue` / `listWaiting`, the statuses that keep them. */
export * from "./internal/time.js";
/** Updates checked and serialised before anything is written: `encodeWorkflowUpdate`. */
export * from "./internal/updates.js";
/** What a step spent and an input record's budget: their checks, stored form and read-back check. */
export * from "./internal/usage.js";
/** Values through the serializer, with the value's path in errors. */
export { deserializeStored, serializeStored } from "./Serializer.js";
/** State, retention, step keys, read bounds, list cursors, and the text and id rules. */
export type { FoldedState, StepSummary, WorkflowPosition } from "./state.js";
export {
  compactSteps,
  compareWorkflowPosition,
  decodeWorkflowCursor,
  encodeWorkflowCursor,
  foldSteps,
  hasLoneSurrogate,
  isStorableText,
  resolveListLimit,
  stepKey,
  superstepBound,
  validateStepRecord,
  validateWorkflowId,
} from "./state.js";
