/**
 * The Effect-facing entry of `@graph/checkpoint`: the `CheckpointStore` service the runtime uses.
 *
 * A store wraps any Promise {@link Checkpointer} adapter once:
 * - `setup()` runs once (shared by concurrent callers, and automatically before the first operation);
 *   `close()` runs once and flushes first;
 * - every failure is typed: `CheckpointError | WorkflowConflictError` (adapter errors that are neither become a
 *   `CheckpointError` with `operation`, `workflowId` and `cause`); nothing escapes as a defect;
 * - durability is applied here, not in adapters:
 *   - `sync`: `saveStep` completes once the adapter has written the step;
 *   - `async`: `saveStep` enqueues and returns; one background writer per store writes in order; a failed write
 *     surfaces on the next `saveStep`/`updateWorkflow`/`flush` of that workflow (later queued steps of the
 *     workflow are skipped, so history never has a gap);
 *   - `exit`: steps are buffered per workflow and written by `flush(workflowId)` (or `close`).
 *   Every other operation on a workflow first waits for (or writes) that workflow's pending steps, so reads see
 *   earlier saves and a status update never lands before the steps it summarises.
 *
 * @module
 */

import * as Context from "effect/Context";
import type * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import type * as Scope from "effect/Scope";
import type { Checkpointer } from "./Checkpointer.js";
import type { CheckpointError } from "./errors.js";
import * as internal from "./internal/store.js";

/**
 * The operations of a {@link CheckpointStore}: the {@link Checkpointer} contract as Effects with typed errors,
 * plus `flush` and the effective `policy`.
 *
 * @example
 * ```ts
 * const program = Effect.gen(function* () {
 *   const store: CheckpointStoreService = yield* CheckpointStore;
 *   yield* store.createWorkflow({ id: "wf-1", graphName: "g", graphHash: "h" });
 *   yield* store.saveStep(step);
 *   yield* store.flush("wf-1");
 * });
 * ```
 */
export type CheckpointStoreService = internal.CheckpointStoreService;

/**
 * Options of {@link makeCheckpointStore}: a policy override (merged over the adapter's `policy`, e.g. only
 * `{ durability: "sync" }`) and whether closing the store closes the adapter (default true).
 *
 * @example
 * ```ts
 * const options: CheckpointStoreOptions = { policy: { durability: "sync" }, closeAdapter: false };
 * ```
 */
export type CheckpointStoreOptions = internal.CheckpointStoreOptions;

/**
 * The service tag of the runtime's checkpoint store.
 *
 * @example
 * ```ts
 * import { Effect } from "effect";
 * import { CheckpointStore, checkpointStoreLayer } from "@graph/checkpoint/effect";
 * import { MemoryCheckpointer } from "@graph/checkpoint";
 *
 * const program = Effect.gen(function* () {
 *   const store = yield* CheckpointStore;
 *   return yield* store.getWorkflow("wf-1");
 * });
 * await Effect.runPromise(program.pipe(Effect.provide(checkpointStoreLayer(new MemoryCheckpointer()))));
 * ```
 */
export class CheckpointStore extends Context.Tag("@graph/checkpoint/CheckpointStore")<
  CheckpointStore,
  CheckpointStoreService
>() {}

/**
 * Builds a store over a Promise adapter. The store lives in the surrounding `Scope`: closing the scope flushes
 * pending steps and closes the adapter (once). Fails only when the merged policy is invalid.
 *
 * @example
 * ```ts
 * import { Effect } from "effect";
 * const saved = Effect.scoped(
 *   Effect.gen(function* () {
 *     const store = yield* makeCheckpointStore(new MemoryCheckpointer(), { policy: { durability: "async" } });
 *     yield* store.createWorkflow({ id: "wf-1", graphName: "g", graphHash: "h" });
 *     yield* store.saveStep(step); // queued; written before the scope closes
 *   }),
 * );
 * ```
 */
export function makeCheckpointStore(
  adapter: Checkpointer,
  options?: CheckpointStoreOptions,
): Effect.Effect<CheckpointStoreService, CheckpointError, Scope.Scope> {
  return internal.makeCheckpointStore(adapter, options);
}

/**
 * A layer providing {@link CheckpointStore} built from any Promise adapter (see {@link makeCheckpointStore}).
 *
 * @example
 * ```ts
 * const live = checkpointStoreLayer(new MemoryCheckpointer({ policy: { retention: "latest" } }));
 * await Effect.runPromise(program.pipe(Effect.provide(live)));
 * ```
 */
export function checkpointStoreLayer(
  adapter: Checkpointer,
  options?: CheckpointStoreOptions,
): Layer.Layer<CheckpointStore, CheckpointError> {
  return Layer.scoped(CheckpointStore, internal.makeCheckpointStore(adapter, options));
}

/** Re-exported from the main entry for Effect users: the typed errors of every store operation. */
export type { CheckpointStoreError, GuardedCheckpointer } from "./guard.js";
/** Re-exported from the main entry: the Promise-level guard the store is built on. */
export { classifyCheckpointerError, guardCheckpointer } from "./guard.js";
