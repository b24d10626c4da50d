import { TaggedError } from "@graph/errors";

/**
 * A node with `retry` has no attempt left after crashes: its last attempt (`attempts`) was cut short by a crash (the
 * process died, or lost the workflow) after the step had used its one repeat, so it is not called again. Each attempt
 * start of a node with `retry` is stored, so the attempt number and the retry budget survive a crash or a stop; the
 * first attempt a crash cuts short runs again under its own number, later ones count as failed. It is the `cause` of
 * the node's `NodeExecutionError`.
 *
 * @example
 * ```ts
 * try { await runner.run(graph, { workflowId: "order-7" }); }
 * catch (e) { if (isNodeExecutionError(e) && isAttemptsExhaustedError(e.cause)) console.warn(e.cause.nodeName, e.cause.attempts); }
 * ```
 */
export class AttemptsExhaustedError extends TaggedError("AttemptsExhaustedError")<{
  readonly workflowId: string;
  readonly nodeName: string;
  /** The node's `retry.attempts`. */
  readonly attempts: number;
}> {
  constructor(workflowId: string, nodeName: string, attempts: number) {
    super({
      message:
        `Node '${nodeName}' of workflow '${workflowId}' has no attempt left: attempt ${attempts} of ${attempts} ` +
        "(retry.attempts) was cut short by a crash (the process died or lost the workflow while it ran), and this step " +
        "already ran one attempt again after an earlier crash, which is all a step gets. The node is not called again.\n" +
        "  How to fix: find why the process dies during this node (memory, a blocked event loop past the lease). " +
        "Resuming the workflow again starts the node with a fresh retry budget; make its side effect idempotent " +
        "(pass ctx.idempotencyKey to the API) before you do.",
      workflowId,
      nodeName,
      attempts,
    });
  }
}

/**
 * True for an {@link AttemptsExhaustedError}.
 *
 * @example
 * ```ts
 * if (isAttemptsExhaustedError(e)) console.log(e.nodeName, e.attempts);
 * ```
 */
export const isAttemptsExhaustedError = (e: unknown): e is AttemptsExhaustedError => AttemptsExhaustedError.is(e);
