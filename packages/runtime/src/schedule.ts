/**
 * Cron schedules: the public types of `runner.schedule(graph, options)` and `runner.schedules()`. Plain types with
 * no Effect in them. How firings, overlap and catch-up behave: `docs/schedules.md`.
 *
 * @module
 */
import type { RunStatus } from "./RunResult.js";

/**
 * What a firing does while the previous firing's workflow has not finished (it is running, or paused):
 * - `"skip"` (default): the firing does not run; a `ScheduleSkipped` event with `reason: "overlap"` says so;
 * - `"queue"`: the firing runs once the previous one has ended (firings run one after another, in order);
 * - `"allow"`: the firing runs at once, concurrently.
 */
export type ScheduleOverlap = "skip" | "queue" | "allow";

/**
 * What happens to occurrences that passed while no process had the schedule up, when the schedule starts
 * (`runner.schedule()` on a restarted process):
 * - `"latest"` (default): the most recent missed occurrence runs at once, late (its `ScheduleFired` event has
 *   `catchUp: true` and `lateMs`), when the schedule had fired before it: an earlier firing's workflow is in the
 *   store within the look-back (`catchUpWindowMs`, and at most 100 occurrences). Older missed occurrences are
 *   dropped. A new schedule never fires a past occurrence. Needs a checkpointer (without one nothing is known about
 *   earlier firings).
 * - `"none"`: missed occurrences are dropped; the schedule waits for its next occurrence.
 */
export type ScheduleCatchUp = "latest" | "none";

/** Options of `runner.schedule(graph, options)`. */
export interface ScheduleOptions {
  /**
   * The schedule's name: letters, digits, `.`, `_` and `-`, starting with a letter or digit, at most 100
   * characters. Each firing is the workflow `<id>/<ISO time of the occurrence>` (e.g.
   * `nightly/2026-03-29T01:00:00.000Z`): the same occurrence always has the same id, so it runs once whatever
   * the number of runners on the store.
   */
  readonly id: string;
  /**
   * A cron pattern: five fields (minute hour day-of-month month day-of-week), or six with seconds first. Nicknames
   * (`@hourly`, `@daily`, …) work too. Parsed by `croner`.
   */
  readonly cron: string;
  /** The IANA time zone the pattern is read in (`"Europe/Paris"`). Default `"UTC"`. */
  readonly timezone?: string;
  /** The values every firing runs with. */
  readonly values?: Readonly<Record<string, unknown>>;
  /** Default `"skip"`. */
  readonly overlap?: ScheduleOverlap;
  /** Default `"latest"`. */
  readonly catchUp?: ScheduleCatchUp;
  /** How far back (ms) `catchUp: "latest"` looks for missed occurrences and earlier firings. Default 24 hours. */
  readonly catchUpWindowMs?: number;
  /** Create the schedule paused: nothing fires until `handle.resume()`. Default false. */
  readonly paused?: boolean;
  /**
   * Called with each {@link ScheduleEvent} of this schedule. A throwing listener is ignored. The firings' own run
   * events go to the runner's `eventProcessors` as for any run.
   */
  readonly onEvent?: (event: ScheduleEvent) => void;
}

interface ScheduleEventBase {
  readonly scheduleId: string;
  /** The firing's workflow id: `<scheduleId>/<ISO time of the occurrence>`. */
  readonly workflowId: string;
  /** The occurrence: when the firing was due. */
  readonly dueAt: Date;
}

/**
 * What a schedule did, for `ScheduleOptions.onEvent`:
 * - `ScheduleFired`: this runner started the firing's workflow, `lateMs` after it was due (`catchUp`: it was missed
 *   while no process had the schedule up; `queued`: it waited for the previous firing to end);
 * - `ScheduleSkipped`: the firing does not run here — `"overlap"`: the previous firing (`previousWorkflowId`) had not
 *   finished and `overlap` is `"skip"`; `"taken"`: its workflow already exists (another runner, or an earlier
 *   process, fired it);
 * - `ScheduleRunEnded`: the firing's run ended (completed, paused, stopped, or failed: a failed node);
 * - `ScheduleRunFailed`: the firing could not run (storage error, lease conflict); `error` is the rejection.
 */
export type ScheduleEvent =
  | (ScheduleEventBase & {
      readonly type: "ScheduleFired";
      readonly firedAt: Date;
      readonly lateMs: number;
      readonly catchUp: boolean;
      readonly queued: boolean;
    })
  | (ScheduleEventBase & {
      readonly type: "ScheduleSkipped";
      readonly reason: "overlap" | "taken";
      readonly previousWorkflowId?: string;
    })
  | (ScheduleEventBase & { readonly type: "ScheduleRunEnded"; readonly status: RunStatus })
  | (ScheduleEventBase & { readonly type: "ScheduleRunFailed"; readonly error: unknown });

/**
 * A schedule of this runner, from `runner.schedule()` or `runner.schedules()`.
 *
 * @example
 * ```ts
 * import { Graph, node } from "@graph/core";
 * import { Runner } from "@graph/runtime";
 *
 * const tick = node({ output: "at" }, function tick() {
 *   return new Date().toISOString();
 * });
 * const runner = new Runner();
 * const handle = runner.schedule(new Graph([tick], { name: "tick" }), { id: "tick", cron: "0 * * * *" });
 * console.log(handle.nextFiring()); // the next full hour
 * handle.pause();
 * handle.resume();
 * handle.delete();
 * await runner.close();
 * ```
 */
export interface ScheduleHandle {
  readonly id: string;
  readonly cron: string;
  readonly timezone: string;
  readonly overlap: ScheduleOverlap;
  /** True while paused (and after `delete()`). */
  readonly paused: boolean;
  /** The next occurrence this runner will fire (undefined when paused, deleted, or the pattern has no more). */
  nextFiring(): Date | undefined;
  /** Stops firing until `resume()`. Firings already running go on. */
  pause(): void;
  /** Fires again from the next occurrence on; occurrences passed while paused are not caught up. */
  resume(): void;
  /** Removes the schedule from this runner for good. Firings already running go on. */
  delete(): void;
  /** Resolves once every firing this runner started or queued for this schedule has ended. */
  settled(): Promise<void>;
}
