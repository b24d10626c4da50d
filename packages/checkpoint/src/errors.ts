/**
 * The tagged errors of `@graph/checkpoint`.
 *
 * Both classes extend the shared `TaggedError` of `@graph/errors`: they carry a `_tag` and the `@graph` brand
 * (`Symbol.for("@graph/error")`), so they can be matched with `e._tag === "CheckpointError"` or with the guards
 * below even when two copies of the package are loaded (where `instanceof` would fail).
 *
 * @module
 */

import { ERROR_BRAND, TaggedError, tagGuard } from "@graph/errors";

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
export class CheckpointError extends TaggedError<"CheckpointError"> {
  readonly _tag = "CheckpointError" as const;
  override readonly name = "CheckpointError";
  declare readonly workflowId?: string;
  declare readonly nodeName?: string;
  declare readonly path?: string;
  declare readonly operation?: string;

  constructor(options: CheckpointErrorOptions) {
    super(options.message, { cause: options.cause });
    if (options.workflowId !== undefined) this.workflowId = options.workflowId;
    if (options.nodeName !== undefined) this.nodeName = options.nodeName;
    if (options.path !== undefined) this.path = options.path;
    if (options.operation !== undefined) this.operation = options.operation;
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
 * - `"lease-lost"`: a renewal found the lease released, taken by another owner, or ended by a stop request.
 * For the run that got `"stale-fence"` or `"lease-lost"` the lease is gone: it must stop at once.
 *
 * @example
 * ```ts
 * const lost = (e: WorkflowConflictError) => e.reason !== "lease-held";
 * ```
 */
export type WorkflowConflictReason = "lease-held" | "stale-fence" | "lease-lost";

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
export class WorkflowConflictError extends TaggedError<"WorkflowConflictError"> {
  readonly _tag = "WorkflowConflictError" as const;
  override readonly name = "WorkflowConflictError";
  readonly workflowId: string;
  /** Why (see {@link WorkflowConflictReason}); anything but `"lease-held"` means this run lost its lease. */
  readonly reason: WorkflowConflictReason;
  declare readonly heldBy?: string;
  declare readonly expiresAt?: Date;

  constructor(options: WorkflowConflictErrorOptions) {
    super(options.message ?? conflictMessage(options.workflowId, options.heldBy, options.expiresAt), {
      cause: options.cause,
    });
    this.workflowId = options.workflowId;
    this.reason = options.reason ?? "lease-held";
    if (options.heldBy !== undefined) this.heldBy = options.heldBy;
    if (options.expiresAt !== undefined) this.expiresAt = new Date(options.expiresAt.getTime());
  }
}

function conflictMessage(workflowId: string, heldBy: string | undefined, expiresAt: Date | undefined): string {
  const owner = heldBy === undefined ? "another owner" : `owner '${heldBy}'`;
  const until = expiresAt === undefined ? "" : ` (lease until ${expiresAt.toISOString()})`;
  return (
    `Workflow '${workflowId}' is already being run by ${owner}${until}. ` +
    "Wait for it to finish, stop it, or resume after the lease expires."
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
export const isCheckpointError: (value: unknown) => value is CheckpointError =
  tagGuard<CheckpointError>("CheckpointError");

/**
 * True when `value` is a {@link WorkflowConflictError} (from any copy of this package).
 *
 * @example
 * ```ts
 * if (isWorkflowConflictError(error)) console.error(error.heldBy);
 * ```
 */
export const isWorkflowConflictError: (value: unknown) => value is WorkflowConflictError =
  tagGuard<WorkflowConflictError>("WorkflowConflictError");
