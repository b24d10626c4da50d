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
        "\n  How to fix: add the migrations named above (upgradable(graph, { migrations })), or finish the workflow on the old code.",
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
