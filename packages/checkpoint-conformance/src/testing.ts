/**
 * Small helpers for an adapter's own tests, the same ones the conformance suite uses.
 *
 * @module
 */
import { rejection as rejectionOf, step } from "./internal/fixtures.js";

/**
 * A well-formed `StepRecord` with trivial defaults (status completed, empty values, fixed timestamps).
 *
 * @example
 * ```ts
 * await checkpointer.saveStep(stepRecord("wf", { superstep: 0, nodeName: "n0", index: 0, values: { v: 1 } }));
 * ```
 */
export const stepRecord = step;

/**
 * Awaits a promise that must reject and returns its error (throws when it resolves).
 *
 * @example
 * ```ts
 * const error = await rejection(checkpointer.claimWorkflow("wf", { owner: "b", ttlMs: 1000 }));
 * ```
 */
export const rejection = rejectionOf;
