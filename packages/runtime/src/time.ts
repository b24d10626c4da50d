/**
 * What `runner.wake` and `runner.send` answer. Plain types with no Effect in them.
 *
 * @module
 */
import type { Duration } from "@graph/core";
import type { RunResult } from "./RunResult.js";

/**
 * The answer of `runner.wake(workflowId)`: the workflow was resumed for its due time (`woken: true`, with the run's
 * result and how late it was), or why not:
 * - `"not-due"`: it has a due time still to come (`dueAt`), or none at all (answered, woken or ended already);
 * - `"not-found"`: no such workflow;
 * - `"already-woken"`: another runner resumed it between this call reading it and taking its lease (nothing was
 *   written by this call);
 * - `"busy"`: another runner (or this one) is running it right now;
 * - `"unknown-graph"`: this runner does not know the graph that created it (pass it in `RunnerOptions.graphs`).
 *
 * @example
 * ```ts
 * const woken: WakeResult = { woken: false, workflowId: "order-42", reason: "not-due", dueAt: new Date("2026-01-01T00:00:00Z") };
 * ```
 */
export type WakeResult =
  | {
      readonly woken: true;
      readonly workflowId: string;
      readonly result: RunResult;
      /** The due time the store held. */
      readonly dueAt: Date;
      /** How late the resume started (the runner's clock minus `dueAt`, ms). */
      readonly lateMs: number;
    }
  | {
      readonly woken: false;
      readonly workflowId: string;
      readonly reason: "not-due" | "not-found" | "already-woken" | "busy" | "unknown-graph";
      readonly dueAt?: Date;
    };

/**
 * The answer of `runner.send(event, payload)`: the workflows it resumed with the payload (and how each run ended),
 * and those it found waiting but could not resume (another runner resumed it first, it is running, or this runner
 * does not know its graph). Empty when nobody waited: the event is not kept for a later `waitFor`.
 *
 * @example
 * ```ts
 * const sent: SendResult = { delivered: [{ workflowId: "ticket-7", status: "completed" }], skipped: [] };
 * ```
 */
export interface SendResult {
  readonly delivered: ReadonlyArray<{ readonly workflowId: string; readonly status: RunResult["status"] }>;
  readonly skipped: ReadonlyArray<{
    readonly workflowId: string;
    readonly reason: "already-resumed" | "busy" | "unknown-graph";
  }>;
  /** With `{ buffer }` and nobody waiting: until when the event is kept for the first `waitFor` that matches it. */
  readonly bufferedUntil?: Date;
}

/**
 * Options of `runner.send`. `buffer`: when nobody waits for the event now, keep it in the store for this long
 * (milliseconds or a duration such as `"10m"`); the first workflow that reaches a matching `waitFor` within that
 * time is resumed with it at once, and the event is used up. Without it an event nobody waits for is dropped.
 *
 * @example
 * ```ts
 * const options: SendOptions = { buffer: "10m" };
 * ```
 */
export interface SendOptions {
  readonly buffer?: Duration;
}
