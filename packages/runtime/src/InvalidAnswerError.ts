import { TaggedError } from "@graph/errors";

/**
 * An answer to an interrupt that does not match the interrupt's `schema`: refused before anything is written, so the
 * workflow still waits at the same pause. `issues` are the schema's complaints (`"approved: expected boolean"`).
 *
 * @example
 * ```ts
 * try { await runner.run(graph, { workflowId: "w", values: { decision: { approved: "yes" } } }); }
 * catch (e) { if (isInvalidAnswerError(e)) console.log(e.nodeName, e.issues); }
 * ```
 */
export class InvalidAnswerError extends TaggedError("InvalidAnswerError")<{
  readonly workflowId: string;
  /** The interrupt whose schema refused the answer. */
  readonly nodeName: string;
  readonly responseKey: string;
  readonly issues: readonly string[];
}> {
  constructor(fields: { workflowId: string; nodeName: string; responseKey: string; issues: readonly string[] }) {
    super({
      message:
        `The answer to '${fields.nodeName}' ('${fields.responseKey}') of workflow '${fields.workflowId}' does not match its schema: ${fields.issues.join("; ")}. Nothing was saved; the workflow still waits.\n` +
        `  How to fix: send an answer the interrupt's schema accepts.`,
      ...fields,
    });
  }
}

/**
 * True for an {@link InvalidAnswerError}.
 *
 * @example
 * ```ts
 * if (isInvalidAnswerError(e)) console.log(e.issues);
 * ```
 */
export const isInvalidAnswerError = (e: unknown): e is InvalidAnswerError => InvalidAnswerError.is(e);
