import { TaggedError } from "@graph/errors";
import type { RunResult } from "./RunResult.js";

/**
 * The run could not start: required inputs (or cycle seeds) have no value. Lists what is missing, what was
 * provided, "Did you mean" suggestions and the `bind()` hint.
 *
 * @example
 * ```ts
 * try { await runner.run(graph, { values: {} }); } catch (e) { if (isMissingInputError(e)) console.log(e.missing); }
 * ```
 */
export class MissingInputError extends TaggedError("MissingInputError")<{
  readonly missing: readonly string[];
  readonly provided: readonly string[];
}> {
  constructor(message: string, missing: readonly string[], provided: readonly string[]) {
    super({ message, missing, provided });
  }
}

/**
 * A node was about to run more than `maxIterations` times in one run: a loop that never settled. `nodeName` is
 * that node, `nodes` the nodes of its loop (the ones still cycling).
 *
 * @example
 * ```ts
 * await runner.run(loop, { values: { count: 0 }, maxIterations: 50 }).catch((e) => isInfiniteLoopError(e) && console.log(e.nodes));
 * ```
 */
export class InfiniteLoopError extends TaggedError("InfiniteLoopError")<{
  readonly nodeName: string;
  readonly nodes: readonly string[];
  readonly maxIterations: number;
}> {
  constructor(nodeName: string, nodes: readonly string[], maxIterations: number) {
    super({
      message:
        `Node '${nodeName}' would run more than ${maxIterations} times in one run (maxIterations: ${maxIterations}): the loop never settled. ` +
        `Still cycling: ${nodes.join(", ")}. Make a gate of the loop return END (or route out of it), or raise maxIterations.`,
      nodeName,
      nodes,
      maxIterations,
    });
  }
}

/**
 * A node's function threw (or timed out, or returned the wrong shape). `cause` is the thrown error itself;
 * `partialResult` holds what the run produced before the failure.
 *
 * @example
 * ```ts
 * try { await runner.run(graph, { values }); } catch (e) { if (isNodeExecutionError(e)) console.log(e.nodeName, e.cause); }
 * ```
 */
export class NodeExecutionError extends TaggedError("NodeExecutionError")<{
  readonly nodeName: string;
  /** What the node threw. */
  readonly cause: unknown;
  readonly partialResult: RunResult | undefined;
}> {
  constructor(nodeName: string, cause: unknown, partialResult?: RunResult) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super({ message: `Node '${nodeName}' failed: ${reason}`, nodeName, cause, partialResult });
  }
}

/**
 * The graph can't run with this runner method: `runSync` with async nodes or interrupts, `runner.map` over a
 * graph with interrupts.
 *
 * @example
 * ```ts
 * try { runner.runSync(asyncGraph); } catch (e) { if (isIncompatibleRunnerError(e)) await runner.run(asyncGraph); }
 * ```
 */
export class IncompatibleRunnerError extends TaggedError("IncompatibleRunnerError") {
  constructor(message: string) {
    super({ message });
  }
}

/**
 * The stored workflow was created by a different graph definition. Pass `force: true` to run anyway.
 *
 * @example
 * ```ts
 * await runner.run(graph, { workflowId: "wf-1", force: true });
 * ```
 */
export class VersionMismatchError extends TaggedError("VersionMismatchError")<{
  readonly workflowId: string;
  readonly storedHash: string;
  readonly currentHash: string;
}> {
  constructor(workflowId: string, storedHash: string, currentHash: string) {
    super({
      message:
        `Workflow '${workflowId}' was created by a different version of this graph (stored ${storedHash.slice(0, 12)}…, now ${currentHash.slice(0, 12)}…).\n` +
        `  → Resuming with changed nodes could mix results of two definitions.\n` +
        `  How to fix: resume with the original graph, start a new workflowId, or pass force: true to continue anyway.`,
      workflowId,
      storedHash,
      currentHash,
    });
  }
}

