/**
 * Errors of `@graph/upgrade`.
 *
 * @module
 */
import { TaggedError } from "@graph/errors";

/**
 * A stored workflow can't continue on the new graph: `reasons` says why, each with how to fix it (a migration to
 * add, or resuming on the old code). Nothing was written.
 *
 * @example
 * ```ts
 * import { isUpgradeBlockedError } from "@graph/upgrade";
 * try {
 *   await runner.run(v2, { workflowId: "post-1", values: { decision: "ok" } });
 * } catch (e) {
 *   if (isUpgradeBlockedError(e)) console.error(e.reasons.join("\n"));
 * }
 * ```
 */
export class UpgradeBlockedError extends TaggedError("UpgradeBlockedError")<{
  readonly workflowId: string;
  readonly reasons: readonly string[];
}> {
  constructor(workflowId: string, reasons: readonly string[]) {
    super({
      message:
        `Workflow '${workflowId}' can't continue on the new graph version:\n` +
        reasons.map((r) => `  - ${r}`).join("\n") +
        "\n  Nothing was written: the stored workflow is as it was.\n  How to fix: add the migrations named above (upgradable(graph, { migrations })), or finish the workflow on the old code.",
      workflowId,
      reasons,
    });
  }
}

/**
 * True for an {@link UpgradeBlockedError} (checks the brand and tag, not `instanceof`).
 *
 * @example
 * ```ts
 * import { isUpgradeBlockedError } from "@graph/upgrade";
 * const blocked = (e: unknown) => isUpgradeBlockedError(e) && e.reasons.length > 0;
 * ```
 */
export const isUpgradeBlockedError = (e: unknown): e is UpgradeBlockedError => UpgradeBlockedError.is(e);

/**
 * A replay could not be set up or run as asked: a mocked node called more often than it was recorded, a graph
 * replay can't rebuild around its mocks, an unknown stored workflow. The message says which and what to do.
 *
 * @example
 * ```ts
 * import { isReplayError } from "@graph/upgrade";
 * const explain = (e: unknown) => (isReplayError(e) ? e.message : String(e));
 * ```
 */
export class ReplayError extends TaggedError("ReplayError")<Record<never, never>> {
  constructor(message: string) {
    super({ message });
  }
}

/**
 * True for a {@link ReplayError}.
 *
 * @example
 * ```ts
 * import { isReplayError } from "@graph/upgrade";
 * const failed = (e: unknown) => isReplayError(e);
 * ```
 */
export const isReplayError = (e: unknown): e is ReplayError => ReplayError.is(e);
