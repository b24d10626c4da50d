import type { InterruptNode, PauseTiming } from "@graph/core";
import { toEpochMs } from "@graph/core";
import { InvalidOptionError } from "../../errors.js";
import type { PauseInfo } from "../../RunResult.js";
import type { EngineHost } from "../host.js";
import type { Execution, Outcome } from "../outcome.js";

/**
 * A timed pause reached with no answer (a sleep, an interrupt with a timeout, a `waitFor`): due now → it completes
 * (a sleep with its due time, a timeout with `onTimeout`); otherwise it pauses with its due time. The due time is a
 * function of what is stored: the moment the node first paused (kept as its paused step's start, `since`) plus the
 * duration, or the `until` value. A resume before the due time pauses again with the same due time; a resume after
 * it (the scheduler's, or anyone's) fires it: whoever claims the workflow first, once.
 */
export function timedPause(host: EngineHost, ex: Execution, n: InterruptNode, timing: PauseTiming): Outcome {
  const now = host.config.shared.clock.now();
  const since = host.state.pausedSince.get(n.name) ?? now;
  let due: number | undefined;
  if (timing.untilInput === true) {
    const raw = ex.inputs[n.inputName];
    due = toEpochMs(raw);
    if (due === undefined)
      return {
        kind: "failed",
        error: new InvalidOptionError(
          `sleep '${n.name}' reads its wake-up time from '${n.inputName}', which holds ${describe(raw)}: not a time.\n  How to fix: make '${n.inputName}' a Date, an ISO 8601 string ("2026-01-01T09:00:00Z") or epoch milliseconds.`,
          n.inputName,
        ),
      };
  } else if (timing.afterMs !== undefined) due = since + timing.afterMs;
  if (due !== undefined && due <= now) return fire(n, timing, ex, due);
  return { kind: "paused", pause: pauseOf(n, timing, ex, due), since };
}

function fire(n: InterruptNode, timing: PauseTiming, ex: Execution, due: number): Outcome {
  if (timing.wait === "sleep") return { kind: "completed", outputs: { [n.responseKey]: due } };
  const onTimeout = timing.onTimeout;
  let answer: unknown;
  try {
    answer = typeof onTimeout === "function" ? (onTimeout as (shown: unknown) => unknown)(shown(n, ex)) : onTimeout;
  } catch (error) {
    return { kind: "failed", error };
  }
  const flag = n.timedOutKey;
  return {
    kind: "completed",
    outputs: flag === undefined ? { [n.responseKey]: answer } : { [n.responseKey]: answer, [flag]: true },
  };
}

function pauseOf(n: InterruptNode, timing: PauseTiming, ex: Execution, due: number | undefined): PauseInfo {
  const reason = timing.wait === "sleep" ? "sleep" : timing.wait === "event" ? "event" : "human_input";
  const match = n.eventMatch;
  return {
    reason,
    nodeName: n.name,
    value: shown(n, ex),
    responseKey: n.responseKey,
    ...(due === undefined ? {} : { wakeAt: new Date(due) }),
    ...(match === undefined || timing.event === undefined
      ? {}
      : { waitingFor: { event: timing.event, match: matchValues(match, ex.inputs) } }),
  };
}

/** What the pause shows: a `waitFor` shows the values it matches on (by payload field), others their input. */
function shown(n: InterruptNode, ex: Execution): unknown {
  const match = n.eventMatch;
  return match === undefined ? ex.inputs[n.inputName] : matchValues(match, ex.inputs);
}

function matchValues(
  match: Readonly<Record<string, string>>,
  inputs: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(match)) out[field] = inputs[value];
  return out;
}

/** An answer that arrived in time: the answer, and `false` under the timed-out flag when the pause has one. */
export function answered(n: InterruptNode, answer: unknown): Outcome {
  const flag = n.timedOutKey;
  return {
    kind: "completed",
    outputs: flag === undefined ? { [n.responseKey]: answer } : { [n.responseKey]: answer, [flag]: false },
  };
}

const describe = (value: unknown): string =>
  value instanceof Date
    ? "an invalid Date"
    : value === undefined
      ? "undefined"
      : (JSON.stringify(value) ?? String(value));