/**
 * A Runner entry was called with an option it can't use (a `signal` that is not an AbortSignal, a `select` that is
 * not a pattern, `new Runner(null)`, an object that is not a Checkpointer…). Thrown before anything runs.
 *
 * @example
 * ```ts
 * try { await runner.run(graph, { signal: "stop" as never }); } catch (e) { if (isInvalidOptionError(e)) console.log(e.option); }
 * ```
 */
export class InvalidOptionError extends TaggedError("InvalidOptionError")<{
  /** The option's name. */
  readonly option: string;
}> {
  constructor(message: string, option: string) {
    super({ message, option });
  }
}

/**
 * A run was given values the graph does not know (no node reads them, none produces them): usually a misspelled
 * name, or a misspelled answer to a pause. `unknown` lists them; the message says what each one is probably meant
 * to be. Pass `unknownValues: "ignore"` to the run to drop unknown values instead.
 *
 * @example
 * ```ts
 * try { await runner.run(graph, { values: { topk: 3 } }); } catch (e) { if (isUnknownValueError(e)) console.log(e.unknown); }
 * ```
 */
export class UnknownValueError extends TaggedError("UnknownValueError")<{ readonly unknown: readonly string[] }> {
  constructor(message: string, unknown: readonly string[]) {
    super({ message, unknown });
  }
}

/**
 * A resume answered a pause that is not pending: an answer for an interrupt the workflow is not paused at (a later
 * one, or one already answered), or for a workflow that is not paused at all. Refused before anything is written,
 * so the answer is never kept to be taken silently by a later visit. `answers` are the refused response keys,
 * `pending` the ones the workflow waits for (empty: nothing is pending).
 *
 * @example
 * ```ts
 * try { await runner.run(graph, { workflowId: "w", values: { approval: "yes" } }); }
 * catch (e) { if (isUnexpectedAnswerError(e)) console.log(e.answers, e.pending); }
 * ```
 */
export class UnexpectedAnswerError extends TaggedError("UnexpectedAnswerError")<{
  readonly workflowId: string;
  readonly answers: readonly string[];
  readonly pending: readonly string[];
}> {
  constructor(message: string, workflowId: string, answers: readonly string[], pending: readonly string[]) {
    super({ message, workflowId, answers, pending });
  }
}

/**
 * True for an {@link UnexpectedAnswerError}.
 *
 * @example
 * ```ts
 * if (isUnexpectedAnswerError(e)) console.log(e.pending);
 * ```
 */
export const isUnexpectedAnswerError = (e: unknown): e is UnexpectedAnswerError => UnexpectedAnswerError.is(e);

/**
 * True for an {@link InvalidOptionError}.
 *
 * @example
 * ```ts
 * if (isInvalidOptionError(e)) console.log(e.option);
 * ```
 */
export const isInvalidOptionError = (e: unknown): e is InvalidOptionError => InvalidOptionError.is(e);
/**
 * True for an {@link UnknownValueError}.
 *
 * @example
 * ```ts
 * if (isUnknownValueError(e)) console.log(e.unknown);
 * ```
 */
export const isUnknownValueError = (e: unknown): e is UnknownValueError => UnknownValueError.is(e);
/**
 * True for a {@link MissingInputError}.
 *
 * @example
 * ```ts
 * if (isMissingInputError(e)) console.log(e.missing);
 * ```
 */
export const isMissingInputError = (e: unknown): e is MissingInputError => MissingInputError.is(e);
/**
 * True for an {@link InfiniteLoopError}.
 *
 * @example
 * ```ts
 * if (isInfiniteLoopError(e)) console.log(e.nodes);
 * ```
 */
export const isInfiniteLoopError = (e: unknown): e is InfiniteLoopError => InfiniteLoopError.is(e);
/**
 * True for a {@link NodeExecutionError}.
 *
 * @example
 * ```ts
 * if (isNodeExecutionError(e)) console.log(e.nodeName);
 * ```
 */
