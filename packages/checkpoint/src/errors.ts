/**
 * The tagged errors of `@graph/checkpoint`.
 *
 * Both classes are declared with the `TaggedError` factory of `@graph/errors`: they carry a `_tag` and the `@graph`
 * brand (`Symbol.for("@graph/error")`), so `e._tag === "CheckpointError"`, `CheckpointError.is(e)`, the guards below
 * and `instanceof` all agree, even when two copies of the package are loaded.
 *
 * @module
 */

import { ERROR_BRAND, TaggedError } from "@graph/errors";

/**
 * The brand every `@graph/*` error carries. Guards check it together with `_tag`.
 *
 * @example
 * ```ts
 * import { GRAPH_ERROR_BRAND } from "@graph/checkpoint";
 * const isGraphError = (e: unknown) => typeof e === "object" && e !== null && GRAPH_ERROR_BRAND in e;
 * ```
 */
export const GRAPH_ERROR_BRAND: typeof ERROR_BRAND = ERROR_BRAND;

/**
 * Options of {@link CheckpointError}. Everything but `message` is optional context.
 *
 * @example
 * ```ts
 * const options: CheckpointErrorOptions = { message: "disk full", workflowId: "wf-1", operation: "saveStep" };
 * ```
 */
export interface CheckpointErrorOptions {
  /** Full message: what is wrong, where, and how to fix it. */
  readonly message: string;
  readonly workflowId?: string;
  readonly nodeName?: string;
  /** Path of the offending value inside the stored record, e.g. `values.doc.meta[2]`. */
  readonly path?: string;
  /** The checkpointer operation that failed, e.g. `saveStep`. */
  readonly operation?: string;
  readonly cause?: unknown;
}

/**
 * Storage failed: a value could not be serialised, the backend rejected a write, a row was corrupt, an unknown
 * workflow was written to, or the checkpointer was used after `close()`.
 *
 * @example
 * ```ts
 * import { isCheckpointError } from "@graph/checkpoint";
 * try {
 *   await checkpointer.saveStep(step);
 * } catch (e) {
 *   if (isCheckpointError(e)) console.error(e.workflowId, e.nodeName, e.path, e.message);
 * }
 * ```
 */
export class CheckpointError extends TaggedError("CheckpointError")<{
  readonly workflowId?: string;
  readonly nodeName?: string;
  readonly path?: string;
  readonly operation?: string;
}> {
  constructor(options: CheckpointErrorOptions) {
    // Only the known keys: an untyped caller's extra keys do not become fields.
    const { message, workflowId, nodeName, path, operation, cause } = options;
    super({ message, workflowId, nodeName, path, operation, cause });
  }
}

/**
 * Options of {@link WorkflowConflictError}.
 *
 * @example
 * ```ts
 * const options: WorkflowConflictErrorOptions = { workflowId: "wf-1", heldBy: "host-b:42" };
 * ```
 */
export interface WorkflowConflictErrorOptions {
  readonly workflowId: string;
  /** Why; default `"lease-held"`. See {@link WorkflowConflictReason}. */
  readonly reason?: WorkflowConflictReason;
  /** Owner of the lease that blocked the claim, when known. */
  readonly heldBy?: string;
  /** When that lease expires, when known. */
  readonly expiresAt?: Date;
  /** Overrides the default message (used for stale fencing tokens). */
  readonly message?: string;
  readonly cause?: unknown;
}

/**
 * Why a {@link WorkflowConflictError} happened:
 * - `"lease-held"`: a claim met another owner's live lease (wait, or resume after it expires);
 * - `"stale-fence"`: a write carried an old lease epoch, someone claimed the workflow since: nothing was written;
 * - `"lease-lost"`: a renewal found the lease released, taken by another owner, or ended by a stop request;
 * - `"pause-settled"`: a claim that answers a pause (`ifPausedAt`) found it no longer pending (another answer, an
 *   event, a timeout or a stop settled it): nothing was written, the answer is stale.
 * For the run that got `"stale-fence"` or `"lease-lost"` the lease is gone: it must stop at once.
 *
 * @example
 * ```ts
 * const lost = (e: WorkflowConflictError) => e.reason !== "lease-held";
 * ```
 */
export type WorkflowConflictReason = "lease-held" | "stale-fence" | "lease-lost" | "pause-settled";

/**
 * Another run holds the workflow: a claim met an unexpired lease of another owner, or a write carried a stale
 * fencing epoch (someone else claimed the workflow since).
 *
 * @example
 * ```ts
 * import { isWorkflowConflictError } from "@graph/checkpoint";
 * try {
 *   await checkpointer.claimWorkflow("wf-1", { owner: "me", ttlMs: 30_000 });
 * } catch (e) {
 *   if (isWorkflowConflictError(e)) console.error(`held by ${e.heldBy} until ${e.expiresAt?.toISOString()}`);
 * }
 * ```
 */
export class WorkflowConflictError extends TaggedError("WorkflowConflictError")<{
  readonly workflowId: string;
  /** Why (see {@link WorkflowConflictReason}); anything but `"lease-held"` means this run lost its lease. */
  readonly reason: WorkflowConflictReason;
  readonly heldBy?: string;
  readonly expiresAt?: Date;
}> {
  constructor(options: WorkflowConflictErrorOptions) {
    const { workflowId, heldBy, expiresAt } = options;
    super({
      message: options.message ?? conflictMessage(workflowId, heldBy, expiresAt),
      workflowId,
      reason: options.reason ?? "lease-held",
      heldBy,
      // A copy: the caller's Date stays theirs to change.
      expiresAt: expiresAt === undefined ? undefined : new Date(expiresAt.getTime()),
      cause: options.cause,
    });
  }
}

function conflictMessage(workflowId: string, heldBy: string | undefined, expiresAt: Date | undefined): string {
  const owner = heldBy === undefined ? "another owner" : `owner '${heldBy}'`;
  const until = expiresAt === undefined ? "" : ` (lease until ${expiresAt.toISOString()})`;
  return (
    `Workflow '${workflowId}' is already being run by ${owner}${until}. ` +
    "Wait for it to finish, stop it, or resume after the lease expires — `waitForLease: true` in the run's options " +
    "waits for the lease, then resumes."
  );
}

/**
 * True when `value` is a {@link CheckpointError} (from any copy of this package).
 *
 * @example
 * ```ts
 * if (isCheckpointError(error)) console.error(error.path);
 * ```
 */
export const isCheckpointError = (value: unknown): value is CheckpointError => CheckpointError.is(value);

/**
 * True when `value` is a {@link WorkflowConflictError} (from any copy of this package).
 *
 * @example
 * ```ts
 * if (isWorkflowConflictError(error)) console.error(error.heldBy);
 * ```
 */
export const isWorkflowConflictError = (value: unknown): value is WorkflowConflictError =>
  WorkflowConflictError.is(value);
