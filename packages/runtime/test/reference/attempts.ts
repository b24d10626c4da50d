/**
 * Reference model, retries: the attempt numbers a node with `retry: { attempts }` is called with across runs of one
 * workflow, when each call fails, succeeds, is stopped or dies with its process (docs/durability.md, "Retries across
 * stops and crashes"). Written as the rules read, with no storage: where a step left off is one small record.
 */

/** What one call does: return, throw, get stopped (`runner.stop`) or die with its process (SIGKILL). */
export type CallEvent = "ok" | "fail" | "stop" | "crash";

/** How one run of the workflow ended. */
export type RunEnd = "completed" | "failed" | "stopped" | "crashed" | "exhausted";

export interface AttemptsOutcome {
  /** `ctx.attempt` of every call, in order, over every run. */
  readonly calls: readonly number[];
  /** How each run ended, in order. */
  readonly runs: readonly RunEnd[];
}

/** Where the step left off: the attempt under way when the process died, or the one a stop cut off. */
interface LeftOff {
  readonly status: "running" | "stopped";
  readonly number: number;
  readonly repeats: number;
}

/**
 * Runs the workflow again and again (each run resumes the last) until it completes or fails, taking one event per
 * call from `events` (calls past the end of the list fail). At most `maxRuns` runs.
 */
export function referenceAttempts(attempts: number, events: readonly CallEvent[], maxRuns = 50): AttemptsOutcome {
  const calls: number[] = [];
  const runs: RunEnd[] = [];
  let leftOff: LeftOff | undefined;
  let next = 0;
  while (runs.length < maxRuns) {
    // Where the run starts: a stop's attempt again; a crash's attempt again once per step, then counted as failed.
    let number = 1;
    let repeats = 0;
    if (leftOff !== undefined) {
      repeats = leftOff.repeats;
      number = leftOff.number;
      if (leftOff.status === "running") {
        if (repeats < 1) repeats++;
        else number++;
      }
    }
    leftOff = undefined;
    if (number > attempts) {
      runs.push("exhausted");
      return { calls, runs };
    }
    let end: RunEnd | undefined;
    while (end === undefined) {
      calls.push(number);
      const event = events[next++] ?? "fail";
      if (event === "ok") end = "completed";
      else if (event === "fail") {
        if (number < attempts) number++;
        else end = "failed";
      } else {
        leftOff = { status: event === "stop" ? "stopped" : "running", number, repeats };
        end = event === "stop" ? "stopped" : "crashed";
      }
    }
    runs.push(end);
    if (end === "completed" || end === "failed") return { calls, runs };
  }
  return { calls, runs };
}