export const isNodeExecutionError = (e: unknown): e is NodeExecutionError => NodeExecutionError.is(e);
/**
 * True for an {@link IncompatibleRunnerError}.
 *
 * @example
 * ```ts
 * if (isIncompatibleRunnerError(e)) console.log(e.message);
 * ```
 */
export const isIncompatibleRunnerError = (e: unknown): e is IncompatibleRunnerError => IncompatibleRunnerError.is(e);
/**
 * True for a {@link VersionMismatchError}.
 *
 * @example
 * ```ts
 * if (isVersionMismatchError(e)) console.log(e.storedHash);
 * ```
 */
export const isVersionMismatchError = (e: unknown): e is VersionMismatchError => VersionMismatchError.is(e);

/**
 * The run lost its workflow's lease: its renewal failed (another process claimed the workflow, or a stop ended it)
 * or one of its writes was fenced. The run aborted at once — running nodes saw `ctx.signal` abort — and wrote
 * nothing more; whoever holds the workflow now finishes it. `takenBy` is the new holder's owner id when known.
 *
 * @example
 * ```ts
 * try { await runner.run(graph, { workflowId: "wf-1" }); }
 * catch (e) { if (isLeaseLostError(e)) console.warn(`${e.workflowId} is now run by ${e.takenBy ?? "another process"}`); }
 * ```
 */
export class LeaseLostError extends TaggedError("LeaseLostError")<{
  readonly workflowId: string;
  readonly owner: string;
  /** The new holder's owner id, when known (unset otherwise). */
  readonly takenBy?: string;
}> {
  constructor(workflowId: string, owner: string, why: string, takenBy?: string, cause?: unknown) {
    super({
      message:
        `Run of workflow '${workflowId}' (lease owner '${owner}') lost its lease: ${why}${takenBy === undefined ? "" : ` Now held by '${takenBy}'.`} ` +
        "The run stopped at once and wrote nothing more; the holder of the workflow finishes it.\n" +
        "  How to fix: nothing to repair. If this process was paused (GC, SIGSTOP, an overloaded machine) or a node " +
        "blocked the event loop longer than the lease, raise `leaseTtlMs` on the Runner or make the node yield " +
        "(await) more often. To run the workflow here again, resume it once no one holds it.",
      workflowId,
      owner,
      takenBy,
      cause,
    });
  }
}
/**
 * True for a {@link LeaseLostError}.
 *
 * @example
 * ```ts
 * if (isLeaseLostError(e)) console.log(e.workflowId, e.takenBy);
 * ```
 */
export const isLeaseLostError = (e: unknown): e is LeaseLostError => LeaseLostError.is(e);

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

/** One list a `mapOver` was given: the mapped input's name, and its length (`undefined` when it is not an array). */
export interface MappedList {
  readonly name: string;
  readonly length: number | undefined;
}

/**
 * The values a mapped GraphNode (or `runner.map`) maps over don't make a list of items: a mapped value is not an
 * array, zipped lists differ in length, or a product would be too large. A run-time value, so the node fails with a
 * NodeExecutionError whose `cause` is this error; `lists` names each mapped input with its length.
 *
 * @example
 * ```ts
 * await runner.run(graph, { values }).catch((e) => isNodeExecutionError(e) && isMapInputError(e.cause) && console.log(e.cause.lists));
 * ```
 */
export class MapInputError extends TaggedError("MapInputError")<{
  /** The mapped node (or `runner.map`). */
  readonly nodeName: string;
  readonly reason: "notAnArray" | "unequalLengths" | "tooManyItems";
  readonly lists: readonly MappedList[];
}> {
  constructor(message: string, nodeName: string, reason: MapInputError["reason"], lists: readonly MappedList[]) {
    super({ message, nodeName, reason, lists });
  }
}

/**
 * True for a {@link MapInputError}.
 *
 * @example
 * ```ts
 * if (isMapInputError(e)) console.log(e.lists);
 * ```
 */
export const isMapInputError = (e: unknown): e is MapInputError => MapInputError.is(e);
